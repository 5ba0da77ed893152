package benchserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/api"
	"github.com/podwatch/podwatch/watch"
)

// TestProtobuf: a protobuf client (podwatch's own, which refuses any other
// answer) reads the same list and watch list as a JSON client.
func TestProtobuf(t *testing.T) {
	tmpl, err := os.ReadFile("../../testdata/pod.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPods(tmpl, 4, "node-1", PodsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(&Server{Pods: p, M: 6})
	t.Cleanup(hs.Close)
	got := map[string][]string{}
	for _, ct := range []string{rest.ContentTypeJSON, rest.ContentTypeProtobuf} {
		c, err := rest.NewClient(rest.Config{Host: hs.URL, ContentType: ct})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := pods(c).Limit(3).Stream(context.Background())
		if err != nil {
			t.Fatalf("%s list: %v", ct, err)
		}
		list, err := rest.DecodeListContent(resp.Body, ct, api.DecodePod, rest.ListLimits{})
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s list: %v", ct, err)
		}
		got[ct] = append(got[ct], "list rv="+list.Metadata.ResourceVersion+" continue="+fmt.Sprint(list.Metadata.Continue != ""))
		for _, p := range list.Items {
			got[ct] = append(got[ct], p.Metadata.Name+"@"+p.Metadata.ResourceVersion)
		}
		resp, err = pods(c).Watch(true).SendInitialEvents(true).ResourceVersionMatch("NotOlderThan").
			AllowWatchBookmarks(true).TimeoutSeconds(1).Stream(context.Background())
		if err != nil {
			t.Fatalf("%s watch: %v", ct, err)
		}
		d := watch.NewDecoder(resp.Body, api.DecodePod, watch.DecoderOptions{ContentType: ct})
		for {
			ev, err := d.Decode()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s watch: %v", ct, err)
			}
			got[ct] = append(got[ct], fmt.Sprintf("%s %s@%s", ev.Type, ev.Object.Metadata.Name, ev.Object.Metadata.ResourceVersion))
		}
		resp.Body.Close()
	}
	if len(got[rest.ContentTypeJSON]) != 1+3+4+1+6 {
		t.Fatalf("JSON: %d lines, want a list of 3 and 11 events: %v", len(got[rest.ContentTypeJSON]), got[rest.ContentTypeJSON])
	}
	if d := cmp.Diff(got[rest.ContentTypeJSON], got[rest.ContentTypeProtobuf]); d != "" {
		t.Errorf("protobuf client differs (-json +protobuf):\n%s", d)
	}
}
