package source

import (
	"errors"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/podwatch/podwatch/internal/podconfig"
)

// TestStaticPodAPIReferences feeds static pods that name API objects, and
// ones that only look as if they might, through the static defaults.
func TestStaticPodAPIReferences(t *testing.T) {
	const c = "{name: c, image: i"
	tests := []struct {
		name string
		spec string // the pod's spec, YAML
		// The refusal: an APIReferenceError's field and resource, or an
		// InvalidPodError's field when resource is ""; both "" for none.
		field, resource string
	}{
		{"plain pod", "{containers: [" + c + "}]}", "", ""},
		{"local volumes", "{containers: [" + c + "}], volumes: [{name: a, hostPath: {path: /x}}, {name: b, emptyDir: {}}, {name: d, downwardAPI: {items: []}}, {name: e, cephfs: {monitors: [m]}}]}", "", ""},
		{"projected downward API", "{containers: [" + c + "}], volumes: [{name: a, projected: {sources: [{downwardAPI: {items: []}}]}}]}", "", ""},
		{"null members count for nothing", "{containers: [" + c + "}], volumes: [{name: a, hostPath: {path: /x}, secret: null}]}", "", ""},

		{"service account", "{serviceAccountName: sa, containers: [" + c + "}]}", "spec.serviceAccountName", "serviceaccounts"},
		{"service account, old spelling", "{serviceAccount: sa, containers: [" + c + "}]}", "spec.serviceAccount", "serviceaccounts"},
		{"image pull secret", "{imagePullSecrets: [{name: s}], containers: [" + c + "}]}", "spec.imagePullSecrets", "secrets"},
		{"env from a secret", "{containers: [" + c + ", env: [{name: A, value: x}, {name: B, valueFrom: {secretKeyRef: {name: s, key: k}}}]}]}", "spec.containers[0].env[1].valueFrom", "secrets"},
		{"envFrom a secret in an init container", "{initContainers: [" + c + ", envFrom: [{secretRef: {name: s}}]}], containers: [" + c + "}]}", "spec.initContainers[0].envFrom[0].secretRef", "secrets"},
		{"secret volume", "{containers: [" + c + "}], volumes: [{name: a, secret: {secretName: s}}]}", "spec.volumes[0].secret", "secrets"},
		{"CSI volume with a secret", "{containers: [" + c + "}], volumes: [{name: a, csi: {driver: d, nodePublishSecretRef: {name: s}}}]}", "spec.volumes[0].csi.nodePublishSecretRef", "secrets"},
		{"projected secret", "{containers: [" + c + "}], volumes: [{name: a, projected: {sources: [{downwardAPI: {}}, {secret: {name: s}}]}}]}", "spec.volumes[0].projected.sources[1].secret", "secrets"},
		{"env from a config map in an ephemeral container", "{containers: [" + c + "}], ephemeralContainers: [" + c + ", env: [{name: A, valueFrom: {configMapKeyRef: {name: m, key: k}}}]}]}", "spec.ephemeralContainers[0].env[0].valueFrom", "configmaps"},
		{"config map volume", "{containers: [" + c + "}], volumes: [{name: a, configMap: {name: m}}]}", "spec.volumes[0].configMap", "configmaps"},
		{"secrets are named before config maps", "{containers: [" + c + ", envFrom: [{configMapRef: {name: m}}, {secretRef: {name: s}}]}]}", "spec.containers[0].envFrom[1].secretRef", "secrets"},
		{"resource claim", "{containers: [" + c + "}], resourceClaims: [{name: gpu, resourceClaimName: g}]}", "spec.resourceClaims", "resourceclaims"},
		{"persistent volume claim", "{containers: [" + c + "}], volumes: [{name: a, persistentVolumeClaim: {claimName: p}}]}", "spec.volumes[0].persistentVolumeClaim", "persistentvolumeclaims"},
		{"ephemeral volume", "{containers: [" + c + "}], volumes: [{name: a, ephemeral: {volumeClaimTemplate: {spec: {}}}}]}", "spec.volumes[0].ephemeral", "persistentvolumeclaims (via ephemeral volumes)"},
		{"CSI volume", "{containers: [" + c + "}], volumes: [{name: a, csi: {driver: d}}]}", "spec.volumes[0].csi", "csidrivers (via CSI volumes)"},
		{"glusterfs volume", "{containers: [" + c + "}], volumes: [{name: a, glusterfs: {endpoints: e, path: p}}]}", "spec.volumes[0].glusterfs", "endpoints (via glusterFS volumes)"},
		{"projected service account token", "{containers: [" + c + "}], volumes: [{name: a, projected: {sources: [{serviceAccountToken: {path: t}}]}}]}", "spec.volumes[0].projected.sources[0].serviceAccountToken", "serviceaccounts (via projected volumes)"},
		{"projected cluster trust bundle", "{containers: [" + c + "}], volumes: [{name: a, projected: {sources: [{clusterTrustBundle: {path: b, signerName: s}}]}}]}", "spec.volumes[0].projected.sources[0].clusterTrustBundle", "clustertrustbundles"},
		{"projected pod certificate", "{containers: [" + c + "}], volumes: [{name: a, projected: {sources: [{podCertificate: {signerName: s}}]}}]}", "spec.volumes[0].projected.sources[0].podCertificate", "podcertificates"},

		{"volume of no kind", "{containers: [" + c + "}], volumes: [{name: a}]}", "spec.volumes[0]", ""},
		{"volume of an unknown kind", "{containers: [" + c + "}], volumes: [{name: a, bogus: {}}]}", "spec.volumes[0].bogus", ""},
		{"volume of two kinds", "{containers: [" + c + "}], volumes: [{name: a, hostPath: {path: /x}, emptyDir: {}}]}", "spec.volumes[0]", ""},
		{"projected source of an unknown kind", "{containers: [" + c + "}], volumes: [{name: a, projected: {sources: [{bogus: {}}]}}]}", "spec.volumes[0].projected.sources[0].bogus", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decodeOne(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: "+tt.spec+"\n")
			err := (static{node: node, location: "/m/web.yaml", isFile: true}).apply(p, false)
			var ref *APIReferenceError
			var invalid *InvalidPodError
			switch {
			case tt.field == "":
				if err != nil {
					t.Fatalf("apply: %v, want the pod accepted", err)
				}
			case tt.resource != "":
				if !errors.As(err, &ref) || ref.Field != tt.field || ref.Resource != tt.resource || ref.Pod != "web-node-a" {
					t.Fatalf("apply: %v, want an APIReferenceError for %s at %s", err, tt.resource, tt.field)
				}
			default:
				if !errors.As(err, &invalid) || invalid.Field != tt.field {
					t.Fatalf("apply: %v, want an InvalidPodError at %s", err, tt.field)
				}
			}
		})
	}
}

