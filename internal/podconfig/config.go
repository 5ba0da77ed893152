package podconfig

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Options tune a PodConfig; the zero value works.
type Options struct {
	// Now stamps kubernetes.io/config.seen; tests inject a fixed clock so output
	// can be compared with golden files. Default time.Now.
	Now func() time.Time
	// Report is told of every pod or update PodConfig drops (a *DuplicateError,
	// an *UpdateError), on the goroutine merging that source's update. It must
	// not block or call back into PodConfig. Default: dropped silently.
	Report func(source string, err error)
	// Buffer is the capacity of the Updates channel. Default 50, the kubelet's.
	Buffer int
}

// PodConfig merges per-source pod updates into one stream. Create it with New,
// get one channel per source with Channel, read Updates.
type PodConfig struct {
	updates chan PodUpdate

	// mergeMu serialises merging and publishing, so that the order of updates on
	// Updates is the order in which the state changed, across sources.
	mergeMu sync.Mutex
	st      *storage

	// mu guards the fields below and the storage's seen set, so SeenAllSources
	// answers while a merge waits on a slow consumer.
	mu       sync.Mutex
	channels map[string]chan PodUpdate
	sources  []string

	wg sync.WaitGroup
}

// New returns a PodConfig that publishes in mode.
func New(mode Mode, opts Options) *PodConfig {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Report == nil {
		opts.Report = func(string, error) {}
	}
	if opts.Buffer <= 0 {
		opts.Buffer = 50
	}
	return &PodConfig{
		updates:  make(chan PodUpdate, opts.Buffer),
		st:       newStorage(mode, opts.Now, opts.Report),
		channels: map[string]chan PodUpdate{},
	}
}

// Channel returns the channel on which source sends its updates. The first call
// for a source creates the channel and starts the goroutine that merges what
// arrives on it; that goroutine returns when ctx ends or when the sender closes
// the channel (only the source's sender may close it). Later calls for the same
// source return the same channel and ignore their ctx.
//
// The channel is unbuffered: a send blocks until the previous update of that
// source is merged and published, so a sender should select on its own ctx.
// Publishing blocks while Updates is full: a slow consumer holds up every source,
// and nothing is dropped. Once ctx ends an update in flight may be merged but not
// published.
func (c *PodConfig) Channel(ctx context.Context, source string) chan<- PodUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.channels[source]; ok {
		return ch
	}
	ch := make(chan PodUpdate)
	c.channels[source] = ch
	c.sources = append(c.sources, source)
	c.wg.Add(1)
	go c.run(ctx, source, ch)
	return ch
}

func (c *PodConfig) run(ctx context.Context, source string, ch <-chan PodUpdate) {
	defer c.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case u, ok := <-ch:
			if !ok {
				return
			}
			c.merge(ctx, source, u)
		}
	}
}

func (c *PodConfig) merge(ctx context.Context, source string, u PodUpdate) {
	c.mergeMu.Lock()
	defer c.mergeMu.Unlock()
	c.mu.Lock()
	out := c.st.merge(source, u)
	c.mu.Unlock()
	for _, o := range out {
		select {
		case c.updates <- o:
		case <-ctx.Done():
			return
		}
	}
}

// Updates is the merged stream. It is never closed, because a source may be added
// at any time: a reader stops on its own ctx. See Mode for what arrives.
func (c *PodConfig) Updates() <-chan PodUpdate { return c.updates }

// Sources returns the sources that have a channel, in the order of Channel calls.
func (c *PodConfig) Sources() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sources)
}

// SeenAllSources reports whether every source in expected has sent its first SET
// and had it merged; with no expected sources it asks about every source that has
// a channel (and is false when there is none). A source is marked seen before the
// updates of its first SET are published, so a reader that received them finds it
// seen.
func (c *PodConfig) SeenAllSources(expected []string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(expected) == 0 {
		if len(c.sources) == 0 {
			return false
		}
		expected = c.sources
	}
	return c.st.seenAll(expected)
}

// Wait blocks until every goroutine Channel started has returned: after their
// ctxs have ended or their channels have been closed.
func (c *PodConfig) Wait() { c.wg.Wait() }
