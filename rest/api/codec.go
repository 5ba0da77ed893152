package api

import (
	"fmt"

	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// Codec decodes pods from either wire: DecodePod from JSON, and
// DecodePodProtobuf from protobuf messages. Hand it to rest.DecodeList,
// watch.NewDecoder or cache.NewListWatchFromClient.
var Codec = meta.Codec[*Pod]{JSON: DecodePod, Protobuf: DecodePodProtobuf}

// DecodePod decodes one pod from its JSON, data (Codec's JSON). The pod
// keeps nothing of data, so the caller may reuse it: unmodelled members are
// copied by jsonx.Extra.Keep, the large ones shared with equal members of other
// pods (replicas of one template, or the previous version of the same pod), so
// a store of similar pods does not hold the same bytes once per pod.
func DecodePod(data []byte) (*Pod, error) {
	var r jsonx.Reader
	r.Reset(data)
	p := &Pod{}
	p.ReadJSON(&r)
	if r.Err() == nil && !r.AtEnd() {
		r.Fail("data after the pod")
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decode pod: %w", err)
	}
	return p, nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *Pod) UnmarshalJSON(data []byte) error {
	d, err := DecodePod(data)
	if err != nil {
		return err
	}
	*p = *d
	return nil
}

// MarshalJSON implements json.Marshaler; unmodelled members are written back.
func (p *Pod) MarshalJSON() ([]byte, error) {
	return jsonx.Encode(p.WriteJSON), nil
}

// ReadJSON decodes the pod in place.
func (p *Pod) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "kind":
			p.Kind = r.String()
		case "apiVersion":
			p.APIVersion = r.String()
		case "metadata":
			p.Metadata.ReadJSON(r)
		case "spec":
			p.Spec.ReadJSON(r)
		case "status":
			p.Status.ReadJSON(r)
		default:
			p.extra.Keep(r, field)
		}
	})
}

// WriteJSON encodes the pod.
func (p *Pod) WriteJSON(jw *jsonx.Writer) {
	w := jw.BeginObject()
	w.String("kind", p.Kind)
	w.String("apiVersion", p.APIVersion)
	w.Field("metadata")
	p.Metadata.WriteJSON(jw)
	w.Field("spec")
	p.Spec.WriteJSON(jw)
	w.Field("status")
	p.Status.WriteJSON(jw)
	w.Extra(p.extra)
	w.End()
}

// ReadJSON decodes the spec in place.
func (ps *PodSpec) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "nodeName":
			ps.NodeName = r.String()
		case "containers":
			ps.Containers = readArray(r, ps.Containers, (*Container).ReadJSON)
		case "tolerations":
			ps.Tolerations = readArray(r, ps.Tolerations, (*Toleration).ReadJSON)
		default:
			ps.extra.Keep(r, field)
		}
	})
}

// WriteJSON encodes the spec. Members keep the server's order where it matters
// to a reader (containers first) and unmodelled ones follow.
func (ps *PodSpec) WriteJSON(jw *jsonx.Writer) {
	w := jw.BeginObject()
	if ps.Containers != nil {
		w.Field("containers")
		writeArray(jw, ps.Containers, (*Container).WriteJSON)
	}
	w.String("nodeName", ps.NodeName)
	if ps.Tolerations != nil {
		w.Field("tolerations")
		writeArray(jw, ps.Tolerations, (*Toleration).WriteJSON)
	}
	w.Extra(ps.extra)
	w.End()
}

// ReadJSON decodes the container in place.
func (c *Container) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "name":
			c.Name = r.String()
		case "image":
			c.Image = r.String()
		default:
			c.extra.Keep(r, field)
		}
	})
}

// WriteJSON encodes the container.
func (c *Container) WriteJSON(jw *jsonx.Writer) {
	w := jw.BeginObject()
	w.String("name", c.Name)
	w.String("image", c.Image)
	w.Extra(c.extra)
	w.End()
}

// ReadJSON decodes the toleration in place.
func (t *Toleration) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "key":
			t.Key = r.String()
		case "operator":
			t.Operator = r.String()
		case "value":
			t.Value = r.String()
		case "effect":
			t.Effect = r.String()
		case "tolerationSeconds":
			t.TolerationSeconds = jsonx.ReadInt64Ptr(r)
		default:
			t.extra.Keep(r, field)
		}
	})
}

// WriteJSON encodes the toleration.
func (t *Toleration) WriteJSON(jw *jsonx.Writer) {
	w := jw.BeginObject()
	w.String("key", t.Key)
	w.String("operator", t.Operator)
	w.String("value", t.Value)
	w.String("effect", t.Effect)
	w.Int64Ptr("tolerationSeconds", t.TolerationSeconds)
	w.Extra(t.extra)
	w.End()
}

// ReadJSON decodes the status in place.
func (st *PodStatus) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "phase":
			st.Phase = r.String()
		case "hostIP":
			st.HostIP = r.String()
		case "podIP":
			st.PodIP = r.String()
		default:
			st.extra.Keep(r, field)
		}
	})
}

// WriteJSON encodes the status.
func (st *PodStatus) WriteJSON(jw *jsonx.Writer) {
	w := jw.BeginObject()
	w.String("phase", st.Phase)
	w.String("hostIP", st.HostIP)
	w.String("podIP", st.PodIP)
	w.Extra(st.extra)
	w.End()
}

// readArray reads a JSON array (or null) of objects into dst, reusing its storage.
func readArray[E any](r *jsonx.Reader, dst []E, read func(*E, *jsonx.Reader)) []E {
	if r.Null() {
		return nil
	}
	dst = dst[:0]
	if dst == nil {
		dst = []E{}
	}
	r.Array(func() {
		var e E
		read(&e, r)
		dst = append(dst, e)
	})
	return dst
}

func writeArray[E any](w *jsonx.Writer, src []E, write func(*E, *jsonx.Writer)) {
	a := w.BeginArray()
	for i := range src {
		a.Next()
		write(&src[i], w)
	}
	a.End()
}
