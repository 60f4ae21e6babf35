package records_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/wiretest"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/write"
)

// TestNativeSetsEveryField: a native JSONL record of each write type, with every field the
// type has a wire name for, reads back as the same value, so no field is settable from Go
// alone (but those wiretest.GoOnly names, with why).
func TestNativeSetsEveryField(t *testing.T) {
	t.Parallel()
	check := func(typ string, want any, got func(records.Record) any) {
		t.Helper()
		b, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatal(err)
		}
		obj["type"] = typ
		line, _ := json.Marshal(obj)
		recs, err := records.Parse(line, records.Native, "t.jsonl", 1, records.Options{})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if len(recs) != 1 || !reflect.DeepEqual(got(recs[0]), want) {
			t.Fatalf("%s: read %+v from %s, want %+v", typ, recs, line, want)
		}
	}
	check("source", wiretest.Full[write.Source](), func(r records.Record) any { return *r.Source })
	check("memory", wiretest.Full[write.Memory](), func(r records.Record) any { return *r.Memory })
	check("entity", wiretest.Full[write.Entity](), func(r records.Record) any { return *r.Entity })
	check("relation", wiretest.Full[write.Relation](), func(r records.Record) any { return *r.Relation })
}

// TestWriteTypesHaveWireNames: every field of the write types has a JSON name, or is one of
// the Go-only fields wiretest names.
func TestWriteTypesHaveWireNames(t *testing.T) {
	t.Parallel()
	for _, typ := range []reflect.Type{reflect.TypeFor[write.Batch](), reflect.TypeFor[write.Source](), reflect.TypeFor[write.Memory](),
		reflect.TypeFor[write.Entity](), reflect.TypeFor[write.Relation]()} {
		for field, name := range wiretest.Fields(typ) {
			_, goOnly := wiretest.GoOnly[field]
			switch {
			case name == "":
				t.Errorf("%s has no json tag: give it a snake_case wire name (or json:\"-\" and a reason in wiretest.GoOnly)", field)
			case name == "-" && !goOnly:
				t.Errorf("%s is left out of JSON without a reason in wiretest.GoOnly", field)
			case name != "-" && goOnly:
				t.Errorf("%s has a wire name but wiretest.GoOnly says it is Go's alone", field)
			}
		}
	}
}
