package source

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest/api"
)

// static is what a static pod's defaults depend on: the node, where the
// manifest came from, and whether it is a file (file pods also get a NoExecute
// toleration; the kubelet gives it to them alone).
type static struct {
	node     string
	location string // path or URL
	isFile   bool
}

// apply validates a decoded manifest pod and gives it the kubelet's defaults, in
// place: a UID only when it has none (a hash of the pod as decoded, the node and
// the path, or of the pod and the URL), the name suffixed with "-" and the
// lower-cased node name, namespace "default" when empty, spec.nodeName, the
// config.hash annotation (the UID), the toleration for file pods, phase Pending.
// Like the kubelet, it refuses a pod that names an API object (see
// checkAPIReferences).
func (s static) apply(p *api.Pod, listItem bool) error {
	if err := checkManifest(p, listItem); err != nil {
		return err
	}
	if p.Metadata.UID == "" {
		uid, err := s.uid(p)
		if err != nil {
			return err
		}
		p.Metadata.UID = uid
	}
	p.Metadata.Name = p.Metadata.Name + "-" + strings.ToLower(s.node)
	if p.Metadata.Namespace == "" {
		p.Metadata.Namespace = "default"
	}
	p.Spec.NodeName = s.node
	if p.Metadata.Annotations == nil {
		p.Metadata.Annotations = map[string]string{}
	}
	p.Metadata.Annotations[podconfig.HashAnnotation] = p.Metadata.UID
	if s.isFile {
		tolerateEverythingNoExecute(p)
	}
	p.Status.Phase = api.PodPending
	if err := checkNames(p); err != nil {
		return err
	}
	return checkAPIReferences(p)
}

// uid hashes the pod as decoded with where it came from, so that the same
// manifest keeps its UID across re-reads and restarts, and a changed one gets a
// new one.
func (s static) uid(p *api.Pod) (string, error) {
	enc, err := p.MarshalJSON()
	if err != nil {
		return "", err
	}
	h := md5.New()
	h.Write(enc)
	if s.isFile {
		fmt.Fprintf(h, "host:%s", s.node)
		fmt.Fprintf(h, "file:%s", s.location)
	} else {
		fmt.Fprintf(h, "url:%s", s.location)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// tolerateEverythingNoExecute keeps a static pod on its node whatever NoExecute
// taint the node gets; an existing toleration of the same key, operator, value
// and effect is replaced rather than repeated.
func tolerateEverythingNoExecute(p *api.Pod) {
	want := api.Toleration{Operator: "Exists", Effect: "NoExecute"}
	for i, t := range p.Spec.Tolerations {
		if t.Key == want.Key && t.Operator == want.Operator && t.Value == want.Value && t.Effect == want.Effect {
			p.Spec.Tolerations[i] = want
			return
		}
	}
	p.Spec.Tolerations = append(p.Spec.Tolerations, want)
}
