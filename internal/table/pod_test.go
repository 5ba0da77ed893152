package table

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// now is the clock of the tests: the pods below were made an hour before,
// which kubectl shows as 60m.
var now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

// cellsOf is the row the printer makes of pod, a core/v1 Pod's JSON with
// its metadata filled in (name "p", created an hour before now).
func cellsOf(t *testing.T, podJSON string) ([]string, []rowCondition) {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(podJSON), &obj); err != nil {
		t.Fatalf("test pod: %v", err)
	}
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	md["name"] = "p"
	md["creationTimestamp"] = "2026-12-04T11:00:00Z"
	obj["metadata"] = md
	b, _ := json.Marshal(obj)
	p, err := decodePod(b)
	if err != nil {
		t.Fatalf("decodePod: %v", err)
	}
	return p.cells(now)
}

// TestCells: READY, STATUS and RESTARTS for each branch of the printer,
// with the wide cells of a plain pod.
func TestCells(t *testing.T) {
	const one = `"spec":{"containers":[{"name":"a"}]}`
	const two = `"spec":{"containers":[{"name":"a"},{"name":"b"}]}`
	for _, c := range []struct {
		name, pod               string
		ready, status, restarts string
	}{
		{"pending", `{` + one + `,"status":{"phase":"Pending"}}`, "0/1", "Pending", "0"},
		{"no status at all", `{` + one + `}`, "0/1", "", "0"},
		{"pod reason wins over phase", `{` + one + `,"status":{"phase":"Failed","reason":"Evicted"}}`, "0/1", "Evicted", "0"},
		{"scheduling gated", `{` + one + `,"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}}`, "0/1", "SchedulingGated", "0"},
		{"container creating", `{` + one + `,"status":{"phase":"Pending","containerStatuses":[{"name":"a","state":{"waiting":{"reason":"ContainerCreating"}}}]}}`, "0/1", "ContainerCreating", "0"},
		{"running and ready", `{` + one + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`, "1/1", "Running", "0"},
		{"running, not ready", `{` + one + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":false,"state":{"running":{}}}]}}`, "0/1", "Running", "0"},
		{"crash loop with the last restart's age", `{` + one + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"2026-12-04T11:55:00Z"}}}]}}`, "0/1", "CrashLoopBackOff", "4 (5m ago)"},
		{"restarts without a last state have no age", `{` + one + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","restartCount":2,"ready":true,"state":{"running":{}}}]}}`, "1/1", "Running", "2"},
		{"the latest end of any container", `{` + two + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","restartCount":1,"ready":true,"state":{"running":{}},"lastState":{"terminated":{"finishedAt":"2026-12-04T09:00:00Z"}}},{"name":"b","restartCount":1,"ready":true,"state":{"running":{}},"lastState":{"terminated":{"finishedAt":"2026-12-04T11:58:00Z"}}}]}}`, "2/2", "Running", "2 (2m ago)"},
		{"completed", `{` + one + `,"status":{"phase":"Succeeded","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}`, "0/1", "Completed", "0"},
		{"error", `{` + one + `,"status":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":2,"reason":"Error"}}}]}}`, "0/1", "Error", "0"},
		{"exit code without a reason", `{` + one + `,"status":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":3}}}]}}`, "0/1", "ExitCode:3", "0"},
		{"signal without a reason", `{` + one + `,"status":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":137,"signal":9}}}]}}`, "0/1", "Signal:9", "0"},
		{"first container has the last word", `{` + two + `,"status":{"phase":"Pending","containerStatuses":[{"name":"a","state":{"waiting":{"reason":"ImagePullBackOff"}}},{"name":"b","state":{"waiting":{"reason":"ContainerCreating"}}}]}}`, "0/2", "ImagePullBackOff", "0"},
		{"completed beside a running, ready pod", `{` + two + `,"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},{"name":"b","ready":true,"state":{"running":{}}}]}}`, "1/2", "Running", "0"},
		{"completed beside a running container, pod not ready", `{` + two + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},{"name":"b","ready":true,"state":{"running":{}}}]}}`, "1/2", "NotReady", "0"},
		{"completed beside a failed container", `{` + two + `,"status":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},{"name":"b","state":{"terminated":{"exitCode":1,"reason":"OOMKilled"}}}]}}`, "0/2", "OOMKilled", "0"},
		{"init container waiting to start", `{"spec":{"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending","initContainerStatuses":[{"name":"i1","state":{"waiting":{"reason":"PodInitializing"}}},{"name":"i2","state":{"waiting":{}}}],"containerStatuses":[{"name":"a","state":{"waiting":{"reason":"PodInitializing"}}}]}}`, "0/1", "Init:0/2", "0"},
		{"second init container running", `{"spec":{"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},{"name":"i2","state":{"running":{}}}]}}`, "0/1", "Init:1/2", "0"},
		{"init container crash loop counts its restarts", `{"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending","initContainerStatuses":[{"name":"i1","restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-12-04T11:59:30Z"}}}],"containerStatuses":[{"name":"a","restartCount":7}]}}`, "0/1", "Init:CrashLoopBackOff", "3 (30s ago)"},
		{"init container failed", `{"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},"status":{"phase":"Failed","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}}`, "0/1", "Init:Error", "0"},
		{"init container exit code", `{"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},"status":{"phase":"Failed","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":4}}}]}}`, "0/1", "Init:ExitCode:4", "0"},
		{"init container signal", `{"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},"status":{"phase":"Failed","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":143,"signal":15}}}]}}`, "0/1", "Init:Signal:15", "0"},
		{"initialized pod counts its containers; the init reason stays", `{"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"}],"initContainerStatuses":[{"name":"i1","restartCount":5,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}],"containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`, "1/1", "Init:CrashLoopBackOff", "0"},
		{"sidecar counts among the containers", `{"spec":{"initContainers":[{"name":"s","restartPolicy":"Always"}],"containers":[{"name":"a"}]},"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"}],"initContainerStatuses":[{"name":"s","started":true,"ready":true,"restartCount":2,"state":{"running":{}},"lastState":{"terminated":{"finishedAt":"2026-12-04T10:00:00Z"}}}],"containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`, "2/2", "Running", "2 (120m ago)"},
		{"sidecar not started holds the pod in init", `{"spec":{"initContainers":[{"name":"s","restartPolicy":"Always"}],"containers":[{"name":"a"}]},"status":{"phase":"Pending","initContainerStatuses":[{"name":"s","started":false,"state":{"running":{}}}]}}`, "0/2", "Init:0/1", "0"},
		{"terminating", `{"metadata":{"deletionTimestamp":"2026-12-04T11:59:00Z"},` + one + `,"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`, "1/1", "Terminating", "0"},
		{"terminating while pending", `{"metadata":{"deletionTimestamp":"2026-12-04T11:59:00Z"},` + one + `,"status":{"phase":"Pending"}}`, "0/1", "Terminating", "0"},
		{"deleted after it finished keeps its reason", `{"metadata":{"deletionTimestamp":"2026-12-04T11:59:00Z"},` + one + `,"status":{"phase":"Succeeded","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}`, "0/1", "Completed", "0"},
		{"on a lost node", `{"metadata":{"deletionTimestamp":"2026-12-04T11:59:00Z"},` + one + `,"status":{"phase":"Running","reason":"NodeLost"}}`, "0/1", "Unknown", "0"},
		{"a null deletionTimestamp is none", `{"metadata":{"deletionTimestamp":null},` + one + `,"status":{"phase":"Running"}}`, "0/1", "Running", "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cells, _ := cellsOf(t, c.pod)
			got := []string{cells[1], cells[2], cells[3]}
			if diff := cmp.Diff([]string{c.ready, c.status, c.restarts}, got); diff != "" {
				t.Errorf("READY, STATUS, RESTARTS (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWideCells(t *testing.T) {
	for _, c := range []struct {
		name, pod string
		want      []string // IP, NODE, NOMINATED NODE, READINESS GATES
	}{
		{"unscheduled", `{"spec":{"containers":[{"name":"a"}]}}`, []string{"<none>", "<none>", "<none>", "<none>"}},
		{"bound with addresses", `{"spec":{"nodeName":"node-a"},"status":{"podIP":"10.0.0.9","podIPs":[{"ip":"10.0.0.9"},{"ip":"fd00::9"}]}}`, []string{"10.0.0.9", "node-a", "<none>", "<none>"}},
		{"podIP alone, as the apiserver would store it", `{"status":{"podIP":"10.0.0.7"}}`, []string{"10.0.0.7", "<none>", "<none>", "<none>"}},
		{"nominated", `{"status":{"nominatedNodeName":"node-b"}}`, []string{"<none>", "<none>", "node-b", "<none>"}},
		{"readiness gates by their first condition", `{"spec":{"readinessGates":[{"conditionType":"g1"},{"conditionType":"g2"},{"conditionType":"g3"}]},"status":{"conditions":[{"type":"g1","status":"True"},{"type":"g2","status":"False"},{"type":"g2","status":"True"}]}}`, []string{"<none>", "<none>", "<none>", "1/3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cells, _ := cellsOf(t, c.pod)
			if diff := cmp.Diff(c.want, cells[5:]); diff != "" {
				t.Errorf("wide cells (-want +got):\n%s", diff)
			}
			if cells[0] != "p" || cells[4] != "60m" {
				t.Errorf("NAME %q, AGE %q; want p, 60m", cells[0], cells[4])
			}
		})
	}
}

func TestRowConditions(t *testing.T) {
	for phase, want := range map[string][]rowCondition{"Succeeded": succeededRow, "Failed": failedRow, "Running": nil, "Pending": nil} {
		_, got := cellsOf(t, `{"status":{"phase":"`+phase+`"}}`)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: row conditions (-want +got):\n%s", phase, diff)
		}
	}
}

// TestCellsOfBadPods: members missing or of the wrong type read as unset,
// never a panic; unparsable times are no times.
func TestCellsOfBadPods(t *testing.T) {
	for _, doc := range []string{
		`{}`, `null`, `[]`, `5`, `"pod"`,
		`{"metadata":5,"spec":"x","status":[]}`,
		`{"metadata":{"creationTimestamp":"yesterday","deletionTimestamp":7},"status":{"containerStatuses":[null,{"state":null},{"state":{"terminated":{"exitCode":"x"}}}]}}`,
		`{"spec":{"initContainers":[null,{"name":5}]},"status":{"initContainerStatuses":[{"name":"x","state":{"terminated":{}}},{}],"containerStatuses":{"a":1}}}`,
		`{"status":{"containerStatuses":[{"restartCount":1e30,"lastState":{"terminated":{"finishedAt":"2026-13-45T99:00:00Z"}}}]}}`,
	} {
		p, err := decodePod([]byte(doc))
		if err != nil {
			t.Errorf("decodePod(%s): %v", doc, err)
			continue
		}
		cells, _ := p.cells(now)
		if len(cells) != len(podColumns) {
			t.Errorf("%s: %d cells, want %d", doc, len(cells), len(podColumns))
		}
	}
	if _, err := decodePod([]byte(`{"metadata":`)); err == nil {
		t.Error("decodePod of truncated JSON: no error")
	}
}
