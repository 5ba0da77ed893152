package table

import "encoding/json"

// column is one of the pod Table's columns. Name, format and priority are
// the apiserver's (kubectl prints the name in capitals, and priority 1
// columns only with -o wide); every column is a string.
type column struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int    `json:"priority"`
}

// podColumns are in the order of a row's cells.
var podColumns = []column{
	{Name: "Name", Type: "string", Format: "name", Description: "The pod's name, unique in its namespace."},
	{Name: "Ready", Type: "string", Description: "How many of the pod's containers are ready, out of how many it runs (sidecar init containers included)."},
	{Name: "Status", Type: "string", Description: "The pod's phase, or what its containers or init containers say of their state, or Terminating once it is being deleted."},
	{Name: "Restarts", Type: "string", Description: "How many times the pod's containers restarted, and how long ago the last restarted one ended."},
	{Name: "Age", Type: "string", Description: "Time since the pod was created (metadata.creationTimestamp)."},
	{Name: "IP", Type: "string", Priority: 1, Description: "The pod's first IP address (status.podIPs); none until one is allocated."},
	{Name: "Node", Type: "string", Priority: 1, Description: "The node the pod is bound to (spec.nodeName); none while it waits for the scheduler."},
	{Name: "Nominated Node", Type: "string", Priority: 1, Description: "The node a preempting pod waits to be scheduled on (status.nominatedNodeName)."},
	{Name: "Readiness Gates", Type: "string", Priority: 1, Description: "How many of the readiness gates the spec names have their condition True."},
}

// columnsJSON is podColumns encoded, once: every Table with headers carries
// the same bytes.
var columnsJSON = func() []byte {
	b, err := json.Marshal(podColumns)
	if err != nil {
		panic("table: encode columns: " + err.Error()) // cannot happen: strings and ints only
	}
	return b
}()
