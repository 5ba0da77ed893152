package meta

import (
	"time"

	"github.com/podwatch/podwatch/rest/jsonx"
)

// Object is what the generic rest, watch and cache code needs of a decoded object:
// its metadata, for keys and resourceVersions.
type Object interface {
	Meta() *ObjectMeta
}

// Codec decodes objects of one kind, T, as the list and watch decoders
// hand them over: from their JSON and, when Protobuf is set, from their
// protobuf messages without a detour through JSON. The data either is handed
// is valid only for the duration of the call (callers reuse their buffers):
// a decoder that keeps any part of it copies it first.
type Codec[T any] struct {
	// JSON decodes one object from its JSON. It is required: CBOR objects,
	// and protobuf ones when Protobuf is nil, are transcoded to the JSON the
	// apiserver would have sent and decoded by it.
	JSON func(data []byte) (T, error)
	// Protobuf, when set, decodes one object from its protobuf message and
	// must give what JSON gives for the same server object. tm is the kind
	// and API version the envelope named (empty for a list's items, which
	// carry none, as in JSON). Malformed input is a *protowire.SyntaxError at
	// an offset of data (a *jsonx.SyntaxError for malformed JSON embedded in
	// it, such as a FieldsV1); the list and watch decoders move either to the
	// stream's offsets.
	Protobuf func(tm TypeMeta, data []byte) (T, error)
}

// TypeMeta is an object's kind and API version.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is the subset of metadata podwatch acts on; the rest rides along in
// an unexported store and is written back on encode.
type ObjectMeta struct {
	Name                       string
	GenerateName               string
	Namespace                  string
	UID                        string
	ResourceVersion            string
	Generation                 int64
	CreationTimestamp          time.Time
	DeletionTimestamp          *time.Time
	DeletionGracePeriodSeconds *int64
	Labels                     map[string]string
	Annotations                map[string]string

	// managedFields is kept entry by entry: an entry's time differs between
	// replicas of one template while its large field set does not.
	managedFields jsonx.Objects
	extra         jsonx.Extra
}

// Unmodelled returns the raw JSON of a metadata member podwatch keeps but does not
// model (ownerReferences, managedFields, ...), or nil. managedFields is encoded
// anew from its entries at each call; ManagedFields reads them without that.
func (m *ObjectMeta) Unmodelled(name string) []byte {
	if name == "managedFields" && m.managedFields.IsSet() {
		return m.managedFields.Raw()
	}
	return m.extra.Get(name)
}

// ManagedFields returns the managedFields entries as kept.
func (m *ObjectMeta) ManagedFields() jsonx.Objects { return m.managedFields }

// ReadJSON decodes object metadata from r; errors are recorded on r. Unmodelled
// members are copies (see jsonx.Extra.Keep): r's input may be reused.
func (m *ObjectMeta) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "name":
			m.Name = r.String()
		case "generateName":
			m.GenerateName = r.String()
		case "namespace":
			m.Namespace = r.String()
		case "uid":
			m.UID = r.String()
		case "resourceVersion":
			m.ResourceVersion = r.String()
		case "generation":
			m.Generation = r.Int64()
		case "creationTimestamp":
			m.CreationTimestamp = jsonx.ReadTime(r)
		case "deletionTimestamp":
			m.DeletionTimestamp = jsonx.ReadTimePtr(r)
		case "deletionGracePeriodSeconds":
			m.DeletionGracePeriodSeconds = jsonx.ReadInt64Ptr(r)
		case "labels":
			m.Labels = jsonx.ReadStringMap(r)
		case "annotations":
			m.Annotations = jsonx.ReadStringMap(r)
		case "managedFields":
			m.extra.KeepObjects(r, field, &m.managedFields)
		default:
			m.extra.Keep(r, field)
		}
	})
}

// WriteJSON encodes the metadata, unmodelled members included.
func (m *ObjectMeta) WriteJSON(jw *jsonx.Writer) {
	w := jw.BeginObject()
	w.String("name", m.Name)
	w.String("generateName", m.GenerateName)
	w.String("namespace", m.Namespace)
	w.String("uid", m.UID)
	w.String("resourceVersion", m.ResourceVersion)
	w.Int64("generation", m.Generation)
	w.Time("creationTimestamp", m.CreationTimestamp)
	if m.DeletionTimestamp != nil {
		w.Time("deletionTimestamp", *m.DeletionTimestamp)
	}
	w.Int64Ptr("deletionGracePeriodSeconds", m.DeletionGracePeriodSeconds)
	w.StringMap("labels", m.Labels)
	w.StringMap("annotations", m.Annotations)
	w.ExtraWith(m.extra, m.managedFields)
	w.End()
}

// DeepCopy returns a copy that shares nothing mutable with m.
func (m *ObjectMeta) DeepCopy() ObjectMeta {
	c := *m
	c.Labels = copyMap(m.Labels)
	c.Annotations = copyMap(m.Annotations)
	if m.DeletionTimestamp != nil {
		t := *m.DeletionTimestamp
		c.DeletionTimestamp = &t
	}
	if m.DeletionGracePeriodSeconds != nil {
		v := *m.DeletionGracePeriodSeconds
		c.DeletionGracePeriodSeconds = &v
	}
	// Kept members are never modified in place, only replaced, so sharing their
	// bytes is safe; the slice header is copied so appends do not alias.
	c.extra = append(jsonx.Extra(nil), m.extra...)
	return c
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// ListMeta is a list's metadata.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// ReadJSON decodes list metadata from r, ignoring members it does not model.
func (m *ListMeta) ReadJSON(r *jsonx.Reader) {
	r.Object(func(field []byte) {
		switch string(field) {
		case "resourceVersion":
			m.ResourceVersion = r.String()
		case "continue":
			m.Continue = r.String()
		case "remainingItemCount":
			m.RemainingItemCount = jsonx.ReadInt64Ptr(r)
		default:
			r.Skip()
		}
	})
}
