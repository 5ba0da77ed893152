package session

import (
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
)

// Plan is what to list and watch, worked out from the flags (and, for a
// replay, from the recording).
type Plan struct {
	Node          string // the node static pods are named for; "" only with no static sources
	Namespace     string // "" for all
	FieldSelector string
	LabelSelector string
	WatchList     bool
	ChunkSize     int64
	MaxEvents     int
}

// Plan works out the watch plan from the flags alone.
func (f *Flags) Plan(e base.Env) (Plan, error) {
	p := Plan{
		Node:          f.Node,
		Namespace:     f.Namespace,
		LabelSelector: f.Selector,
		WatchList:     f.WatchList,
		ChunkSize:     f.ChunkSize,
		MaxEvents:     f.MaxEvents,
	}
	if p.Node == "" {
		h, err := e.NodeName()
		if err != nil {
			return Plan{}, err
		}
		p.Node = h
	}
	if f.allNodes {
		p.FieldSelector = selectorFor("", f.fieldSelector)
	} else {
		p.FieldSelector = selectorFor(p.Node, f.fieldSelector)
	}
	return p, nil
}

// Describe summarises the watch plan for a recording's comment; it holds no
// credential.
func (p Plan) Describe() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("fieldSelector", p.FieldSelector)
	add("labelSelector", p.LabelSelector)
	add("namespace", p.Namespace)
	parts = append(parts, fmt.Sprintf("watch-list=%t", p.WatchList), fmt.Sprintf("chunk-size=%d", p.ChunkSize))
	return strings.Join(parts, " ")
}
