package check

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/jsonx"
)

// ThrowawayPrefix starts the name of every pod a run with Options.Write
// creates.
const ThrowawayPrefix = "podwatch-check-"

// throwawayImage is never pulled: a kubelet that gets such a pod only fails
// to start it, until the run deletes it.
const throwawayImage = "registry.invalid/podwatch-check:1"

// throwaway creates, changes and deletes the run's pods, and remembers them
// so that close deletes each one left.
type throwaway struct {
	e   *env
	ns  string
	run string // a random tag naming this run's pods

	mu    sync.Mutex
	n     int
	alive map[string]bool
}

func newThrowaway(e *env) *throwaway {
	ns := e.opts.Namespace
	if ns == "" {
		ns = "default"
	}
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &throwaway{e: e, ns: ns, run: hex.EncodeToString(b[:]), alive: map[string]bool{}}
}

// create makes a new throwaway pod (bound to the run's node, if any) and
// returns it as the server answered.
func (t *throwaway) create(ctx context.Context) (*api.Pod, *Exchange, error) {
	t.mu.Lock()
	t.n++
	name := fmt.Sprintf("%s%s-%d", ThrowawayPrefix, t.run, t.n)
	// Kept before it is asked for: a create whose answer never came (its
	// context ended) may still have been made, and must be deleted too.
	t.alive[name] = true
	t.mu.Unlock()
	spec := `{"containers":[{"name":"main","image":"` + throwawayImage + `"}],"automountServiceAccountToken":false`
	if t.e.opts.Node != "" {
		spec += `,"nodeName":` + string(jsonx.AppendQuote(nil, t.e.opts.Node))
	}
	body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"podwatch-check":"` + t.run + `"}},"spec":` + spec + `}}`
	x := &Exchange{}
	b, err := t.e.json.Get().Verb(http.MethodPost).Namespace(t.ns).Resource("pods").Body([]byte(body)).Do(withExchange(ctx, x))
	if err != nil {
		return nil, x, fmt.Errorf("create throwaway pod %s/%s: %w", t.ns, name, err)
	}
	p, err := api.DecodePod(b)
	if err != nil {
		return nil, x, fmt.Errorf("create throwaway pod %s/%s: %w", t.ns, name, err)
	}
	return p, x, nil
}

// touch changes a throwaway pod's label (an update, so a MODIFIED event) and
// returns it as the server answered.
func (t *throwaway) touch(ctx context.Context, p *api.Pod) (*api.Pod, *Exchange, error) {
	c := *p
	c.Metadata = p.Metadata.DeepCopy()
	if c.Metadata.Labels == nil {
		c.Metadata.Labels = map[string]string{}
	}
	n, _ := strconv.Atoi(c.Metadata.Labels["podwatch-check-touch"])
	c.Metadata.Labels["podwatch-check-touch"] = strconv.Itoa(n + 1)
	body, err := c.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	x := &Exchange{}
	b, err := t.e.json.Get().Verb(http.MethodPut).Namespace(t.ns).Resource("pods").Name(p.Metadata.Name).Body(body).Do(withExchange(ctx, x))
	if err != nil {
		return nil, x, fmt.Errorf("update throwaway pod %s/%s: %w", t.ns, p.Metadata.Name, err)
	}
	q, err := api.DecodePod(b)
	if err != nil {
		return nil, x, fmt.Errorf("update throwaway pod %s/%s: %w", t.ns, p.Metadata.Name, err)
	}
	return q, x, nil
}

// change causes one change: a new pod, or an update of the last one made.
func (t *throwaway) change(ctx context.Context, last **api.Pod) (*Exchange, error) {
	var p *api.Pod
	var x *Exchange
	var err error
	if *last == nil {
		p, x, err = t.create(ctx)
	} else {
		p, x, err = t.touch(ctx, *last)
	}
	if err == nil {
		*last = p
	}
	return x, err
}

func (t *throwaway) delete(ctx context.Context, name string) error {
	_, err := t.e.json.Get().Verb(http.MethodDelete).Namespace(t.ns).Resource("pods").Name(name).Param("gracePeriodSeconds", "0").Do(ctx)
	if err == nil || rest.IsNotFound(err) {
		t.mu.Lock()
		delete(t.alive, name)
		t.mu.Unlock()
		return nil
	}
	return err
}

// deleteAll deletes every throwaway pod still there, and returns the error
// of each it could not delete.
func (t *throwaway) deleteAll(ctx context.Context) error {
	t.mu.Lock()
	var names []string
	for n := range t.alive {
		names = append(names, n)
	}
	t.mu.Unlock()
	var errs []error
	for _, n := range names {
		if err := t.delete(ctx, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
