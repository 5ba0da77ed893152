package source

import (
	"fmt"

	"github.com/podwatch/podwatch/rest/api"
)

// checkManifest checks what a static pod needs before defaults apply. It is a
// small part of the apiserver's validation: enough that what the sources hand
// on can be named, keyed and run. A PodList's items may leave out kind and
// apiVersion; a manifest of its own must have both.
func checkManifest(p *api.Pod, listItem bool) error {
	bad := func(field, reason string) error {
		return &InvalidPodError{Pod: p.Metadata.Name, Field: field, Reason: reason}
	}
	switch {
	case p.Kind != "Pod" && !(listItem && p.Kind == ""):
		return bad("kind", fmt.Sprintf("%q is not a Pod", p.Kind))
	case p.APIVersion != "v1" && !(listItem && p.APIVersion == ""):
		return bad("apiVersion", fmt.Sprintf("%q, want v1", p.APIVersion))
	case p.Metadata.Name == "":
		return bad("metadata.name", "missing")
	case len(p.Spec.Containers) == 0:
		return bad("spec.containers", "a pod needs at least one container")
	}
	names := make(map[string]bool, len(p.Spec.Containers))
	for i, c := range p.Spec.Containers {
		field := fmt.Sprintf("spec.containers[%d]", i)
		switch {
		case c.Name == "":
			return bad(field+".name", "missing")
		case names[c.Name]:
			return bad(field+".name", fmt.Sprintf("%q is used twice", c.Name))
		case c.Image == "":
			return bad(field+".image", "missing")
		}
		names[c.Name] = true
	}
	return nil
}

// checkNames checks the defaulted name and namespace: the name must be a DNS
// subdomain and the namespace a DNS label, as the apiserver requires.
func checkNames(p *api.Pod) error {
	if r := dnsName(p.Metadata.Name, 253, true); r != "" {
		return &InvalidPodError{Pod: p.Metadata.Name, Field: "metadata.name", Reason: r}
	}
	if r := dnsName(p.Metadata.Namespace, 63, false); r != "" {
		return &InvalidPodError{Pod: p.Metadata.Name, Field: "metadata.namespace", Reason: r}
	}
	return nil
}

// dnsName returns why s is not a DNS label (or, with dots, subdomain) of at
// most max characters, or "".
func dnsName(s string, max int, dots bool) string {
	if len(s) > max {
		return fmt.Sprintf("longer than %d characters", max)
	}
	alnum := func(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
	for i := 0; i < len(s); i++ {
		c := s[i]
		edge := i == 0 || i == len(s)-1 || dots && (s[i-1] == '.' || s[i+1] == '.')
		switch {
		case alnum(c):
		case c == '.' && dots && !edge:
		case c == '-' && !edge:
		default:
			return fmt.Sprintf("%q is not a lower-case DNS name", s)
		}
	}
	if s == "" {
		return "empty"
	}
	return ""
}
