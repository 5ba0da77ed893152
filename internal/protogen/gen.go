// Package protogen derives the protobuf schema of the objects podwatch
// reads and writes (core/v1 Pod and PodList, meta/v1 Status, WatchEvent and
// the discovery lists, and every
// message they reach) from the Go types of k8s.io/api and
// k8s.io/apimachinery, by their struct tags, and writes it as Go source for
// package rest/protowire. It lives in a module of its own so that podwatch
// itself imports no Kubernetes code; make protogen runs it, and its test
// fails when the checked-in rest/protowire/schema_gen.go is not what it
// writes.
package protogen

import (
	"bytes"
	"fmt"
	"go/format"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// roots are the messages podwatch reads at the top of an envelope or a watch
// frame, by the kind the envelope names.
var roots = []reflect.Type{
	reflect.TypeFor[corev1.Pod](),
	reflect.TypeFor[corev1.PodList](),
	reflect.TypeFor[metav1.Status](),
	reflect.TypeFor[metav1.WatchEvent](),
	// Discovery: the apiserver answers /api, /api/v1 and /apis in protobuf
	// to a client that prefers it, and so do podwatch's servers.
	reflect.TypeFor[metav1.APIVersions](),
	reflect.TypeFor[metav1.APIResourceList](),
	reflect.TypeFor[metav1.APIGroupList](),
}

// forms are the types whose JSON is not an object of their fields: each has
// a MarshalJSON of its own, which the transcoder mirrors (protowire.form).
var forms = map[reflect.Type]string{
	reflect.TypeFor[metav1.Time]():          "formTime",
	reflect.TypeFor[metav1.MicroTime]():     "formMicroTime",
	reflect.TypeFor[metav1.Duration]():      "formDuration",
	reflect.TypeFor[resource.Quantity]():    "formQuantity",
	reflect.TypeFor[intstr.IntOrString]():   "formIntOrString",
	reflect.TypeFor[runtime.RawExtension](): "formRawJSON",
	reflect.TypeFor[metav1.FieldsV1]():      "formRawJSON",
}

// protoLayout gives the protobuf fields of a form whose Go struct carries no
// protobuf tags, because its Marshal is written by hand: a Quantity is its
// canonical string in field 1 (generated.proto of apimachinery's resource).
// Time and MicroTime marshal as a Timestamp.
var protoLayout = map[reflect.Type]reflect.Type{
	reflect.TypeFor[resource.Quantity](): reflect.TypeFor[quantityProto](),
	reflect.TypeFor[metav1.Time]():       reflect.TypeFor[metav1.Timestamp](),
	reflect.TypeFor[metav1.MicroTime]():  reflect.TypeFor[metav1.Timestamp](),
}

type quantityProto struct {
	String string `json:"string" protobuf:"bytes,1,opt,name=string"`
}

var (
	typeMeta    = reflect.TypeFor[metav1.TypeMeta]()
	marshalJSON = reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()
)

type field struct {
	num                              int
	json                             string
	kind                             string
	msg                              reflect.Type
	repeated, isMap, pointer, inline bool
	omitEmpty, omitZero              bool
}

type message struct {
	t      reflect.Type
	form   string
	fields []field
}

type walker struct {
	order []reflect.Type
	msgs  map[reflect.Type]*message
}

// Generate returns the source of rest/protowire/schema_gen.go.
func Generate() ([]byte, error) {
	w := &walker{msgs: map[reflect.Type]*message{}}
	for _, t := range roots {
		if err := w.visit(t); err != nil {
			return nil, err
		}
	}
	for _, t := range w.order {
		if err := w.checkNames(t, map[string]bool{}); err != nil {
			return nil, err
		}
	}
	return w.write()
}

// checkNames fails when two members of t's JSON object, its inline
// messages' included, share a name: encoding/json would then drop one by
// its rules of embedding, which the transcoder does not follow.
func (w *walker) checkNames(t reflect.Type, seen map[string]bool) error {
	for _, f := range w.msgs[t].fields {
		if f.inline {
			if err := w.checkNames(f.msg, seen); err != nil {
				return err
			}
			continue
		}
		if seen[f.json] {
			return fmt.Errorf("%s: member %q given twice through inline messages", name(t), f.json)
		}
		seen[f.json] = true
	}
	return nil
}

func (w *walker) visit(t reflect.Type) error {
	if _, ok := w.msgs[t]; ok {
		return nil
	}
	m := &message{t: t, form: forms[t]}
	if m.form == "" {
		m.form = "formObject"
		if t.Implements(marshalJSON) || reflect.PointerTo(t).Implements(marshalJSON) {
			return fmt.Errorf("%s has a MarshalJSON of its own that no form mirrors", name(t))
		}
	}
	w.msgs[t] = m
	w.order = append(w.order, t)
	if t.Kind() == reflect.Slice {
		return w.visitList(m)
	}
	layout := t
	if l, ok := protoLayout[t]; ok {
		layout = l
	}
	for i := range layout.NumField() {
		f, ok, err := w.field(layout.Field(i), m.form != "formObject")
		if err != nil {
			return fmt.Errorf("%s.%s: %w", name(t), layout.Field(i).Name, err)
		}
		if ok {
			m.fields = append(m.fields, f)
		}
	}
	return nil
}

// visitList describes a named slice type (meta/v1 Verbs): the generated
// Marshal writes it as a message of its own holding the elements in field 1
// (items), while its JSON is the array.
func (w *walker) visitList(m *message) error {
	m.form = "formList"
	elem := m.t.Elem()
	kind, err := kindOf(elem, "bytes", true)
	if err != nil {
		return fmt.Errorf("%s: %w", name(m.t), err)
	}
	f := field{num: 1, json: "items", kind: kind, repeated: true}
	if kind == "kindMessage" {
		f.msg = elem
		if err := w.visit(elem); err != nil {
			return err
		}
	}
	m.fields = []field{f}
	return nil
}

// field describes one struct field; ok is false for fields that neither
// protobuf nor JSON carries. inForm relaxes the JSON rules for the fields of
// a form, whose JSON the form decides.
func (w *walker) field(sf reflect.StructField, inForm bool) (field, bool, error) {
	if !sf.IsExported() {
		return field{}, false, nil
	}
	ptag, hasProto := sf.Tag.Lookup("protobuf")
	jname, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
	if !hasProto {
		if sf.Anonymous && sf.Type == typeMeta {
			return field{}, false, nil // kind and apiVersion come from the envelope
		}
		if jname == "-" {
			return field{}, false, nil // in neither (RawExtension.Object)
		}
		return field{}, false, fmt.Errorf("no protobuf tag")
	}
	if jname == "-" && !inForm {
		return field{}, false, fmt.Errorf("in protobuf but not in JSON")
	}
	f := field{json: jname}
	if f.json == "" {
		if sf.Anonymous {
			f.inline = true
		} else {
			f.json = sf.Name
		}
	}
	for o := range strings.SplitSeq(opts, ",") {
		switch o {
		case "omitempty":
			f.omitEmpty = true
		case "omitzero":
			f.omitZero = true
		case "", "inline":
		default:
			return field{}, false, fmt.Errorf("json option %q", o)
		}
	}
	parts := strings.Split(ptag, ",")
	if len(parts) < 3 {
		return field{}, false, fmt.Errorf("protobuf tag %q", ptag)
	}
	num, err := strconv.Atoi(parts[1])
	if err != nil {
		return field{}, false, fmt.Errorf("protobuf tag %q: %w", ptag, err)
	}
	f.num = num
	wire, label := parts[0], parts[2]
	t := sf.Type
	switch {
	case t.Kind() == reflect.Pointer:
		f.pointer, t = true, t.Elem()
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return field{}, false, fmt.Errorf("map key %s", t.Key())
		}
		f.isMap, t = true, t.Elem()
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && t.Name() != "":
		// A named slice type is a message (visitList); nil is not written.
		f.pointer, f.kind, f.msg = true, "kindMessage", t
		return f, true, w.visit(t)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		f.repeated, t = true, t.Elem()
	}
	// The label is not checked: the Go type decides, as it did for the
	// generated Marshal. Some labels are wrong (ISCSIVolumeSource.Portals, a
	// []string, says opt; ServiceAccountTokenProjection.Audience, a string,
	// says rep).
	_ = label
	if f.kind, err = kindOf(t, wire, f.isMap); err != nil {
		return field{}, false, err
	}
	if f.omitZero && !(f.kind == "kindMessage" && (forms[t] == "formTime" || forms[t] == "formMicroTime")) {
		return field{}, false, fmt.Errorf("omitzero on a %s: only timestamps are known to be zero", t)
	}
	if f.inline && (f.pointer || f.repeated || f.isMap || f.kind != "kindMessage") {
		return field{}, false, fmt.Errorf("inline %s: only a plain struct is flattened", sf.Type)
	}
	if f.kind == "kindMessage" {
		f.msg = t
		if err := w.visit(t); err != nil {
			return field{}, false, err
		}
	}
	return f, true, nil
}

