package api

import (
	"fmt"
	"sync"

	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/rest/protowire"
)

// What Pod and its parts model of the protobuf schema's messages; the other
// fields are kept in their wire form (protowire.Model).
var (
	podMessage, _ = protowire.Root("Pod")
	podModel      = protowire.NewModel(podMessage, "metadata", "spec", "status")
	// Volumes and volume mounts are kept each as a run of its own: replicas
	// of a template differ in one of them (the service account token's
	// volume, named per pod), and kept apart it does not make the rest of
	// the spec, or of the container, a run no other replica shares.
	specModel = protowire.NewModel(podMessage.Elem("spec"), "containers", "nodeName", "tolerations").
			Apart("volumes")
	containerModel  = protowire.NewModel(specModel.Elem("containers"), "name", "image").Apart("volumeMounts")
	tolerationModel = protowire.NewModel(specModel.Elem("tolerations"),
		"key", "operator", "value", "effect", "tolerationSeconds")
	statusModel = protowire.NewModel(podMessage.Elem("status"), "phase", "hostIP", "podIP")

	pbMetadata          = podModel.Num("metadata")
	pbSpec              = podModel.Num("spec")
	pbStatus            = podModel.Num("status")
	pbContainers        = specModel.Num("containers")
	pbNodeName          = specModel.Num("nodeName")
	pbTolerations       = specModel.Num("tolerations")
	pbContainerName     = containerModel.Num("name")
	pbImage             = containerModel.Num("image")
	pbKey               = tolerationModel.Num("key")
	pbOperator          = tolerationModel.Num("operator")
	pbValue             = tolerationModel.Num("value")
	pbEffect            = tolerationModel.Num("effect")
	pbTolerationSeconds = tolerationModel.Num("tolerationSeconds")
	pbPhase             = statusModel.Num("phase")
	pbHostIP            = statusModel.Num("hostIP")
	pbPodIP             = statusModel.Num("podIP")
)

// readers are reused across pods for their scratch space; what a pod keeps
// is never in it.
var readers = sync.Pool{New: func() any { return new(protowire.Reader) }}

// DecodePodProtobuf decodes one pod from its protobuf message (Codec's
// Protobuf), DecodePod's twin for the kubelet's content type. tm is the pod's kind and API version, from its envelope. The typed
// fields are read straight from the wire; every other field is checked
// against the schema and kept in its wire form, becoming JSON only when the
// pod is written, so the pod is the one DecodePod gives for the same pod in
// JSON, and writes as the same JSON. As with DecodePod, the pod keeps nothing
// of data, and large kept runs equal to those of other pods are shared.
func DecodePodProtobuf(tm meta.TypeMeta, data []byte) (*Pod, error) {
	r := readers.Get().(*protowire.Reader)
	defer func() {
		r.Reset(nil, 0) // the pool holds no caller's bytes
		readers.Put(r)
	}()
	r.Reset(data, 0)
	p := &Pod{TypeMeta: tm}
	p.ReadProtobuf(r)
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decode pod: %w", err)
	}
	return p, nil
}

// ReadProtobuf decodes the pod, the message r is at, in place.
func (p *Pod) ReadProtobuf(r *protowire.Reader) {
	r.Message(podModel, &p.extra, func(num int32) {
		switch num {
		// A message given twice is the last one, as the transcoder reads it.
		case pbMetadata:
			p.Metadata = meta.ObjectMeta{}
			p.Metadata.ReadProtobuf(r)
		case pbSpec:
			p.Spec = PodSpec{}
			p.Spec.ReadProtobuf(r)
		case pbStatus:
			p.Status = PodStatus{}
			p.Status.ReadProtobuf(r)
		}
	})
}

// ReadProtobuf decodes the spec in place.
func (ps *PodSpec) ReadProtobuf(r *protowire.Reader) {
	r.Message(specModel, &ps.extra, func(num int32) {
		switch num {
		case pbContainers:
			if ps.Containers == nil {
				ps.Containers = make([]Container, 0, 2) // most pods have one or two
			}
			ps.Containers = append(ps.Containers, Container{})
			ps.Containers[len(ps.Containers)-1].ReadProtobuf(r)
		case pbNodeName:
			ps.NodeName = r.RecurringString()
		case pbTolerations:
			if ps.Tolerations == nil {
				ps.Tolerations = make([]Toleration, 0, 2) // the two every pod is given
			}
			ps.Tolerations = append(ps.Tolerations, Toleration{})
			ps.Tolerations[len(ps.Tolerations)-1].ReadProtobuf(r)
		}
	})
}

// ReadProtobuf decodes the container in place.
func (c *Container) ReadProtobuf(r *protowire.Reader) {
	r.Message(containerModel, &c.extra, func(num int32) {
		switch num {
		case pbContainerName:
			c.Name = r.RecurringString()
		case pbImage:
			c.Image = r.RecurringString()
		}
	})
}

// ReadProtobuf decodes the toleration in place.
func (t *Toleration) ReadProtobuf(r *protowire.Reader) {
	r.Message(tolerationModel, &t.extra, func(num int32) {
		switch num {
		case pbKey:
			t.Key = r.RecurringString()
		case pbOperator:
			t.Operator = r.RecurringString()
		case pbValue:
			t.Value = r.RecurringString()
		case pbEffect:
			t.Effect = r.RecurringString()
		case pbTolerationSeconds:
			t.TolerationSeconds = r.Int64Ptr()
		}
	})
}

// ReadProtobuf decodes the status in place.
func (st *PodStatus) ReadProtobuf(r *protowire.Reader) {
	r.Message(statusModel, &st.extra, func(num int32) {
		switch num {
		case pbPhase:
			st.Phase = r.RecurringString()
		case pbHostIP:
			st.HostIP = r.RecurringString()
		case pbPodIP:
			st.PodIP = r.String()
		}
	})
}
