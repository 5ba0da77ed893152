package watch_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/meta"
	"github.com/podwatch/podwatch/watch"
)

// item is a stand-in for an API type; podwatch's own types have faster decoders.
type item struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

func decodeItem(data []byte) (item, error) {
	var it item
	err := json.Unmarshal(data, &it)
	return it, err
}

const stream = `{"type":"ADDED","object":{"metadata":{"name":"web","resourceVersion":"10"}}}
{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12"}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (10)","reason":"Expired","code":410}}
`

func ExampleNewStreamWatcher() {
	// In podwatch the body is a watch response's; the watcher closes it.
	body := io.NopCloser(strings.NewReader(stream))
	d := watch.NewDecoder(body, meta.Codec[item]{JSON: decodeItem}, watch.DecoderOptions{})
	w := watch.NewStreamWatcher(body, d, "pods")
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Error:
			fmt.Println("error, relist:", rest.IsGone(ev.Err))
		default:
			fmt.Println(ev.Type, ev.Object.Metadata.Name, ev.Object.Metadata.ResourceVersion)
		}
	}
	// Output:
	// ADDED web 10
	// BOOKMARK  12
	// error, relist: true
}

func ExampleDecoder_Decode() {
	d := watch.NewDecoder(strings.NewReader(stream[:170]), meta.Codec[item]{JSON: decodeItem}, watch.DecoderOptions{})
	for {
		ev, err := d.Decode()
		if err != nil {
			fmt.Println("stream cut short:", errors.Is(err, io.ErrUnexpectedEOF))
			return
		}
		fmt.Println(ev.Offset, ev.Type)
	}
	// Output:
	// 0 ADDED
	// 77 BOOKMARK
	// stream cut short: true
}
