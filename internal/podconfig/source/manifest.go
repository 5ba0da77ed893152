package source

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/jsonx"
)

// decodeManifest turns one manifest, YAML or JSON, into pods: a Pod gives one; a
// PodList, when lists are allowed, gives its items (list is then true).
func decodeManifest(data []byte, allowList bool) (pods []*api.Pod, list bool, err error) {
	j, err := toJSON(data)
	if err != nil {
		return nil, false, err
	}
	kind, err := peekKind(j)
	if err != nil {
		return nil, false, err
	}
	switch {
	case kind == "Pod":
		p, err := api.DecodePod(j)
		if err != nil {
			return nil, false, err
		}
		return []*api.Pod{p}, false, nil
	case kind == "PodList" && allowList:
		pods, err := decodePodList(j)
		return pods, true, err
	case kind == "":
		return nil, false, &InvalidPodError{Field: "kind", Reason: "missing"}
	}
	return nil, false, &InvalidPodError{Field: "kind", Reason: fmt.Sprintf("%q is not a Pod", kind)}
}

// toJSON converts YAML to JSON; JSON, being YAML already, is used as it is so
// that its member order survives.
func toJSON(data []byte) ([]byte, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		return t, nil
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("yaml: %w", err)
	}
	return j, nil
}

// peekKind returns the top-level kind of the JSON object in data.
func peekKind(data []byte) (string, error) {
	var r jsonx.Reader
	r.Reset(data)
	if r.Kind() != '{' {
		r.Fail("want a JSON object")
	}
	var kind string
	r.Object(func(key []byte) {
		if string(key) == "kind" && r.Kind() == '"' {
			kind = r.String()
			return
		}
		r.Skip()
	})
	if err := r.Err(); err != nil {
		return "", err
	}
	return kind, nil
}

// decodePodList decodes a PodList's items. The items alias data, which is never
// reused.
func decodePodList(data []byte) ([]*api.Pod, error) {
	pods := []*api.Pod{}
	var r jsonx.Reader
	r.Reset(data)
	r.Object(func(key []byte) {
		if string(key) != "items" {
			r.Skip()
			return
		}
		r.Array(func() {
			p := &api.Pod{}
			p.ReadJSON(&r)
			pods = append(pods, p)
		})
	})
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decode pod list: %w", err)
	}
	return pods, nil
}
