package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// ChurnOptions shape a random history; zero fields take the defaults.
type ChurnOptions struct {
	// Node is the node watched; Others are the rest of the cluster.
	Node   string   // default "node-a"
	Others []string // default "node-b", "node-c"
	// Initial pods exist before the watcher starts; Changes follow.
	Initial, Changes int // default 6 and 40
	// MaxGap bounds the pause before each change; a third come at once, as
	// a burst does. Default 20s.
	MaxGap time.Duration
	// CompactEvery is the chance, after each change, that the compaction
	// point moves up to a few versions behind the newest. Default 0.15.
	CompactEvery float64
	// Restarts is how many times the server restarts along the way, each down
	// for up to MaxDown (default 10s), half of them with a fresh cache.
	Restarts int
	MaxDown  time.Duration
}

func (o ChurnOptions) withDefaults() ChurnOptions {
	if o.Node == "" {
		o.Node = "node-a"
	}
	if o.Others == nil {
		o.Others = []string{"node-b", "node-c"}
	}
	if o.Initial == 0 {
		o.Initial = 6
	}
	if o.Changes == 0 {
		o.Changes = 40
	}
	if o.MaxGap <= 0 {
		o.MaxGap = 20 * time.Second
	}
	if o.CompactEvery == 0 {
		o.CompactEvery = 0.15
	}
	if o.MaxDown <= 0 {
		o.MaxDown = 10 * time.Second
	}
	return o
}

// Churner makes a seeded random history on a Server. It is used by one
// goroutine.
type Churner struct {
	s    *Server
	r    *rand.Rand
	opts ChurnOptions
	next int // pod names are p0, p1, ...
}

// NewChurner returns a churner over s drawing from r.
func NewChurner(s *Server, r *rand.Rand, opts ChurnOptions) *Churner {
	return &Churner{s: s, r: r, opts: opts.withDefaults()}
}

// Populate creates the initial pods at once.
func (c *Churner) Populate() error {
	for range c.opts.Initial {
		if err := c.create(); err != nil {
			return err
		}
	}
	return nil
}

// Run makes the changes, sleeping between them on the caller's clock, with
// compactions and restarts spread among them. It blocks until the last
// change is made.
func (c *Churner) Run() error {
	restartAt := map[int]bool{}
	for range c.opts.Restarts {
		restartAt[c.r.IntN(c.opts.Changes)] = true
	}
	for i := range c.opts.Changes {
		if c.r.IntN(3) > 0 {
			time.Sleep(time.Duration(c.r.Int64N(int64(c.opts.MaxGap))))
		}
		if err := c.change(); err != nil {
			return err
		}
		if c.r.Float64() < c.opts.CompactEvery {
			c.s.Compact(c.s.RV() - c.r.Int64N(4))
		}
		if restartAt[i] {
			c.s.Restart(time.Duration(c.r.Int64N(int64(c.opts.MaxDown))), c.r.IntN(2) == 0)
		}
	}
	return nil
}

// node picks where a new pod goes: half on the watched node, a few unbound
// (bound later), the rest elsewhere.
func (c *Churner) node() string {
	switch n := c.r.IntN(10); {
	case n < 5:
		return c.opts.Node
	case n < 7:
		return ""
	default:
		return c.opts.Others[c.r.IntN(len(c.opts.Others))]
	}
}

// rv is the version of the next change: often the next number, sometimes
// later, as writes to other resources take some.
func (c *Churner) rv() int64 {
	if c.r.IntN(4) == 0 {
		c.s.Tick(1 + c.r.Int64N(3))
	}
	return c.s.RV() + 1
}

func (c *Churner) create() error {
	name := fmt.Sprintf("p%d", c.next)
	c.next++
	rv := c.rv()
	ns := "default"
	if c.r.IntN(4) == 0 {
		ns = "kube-system"
	}
	p := Pod{
		Namespace: ns, Name: name, UID: fmt.Sprintf("uid-%s-%d", name, rv), RV: rv,
		Node: c.node(), Image: "registry.invalid/app:1", Phase: "Pending",
	}
	return c.s.Apply(Change{Op: Create, Pod: p})
}

// change makes one random change: a create, or a change to a random pod.
func (c *Churner) change() error {
	pods, _ := c.s.hist.Current("")
	if len(pods) == 0 || c.r.IntN(5) == 0 {
		return c.create()
	}
	p := pods[c.r.IntN(len(pods))]
	p.RV = c.rv()
	ops := []Op{Spec, Status, Graceful, Delete}
	if p.Node == "" {
		ops = append(ops, Bind, Bind)
	}
	if p.Deleting {
		// A pod being deleted changes no more, but for its status.
		ops = []Op{Status, Delete, Delete}
	}
	op := ops[c.r.IntN(len(ops))]
	switch op {
	case Bind:
		p.Node = c.node()
		for p.Node == "" {
			p.Node = c.node()
		}
	case Spec:
		p.Image = fmt.Sprintf("registry.invalid/app:%d", p.RV)
	case Status:
		phases := slices.DeleteFunc([]string{"Pending", "Running", "Succeeded", "Failed"}, func(s string) bool { return s == p.Phase })
		p.Phase = phases[c.r.IntN(len(phases))]
	case Graceful:
		p.Deleting = true
	}
	return c.s.Apply(Change{Op: op, Pod: p})
}

// Churn makes changes until ctx ends, as a live cluster does: pauses of up
// to MaxGap (a third of the changes come at once), the compaction point
// moving up behind the newest version. It ignores Changes and Restarts. It
// returns ctx's error, or the first change the history refused.
func (c *Churner) Churn(ctx context.Context) error {
	for {
		if c.r.IntN(3) > 0 {
			t := time.NewTimer(time.Duration(c.r.Int64N(int64(c.opts.MaxGap))))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.change(); err != nil {
			return err
		}
		if c.r.Float64() < c.opts.CompactEvery {
			c.s.Compact(c.s.RV() - c.r.Int64N(4))
		}
	}
}
