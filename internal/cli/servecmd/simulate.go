package servecmd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/podwatch/podwatch/internal/cli/base"
	"github.com/podwatch/podwatch/internal/fault"
	"github.com/podwatch/podwatch/internal/model"
)

// simulateGap bounds the pause between two changes of a simulation: short
// enough that a watcher sees a change every few seconds.
const simulateGap = 6 * time.Second

// simulateCluster is serve --simulate: the model apiserver, its pods churning as a
// live cluster's do, served on addr until ctx ends.
func simulateCluster(ctx context.Context, addr string, seed uint64, faults *fault.Plan, overTLS bool, caOut string, log *base.Logger) error {
	var planned []fault.Fault
	if faults != nil {
		planned = faults.Pending()
	}
	srv := model.NewServer(model.NewHistory(100), model.Options{
		Faults:      planned,
		GoneAsEvent: true, // as the watch cache answers a watch from too old a version
		Seed:        seed,
		Logf: func(format string, args ...any) {
			if log.V(base.VerboseRequests) {
				log.Printf("model: "+format, args...)
			}
		},
	})
	defer srv.Close()
	churner := model.NewChurner(srv, rand.New(rand.NewPCG(seed, 0x73696d)), model.ChurnOptions{MaxGap: simulateGap})
	if err := churner.Populate(); err != nil {
		return err
	}
	fs, err := base.StartServer(addr, srv, overTLS)
	if err != nil {
		return err
	}
	defer fs.Close()
	log.Printf("podwatch: simulating a cluster (seed %d): pods created, bound, updated and deleted on node-a, node-b, node-c and unbound, a change every %s at most, older versions compacted away; on %s",
		seed, simulateGap, fs.URL())
	if fs.CA() != nil {
		if _, err := writeCA(caOut, fs.CA(), log); err != nil {
			return err
		}
	}
	churned := make(chan error, 1)
	go func() { churned <- churner.Churn(ctx) }()
	if err := <-churned; !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("simulate: %w", err)
	}
	return nil
}
