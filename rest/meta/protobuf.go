package meta

import (
	"github.com/podwatch/podwatch/rest/jsonx"
	"github.com/podwatch/podwatch/rest/protowire"
)

// The fields of ObjectMeta that ObjectMeta models, read from protobuf by
// ReadProtobuf; the others are kept in their wire form.
var (
	objectMetaModel = protowire.NewModel(mustMessage("apimachinery/pkg/apis/meta/v1.ObjectMeta"),
		"name", "generateName", "namespace", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
		"labels", "annotations", "managedFields")
	// An entry's field set is kept apart: it repeats in every replica of a
	// template while the entry's time differs (see ObjectMeta.managedFields).
	managedFieldsModel = protowire.NewModel(objectMetaModel.Elem("managedFields")).Apart("fieldsV1")

	pbName                       = objectMetaModel.Num("name")
	pbGenerateName               = objectMetaModel.Num("generateName")
	pbNamespace                  = objectMetaModel.Num("namespace")
	pbUID                        = objectMetaModel.Num("uid")
	pbResourceVersion            = objectMetaModel.Num("resourceVersion")
	pbGeneration                 = objectMetaModel.Num("generation")
	pbCreationTimestamp          = objectMetaModel.Num("creationTimestamp")
	pbDeletionTimestamp          = objectMetaModel.Num("deletionTimestamp")
	pbDeletionGracePeriodSeconds = objectMetaModel.Num("deletionGracePeriodSeconds")
	pbLabels                     = objectMetaModel.Num("labels")
	pbAnnotations                = objectMetaModel.Num("annotations")
	pbManagedFields              = objectMetaModel.Num("managedFields")
)

func mustMessage(name string) protowire.Message {
	m, ok := protowire.Named(name)
	if !ok {
		panic("meta: the protobuf schema has no " + name)
	}
	return m
}

// ReadProtobuf decodes object metadata, the message r is at, in place;
// errors are recorded on r. It gives what ReadJSON gives for the same
// metadata in JSON: members it does not model are kept in their wire form
// (checked as they are read) and written as JSON by WriteJSON.
func (m *ObjectMeta) ReadProtobuf(r *protowire.Reader) {
	// The entries' runs go to one slice, cut into entries at the end: one
	// allocation for all of them rather than a few per entry.
	var flat jsonx.Extra
	var ends []int
	r.Message(objectMetaModel, &m.extra, func(num int32) {
		switch num {
		case pbName:
			m.Name = r.String()
		case pbGenerateName:
			m.GenerateName = r.RecurringString()
		case pbNamespace:
			m.Namespace = r.RecurringString()
		case pbUID:
			m.UID = r.String()
		case pbResourceVersion:
			m.ResourceVersion = r.String()
		case pbGeneration:
			m.Generation = r.Int64()
		case pbCreationTimestamp:
			m.CreationTimestamp = r.Time()
		case pbDeletionTimestamp:
			m.DeletionTimestamp = r.TimePtr()
		case pbDeletionGracePeriodSeconds:
			m.DeletionGracePeriodSeconds = r.Int64Ptr()
		case pbLabels:
			m.Labels = r.MapEntry(m.Labels)
		case pbAnnotations:
			m.Annotations = r.MapEntry(m.Annotations)
		case pbManagedFields:
			if flat == nil {
				flat = make(jsonx.Extra, 0, 8)
			}
			r.Message(managedFieldsModel, &flat, nil)
			ends = append(ends, len(flat))
		}
	})
	if ends != nil {
		entries := make([]jsonx.Extra, len(ends))
		begin := 0
		for i, end := range ends {
			entries[i] = flat[begin:end:end]
			begin = end
		}
		m.managedFields = jsonx.ObjectsOf(entries)
		m.extra.MarkObjects("managedFields")
	}
}