// TestSourcesRefuseAPIReferences checks that both static sources report a pod
// that names an API object and hand on the others.
func TestSourcesRefuseAPIReferences(t *testing.T) {
	withSecret := manifest("creds", "img") + "  volumes:\n  - name: s\n    secret: {secretName: s}\n"
	check := func(t *testing.T, errs []error, source string) {
		t.Helper()
		var me *ManifestError
		var ref *APIReferenceError
		if len(errs) != 1 || !errors.As(errs[0], &me) || me.Source != source || !errors.As(errs[0], &ref) || ref.Resource != "secrets" {
			t.Fatalf("reports %v, want one %s ManifestError with an APIReferenceError for secrets", errorStrings(errs), source)
		}
	}

	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		writeAtomic(t, filepath.Join(dir, "a.yaml"), manifest("a", "img"))
		writeAtomic(t, filepath.Join(dir, "creds.yaml"), withSecret)
		out, reports := runFile(t, dir)
		waitForSET(t, out, "default/a-node-a")
		check(t, reports.take(), podconfig.SourceFile)
	})
	t.Run("http", func(t *testing.T) {
		srv := &scripted{}
		srv.set(200, `{"kind":"PodList","items":[`+
			`{"metadata":{"name":"ok"},"spec":{"containers":[{"name":"c","image":"i"}]}},`+
			`{"metadata":{"name":"creds"},"spec":{"containers":[{"name":"c","image":"i"}],"volumes":[{"name":"s","secret":{"secretName":"s"}}]}}]}`)
		ts := httptest.NewServer(srv)
		defer ts.Close()
		var c collector
		pods, send := NewHTTP(ts.URL, node, HTTPOptions{Report: c.report}).poll(t.Context())
		if !send || len(pods) != 1 || podconfig.FullName(pods[0]) != "default/ok-node-a" {
			t.Fatalf("poll = %v, %v; want a SET of default/ok-node-a", names(pods), send)
		}
		check(t, c.take(), podconfig.SourceHTTP)
	})
}
