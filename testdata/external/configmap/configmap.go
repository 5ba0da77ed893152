// Package configmap is the ConfigMap decoder of podwatch's cache example
// (cache.Example_configMap), compiled outside podwatch's module: a test keeps
// its declarations identical to the example's.
package configmap

import (
	"fmt"

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
