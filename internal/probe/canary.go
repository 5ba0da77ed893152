package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/jsonx"
)

// canaryImage is never pulled: a kubelet given the canary only fails to
// start it, which changes nothing the probe reads.
const canaryImage = "registry.invalid/podwatch-probe:1"

// cleanupWait bounds the canary's deletion, which runs after ctx may have
// ended.
const cleanupWait = 30 * time.Second

// canary is the probe's pod.
type canary struct {
	opts  *Options
	owned bool // created or adopted: deleted at the end
}

func (c *canary) what() string { return "canary pod " + c.opts.Namespace + "/" + c.opts.Canary }

func (c *canary) pods() *rest.Request {
	return c.opts.Client.Get().Namespace(c.opts.Namespace).Resource("pods")
}

// ensure creates the canary, bound to the node, or adopts one of that name
// already bound there (left by an earlier probe that could not clean up).
func (c *canary) ensure(ctx context.Context) error {
	o := c.opts
	body, err := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": o.Canary, "labels": map[string]string{"podwatch.io/probe": "canary"}},
		"spec": map[string]any{
			"nodeName":                      o.Node,
			"containers":                    []map[string]string{{"name": "canary", "image": canaryImage}},
			"automountServiceAccountToken":  false,
			"terminationGracePeriodSeconds": 0,
		},
	})
	if err != nil {
		return err
	}
	_, err = c.pods().Verb(http.MethodPost).Body(body).Do(ctx)
	if err == nil {
		c.owned = true
		return nil
	}
	if se, ok := rest.AsStatusError(err); !ok || se.Status.Code != http.StatusConflict {
		return step("create", o.Namespace, c.what(), err)
	}
	b, err := c.pods().Name(o.Canary).Do(ctx)
	if err != nil {
		return step("get", o.Namespace, c.what(), err)
	}
	p, err := api.DecodePod(b)
	if err != nil {
		return step("get", o.Namespace, c.what(), err)
	}
	if p.Spec.NodeName != o.Node {
		return &CanaryError{Namespace: o.Namespace, Name: o.Canary, Node: o.Node, BoundTo: p.Spec.NodeName}
	}
	c.owned = true
	return nil
}

// patch writes value into the canary's annotation and returns its new
// resourceVersion.
func (c *canary) patch(ctx context.Context, value string) (string, error) {
	body := jsonx.AppendQuote([]byte(`{"metadata":{"annotations":{`), Annotation)
	body = append(jsonx.AppendQuote(append(body, ':'), value), `}}}`...)
	b, err := c.pods().Name(c.opts.Canary).MergePatch(body).Do(ctx)
	if err != nil {
		return "", step("patch", c.opts.Namespace, c.what(), err)
	}
	p, err := api.DecodePod(b)
	if err != nil {
		return "", step("patch", c.opts.Namespace, c.what(), err)
	}
	return p.Metadata.ResourceVersion, nil
}

// delete removes the canary at once (no grace period), when the probe owns
// it, on a context of its own: the run's may have ended (Ctrl-C).
func (c *canary) delete(ctx context.Context) error {
	if !c.owned {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupWait)
	defer cancel()
	_, err := c.pods().Verb(http.MethodDelete).Name(c.opts.Canary).Param("gracePeriodSeconds", "0").Do(ctx)
	if err != nil && !rest.IsNotFound(err) {
		return &CleanupError{Namespace: c.opts.Namespace, Name: c.opts.Canary, Err: step("delete", c.opts.Namespace, c.what(), err)}
	}
	c.owned = false
	return nil
}
