package cluster

import (
	"encoding/base64"
	"encoding/json"
)

// Kubeconfig returns a kubeconfig for the cluster with one context,
// "podwatch", whose user authenticates with token. It is written as JSON,
// which every YAML reader accepts, so the harness needs no YAML library.
func (c *Cluster) Kubeconfig(token string) []byte {
	cfg := map[string]any{
		"apiVersion":      "v1",
		"kind":            "Config",
		"current-context": "podwatch",
		"clusters": []any{map[string]any{
			"name": "podwatch",
			"cluster": map[string]any{
				"server":                     c.URL,
				"certificate-authority-data": base64.StdEncoding.EncodeToString(c.CAData),
			},
		}},
		"users": []any{map[string]any{
			"name": "podwatch",
			"user": map[string]any{"token": token},
		}},
		"contexts": []any{map[string]any{
			"name":    "podwatch",
			"context": map[string]any{"cluster": "podwatch", "user": "podwatch"},
		}},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		// Maps of strings always marshal.
		panic("cluster: marshal kubeconfig: " + err.Error())
	}
	return append(b, '\n')
}
