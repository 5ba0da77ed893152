package cli

import (
	"fmt"
	"strings"

	"github.com/podwatch/podwatch/internal/cli/base"
)

// watchPlan is what to list and watch, worked out from the flags (and, for a
// replay, from the recording).
type watchPlan struct {
	node          string // the node static pods are named for; "" only with no static sources
	namespace     string // "" for all
	fieldSelector string
	labelSelector string
	watchList     bool
	chunkSize     int64
	maxEvents     int
}

// planWatch works out the watch plan from the flags alone.
func (f *watchFlags) planWatch(e base.Env) (watchPlan, error) {
	p := watchPlan{
		node:          f.node,
		namespace:     f.namespace,
		labelSelector: f.selector,
		watchList:     f.watchList,
		chunkSize:     f.chunkSize,
		maxEvents:     f.maxEvents,
	}
	if p.node == "" {
		h, err := e.NodeName()
		if err != nil {
			return watchPlan{}, err
		}
		p.node = h
	}
	if f.allNodes {
		p.fieldSelector = selectorFor("", f.fieldSelector)
	} else {
		p.fieldSelector = selectorFor(p.node, f.fieldSelector)
	}
	return p, nil
}

// hostname is the kubelet's default node name: the hostname, trimmed and
// lowercased.
func hostname(e base.Env) (string, error) {
	h, err := e.Hostname()
	if err != nil {
		return "", fmt.Errorf("find the node name (give --node or --all-nodes): %w", err)
	}
	h = strings.ToLower(strings.TrimSpace(h))
	if h == "" {
		return "", fmt.Errorf("the hostname is empty: give --node or --all-nodes")
	}
	return h, nil
}

// describe summarises the watch plan for a recording's comment; it holds no
// credential.
func (p watchPlan) describe() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("fieldSelector", p.fieldSelector)
	add("labelSelector", p.labelSelector)
	add("namespace", p.namespace)
	parts = append(parts, fmt.Sprintf("watch-list=%t", p.watchList), fmt.Sprintf("chunk-size=%d", p.chunkSize))
	return strings.Join(parts, " ")
}
