package cluster_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/podwatch/podwatch/internal/cluster"
)

// Start a cluster, make a pod on node-a and list what node-a sees. Tests
// use cluster.StartForTest instead, which also cleans up and prints logs.
func ExampleStart() {
	ctx := context.Background()
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if err := c.EnsureNamespace(ctx, "demo"); err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreatePod(ctx, "demo", "web", "node-a", map[string]string{"app": "web"}); err != nil {
		log.Fatal(err)
	}
	names, rv, err := c.ListPodsOnNode(ctx, "node-a")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names, rv != "")

	// Do sends any request as the admin user.
	var ns struct {
		Items []struct{} `json:"items"`
	}
	if err := c.Do(ctx, http.MethodGet, "/api/v1/namespaces", nil, &ns); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(ns.Items) > 0)
}
