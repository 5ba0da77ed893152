package configmap

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"strings"
	"testing"

	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/wire"
	"github.com/podwatch/podwatch/watch"
)

// TestSameAsCacheExample keeps this package's declarations, doc comments
// included, those of the cache package's ConfigMap example.
func TestSameAsCacheExample(t *testing.T) {
	ours := declarations(t, "configmap.go")
	example := declarations(t, "../../../cache/example_configmap_test.go")
	if len(ours) == 0 {
		t.Fatal("no declarations found in configmap.go")
	}
	for name, src := range ours {
		if example[name] != src {
			t.Errorf("%s differs from the cache example's.\nhere:\n%s\nexample:\n%s", name, src, example[name])
		}
	}
}

// declarations maps each top-level type and function of file, but imports and
// examples, to its source as gofmt prints it.
func declarations(t *testing.T, file string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]string{}
	for _, d := range f.Decls {
		var name string
		switch d := d.(type) {
		case *ast.FuncDecl:
			name = d.Name.Name
			if d.Recv != nil {
				var b bytes.Buffer
				printer.Fprint(&b, fset, d.Recv.List[0].Type)
				name = b.String() + "." + name
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			name = d.Specs[0].(*ast.TypeSpec).Name.Name
		}
		if strings.HasPrefix(name, "Example") {
			continue
		}
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, &printer.CommentedNode{Node: d, Comments: f.Comments}); err != nil {
			t.Fatal(err)
		}
		decls[name] = b.String()
	}
	return decls
}

const configMap = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"web","namespace":"shop","resourceVersion":"7","ownerReferences":[{"kind":"Deployment","name":"web"}]},"data":{"b":"2","a":"1"},"binaryData":{"x":"AA=="},"immutable":true}`

// A config map decoded and encoded again is the same JSON, the members the
// type does not model included.
func TestRoundTrip(t *testing.T) {
	c, err := DecodeConfigMap([]byte(configMap))
	if err != nil {
		t.Fatal(err)
	}
	if c.Metadata.Name != "web" || c.Data["a"] != "1" {
		t.Fatalf("decoded %+v", c)
	}
	var want, got any
	if err := json.Unmarshal([]byte(configMap), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(jsonx.Encode(c.WriteJSON), &got); err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(got)
	if !bytes.Equal(wantJSON, gotJSON) {
		t.Fatalf("encoded\n%s\nwant\n%s", gotJSON, wantJSON)
	}
}

// The decoder serves podwatch's list and watch decoders, and their errors
// are public types.
func TestListAndWatch(t *testing.T) {
	list, err := rest.DecodeList(strings.NewReader(`{"kind":"ConfigMapList","metadata":{"resourceVersion":"8"},"items":[`+configMap+`]}`), wire.JSON, Codec, rest.ListLimits{})
	if err != nil || len(list.Items) != 1 || list.Metadata.ResourceVersion != "8" {
		t.Fatalf("DecodeList: %v, %+v", err, list)
	}
	stream := `{"type":"ADDED","object":` + configMap + "}\n" + `{"type":"MODIFIED","object":{"data":{"a":}}}`
	d := watch.NewDecoder(strings.NewReader(stream), Codec, watch.DecoderOptions{})
	if ev, err := d.Decode(); err != nil || ev.Type != watch.Added || ev.Object.Data["b"] != "2" {
		t.Fatalf("first event: %+v, %v", ev, err)
	}
	_, err = d.Decode()
	var se *jsonx.SyntaxError
	if !errors.As(err, &se) || se.Offset != int64(strings.Index(stream, "}}}")) {
		t.Fatalf("got %v, want a *jsonx.SyntaxError at byte %d", err, strings.Index(stream, "}}}"))
	}
	if _, err := d.Decode(); errors.Is(err, io.EOF) {
		t.Fatalf("Decode after the error: got io.EOF, want the same error")
	}
}
