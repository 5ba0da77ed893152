package podconfig_test

import (
	"context"
	"fmt"
	"time"

	"github.com/podwatch/podwatch/internal/podconfig"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/rest/meta"
)

func ExamplePodConfig() {
	ctx, cancel := context.WithCancel(context.Background())
	c := podconfig.New(podconfig.Incremental, podconfig.Options{
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	// Ending ctx stops the merging goroutines; Wait waits for them.
	defer c.Wait()
	defer cancel()
	apiCh := c.Channel(ctx, podconfig.SourceAPI)

	web := &api.Pod{Metadata: meta.ObjectMeta{Namespace: "default", Name: "web", UID: "u1", ResourceVersion: "10"}}
	apiCh <- podconfig.PodUpdate{Op: podconfig.SET, Pods: []*api.Pod{web}}
	u := <-c.Updates()
	fmt.Println(u.Op, u.Source, podconfig.FullName(u.Pods[0]), u.Pods[0].Metadata.Annotations[podconfig.SeenAnnotation])

	deleting := &api.Pod{Metadata: web.Metadata.DeepCopy()}
	deleting.Metadata.ResourceVersion = "11"
	when := time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)
	deleting.Metadata.DeletionTimestamp = &when
	apiCh <- podconfig.PodUpdate{Op: podconfig.SET, Pods: []*api.Pod{deleting}}
	u = <-c.Updates()
	fmt.Println(u.Op, u.Source, podconfig.FullName(u.Pods[0]), c.SeenAllSources(nil))
	// Output:
	// ADD api default/web 2026-01-02T03:04:05Z
	// DELETE api default/web true
}