// kindOf maps a Go type and its protobuf tag's wire type to a
// protowire.kind. A map's tag names its entries (bytes); its values are
// known by their Go type alone.
func kindOf(t reflect.Type, wire string, inMap bool) (string, error) {
	var kind, want string
	switch {
	case t.Kind() == reflect.String:
		kind, want = "kindString", "bytes"
	case t.Kind() == reflect.Bool:
		kind, want = "kindBool", "varint"
	case t.Kind() == reflect.Int32:
		kind, want = "kindInt32", "varint"
	case t.Kind() == reflect.Int64, t.Kind() == reflect.Int:
		kind, want = "kindInt64", "varint"
	case t.Kind() == reflect.Float64:
		kind, want = "kindDouble", "fixed64"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		kind, want = "kindBytes", "bytes"
	case t.Kind() == reflect.Struct:
		kind, want = "kindMessage", "bytes"
	default:
		return "", fmt.Errorf("unsupported type %s", t)
	}
	// The Go type decides, not the tag's wire type: a few tags are wrong
	// (SecretVolumeSource.DefaultMode says bytes; generated.proto and the
	// generated Marshal say varint). A tag that names a scalar wire type for a
	// message or string is never wrong that way, so it still fails.
	if wire != want && !(wire == "bytes" && want == "varint") && !inMap {
		return "", fmt.Errorf("wire type %s for a %s", wire, t)
	}
	return kind, nil
}

