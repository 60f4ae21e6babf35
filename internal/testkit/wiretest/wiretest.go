// Package wiretest checks that the write types reach every face that decodes them: it builds
// a value of a write type with every field set (Full) and lists the fields that are Go's alone
// (GoOnly), for tests of the HTTP body and the native JSONL reader. Only tests import it.
package wiretest

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// GoOnly are the write types' fields without a wire name (json:"-"), each with why: a test
// fails on any other field that has none.
var GoOnly = map[string]string{
	"Batch.DeferVectorIndex": "a client over HTTP has no call to build the vector index afterwards",
	"Batch.Prune":            "deletes a family of ids; only the engine's summaries use it",
	"Batch.AsExported":       "set by the loader from an export file's header, not by a caller",
}

// Fields lists struct type t's fields as "Type.Field" with their JSON names ("" for a field
// without a json tag, "-" for one JSON leaves out).
func Fields(t reflect.Type) map[string]string {
	out := map[string]string{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out[t.Name()+"."+f.Name] = name
	}
	return out
}

// Full returns a value of struct type T with every field that has a wire name set to a
// non-zero value of its type, distinct per field, each time the same.
func Full[T any]() T {
	var v T
	fillStruct(reflect.ValueOf(&v).Elem(), 0)
	return v
}

func fillStruct(v reflect.Value, at int) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "-" || name == "" {
			continue
		}
		fill(v.Field(i), at+i, f.Name)
	}
}

var timeType = reflect.TypeFor[time.Time]()

func fill(v reflect.Value, i int, name string) {
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Date(2024, 5, 1+i, 10, i, 0, 0, time.UTC)))
		return
	case v.Kind() == reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), i, name)
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s-%d", strings.ToLower(name), i))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(2 + i))
	case reflect.Float64, reflect.Float32:
		v.SetFloat(0.25 + float64(i))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for j := range 2 {
			fill(s.Index(j), i+j, name)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(any(fmt.Sprintf("%s-%d", name, i))))
		v.Set(m)
	case reflect.Struct:
		fillStruct(v, i)
	default:
		panic(fmt.Sprintf("wiretest: no value for %s of kind %s", name, v.Kind()))
	}
}
