package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/podwatch/podwatch/cache"
	"github.com/podwatch/podwatch/rest"
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/meta"
)

// ConfigMap is a core/v1 ConfigMap, written with public pieces only: its
// metadata is a meta.ObjectMeta, its data a map, and every other member is
// kept as it came and written back.
type ConfigMap struct {
	meta.TypeMeta
	Metadata meta.ObjectMeta
	Data     map[string]string

	extra jsonx.Extra
}

// Meta makes ConfigMap a meta.Object, which is all cache needs of it.
func (c *ConfigMap) Meta() *meta.ObjectMeta { return &c.Metadata }

// Codec decodes ConfigMaps for rest.DecodeList, watch.NewDecoder and
// cache.NewListWatchFromClient: from JSON, and from protobuf or CBOR through
// the JSON they are transcoded to.
var Codec = meta.Codec[*ConfigMap]{JSON: DecodeConfigMap}

// DecodeConfigMap decodes a ConfigMap from its JSON (Codec's JSON). It keeps
// nothing of data: jsonx.Extra.Keep copies what it keeps.
func DecodeConfigMap(data []byte) (*ConfigMap, error) {
	r := jsonx.NewReader(data)
	c := &ConfigMap{}
	r.Object(func(member []byte) {
		switch string(member) {
		case "kind":
			c.Kind = r.String()
		case "apiVersion":
			c.APIVersion = r.String()
		case "metadata":
			c.Metadata.ReadJSON(r)
		case "data":
			c.Data = jsonx.ReadStringMap(r)
		default:
			c.extra.Keep(r, member)
		}
	})
	if r.Err() == nil && !r.AtEnd() {
		r.Fail("data after the config map")
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("decode config map: %w", err)
	}
	return c, nil
}

// WriteJSON encodes the config map, unmodelled members included.
func (c *ConfigMap) WriteJSON(w *jsonx.Writer) {
	o := w.BeginObject()
	o.String("kind", c.Kind)
	o.String("apiVersion", c.APIVersion)
	o.Field("metadata")
	c.Metadata.WriteJSON(w)
	o.StringMap("data", c.Data)
	o.Extra(c.extra)
	o.End()
}

// A reflector over a kind podwatch does not ship: the config maps of one
// namespace, decoded by DecodeConfigMap and pushed whole after every change.
func Example_configMap() {
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/namespaces/shop/configmaps" {
			fmt.Println("unexpected request for", r.URL.Path)
			cancel()
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			fmt.Fprint(w, `{"kind":"ConfigMapList","metadata":{"resourceVersion":"20"},"items":[`+
				`{"metadata":{"namespace":"shop","name":"web","resourceVersion":"19"},"data":{"mode":"blue"},"immutable":false}]}`)
			return
		}
		fmt.Fprint(w, `{"type":"MODIFIED","object":{"metadata":{"namespace":"shop","name":"web","resourceVersion":"21"},"data":{"mode":"green"},"immutable":true}}`+"\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()

	c, err := rest.NewClient(rest.Config{Host: srv.URL})
	if err != nil {
		panic(err)
	}
	lw := cache.NewListWatchFromClient(c, "configmaps", "shop", "", Codec)
	store := cache.NewUndeltaStore(func(cms []*ConfigMap, rv string) {
		for _, cm := range cms {
			fmt.Printf("rv %s: %s\n", rv, jsonx.Encode(cm.WriteJSON))
		}
		if rv == "21" {
			cancel()
		}
	}, cache.MetaNamespaceKey[*ConfigMap])
	cache.NewReflector[*ConfigMap](lw, store, cache.ReflectorOptions{Name: "configmaps"}).Run(ctx)
	// Output:
	// rv 20: {"metadata":{"name":"web","namespace":"shop","resourceVersion":"19"},"data":{"mode":"blue"},"immutable":false}
	// rv 21: {"metadata":{"name":"web","namespace":"shop","resourceVersion":"21"},"data":{"mode":"green"},"immutable":true}
}