// name is a type's name with its module path shortened: "api/core/v1.Pod".
func name(t reflect.Type) string {
	return strings.TrimPrefix(t.PkgPath(), "k8s.io/") + "." + t.Name()
}

func (w *walker) write() ([]byte, error) {
	index := map[reflect.Type]int{}
	for i, t := range w.order {
		index[t] = i
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/protogen from the Go types of k8s.io/api and\n")
	b.WriteString("// k8s.io/apimachinery v0.37.2. DO NOT EDIT.\n\npackage protowire\n\n")
	b.WriteString("// The root messages, by the kind an envelope names.\nvar roots = map[string]int{\n")
	for _, t := range roots {
		fmt.Fprintf(&b, "%q: %d,\n", t.Name(), index[t])
	}
	b.WriteString("}\n\nvar messages = []message{\n")
	for i, t := range w.order {
		m := w.msgs[t]
		fmt.Fprintf(&b, "%d: {name: %q, form: %s, fields: []field{\n", i, name(t), m.form)
		fields := slices.Clone(m.fields)
		for _, f := range fields {
			fmt.Fprintf(&b, "{num: %d, json: %q, kind: %s", f.num, f.json, f.kind)
			if f.msg != nil {
				fmt.Fprintf(&b, ", msg: %d", index[f.msg])
			}
			for _, flag := range []struct {
				on   bool
				name string
			}{{f.repeated, "repeated"}, {f.isMap, "isMap"}, {f.pointer, "pointer"}, {f.inline, "inline"}, {f.omitEmpty, "omitEmpty"}, {f.omitZero, "omitZero"}} {
				if flag.on {
					fmt.Fprintf(&b, ", %s: true", flag.name)
				}
			}
			b.WriteString("},\n")
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
