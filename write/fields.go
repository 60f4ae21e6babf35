// The checks of one field of a batch row, each refusing with an *Error that names the row
// (item) and the field.

package write

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"
)

func checkID(item, field, id string, required bool) error {
	switch {
	case id == "" && required:
		return &Error{Item: item, Field: field, Problem: "empty"}
	case len(id) > MaxIDLen:
		return &Error{Item: item, Field: field, Problem: fmt.Sprintf("%d bytes, the limit is %d", len(id), MaxIDLen)}
	case !utf8.ValidString(id) || strings.IndexByte(id, 0) >= 0:
		return &Error{Item: item, Field: field, Problem: "invalid UTF-8 or a NUL byte"}
	}
	return nil
}

func checkStr(item, field, s string) error {
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return &Error{Item: item, Field: field, Problem: "invalid UTF-8 or a NUL byte"}
	}
	return nil
}

// checkText checks a bounded string: valid UTF-8 without NUL, at most limit bytes, and not
// blank when required.
func checkText(item, field, s string, limit int, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return &Error{Item: item, Field: field, Problem: "empty"}
	case len(s) > limit:
		return &Error{Item: item, Field: field, Problem: fmt.Sprintf("%d bytes, the limit is %d", len(s), limit)}
	}
	return checkStr(item, field, s)
}

// checkTime refuses a time JSON and Postgres cannot both hold: years 1 to 9999.
func checkTime(item, field string, t *time.Time) error {
	if t != nil && (t.Year() < 1 || t.Year() > 9999) {
		return &Error{Item: item, Field: field, Problem: fmt.Sprintf("year %d: want years 1 to 9999", t.Year())}
	}
	return nil
}

// checkEmbedding refuses a vector no cosine distance can be computed from.
func checkEmbedding(item, field string, v []float32) error {
	zero := true
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return &Error{Item: item, Field: field, Problem: fmt.Sprintf("component %d is %v: want finite numbers", i, x)}
		}
		zero = zero && x == 0
	}
	if zero && len(v) > 0 {
		return &Error{Item: item, Field: field, Problem: "all zero: a zero vector has no direction, so no query can find it"}
	}
	return nil
}

// checkMeta refuses metadata that would not be stored as given: a value JSON cannot encode
// (NaN, infinities, channels, functions), a string or key of invalid UTF-8 or with a NUL
// byte (JSON would replace the bytes, jsonb refuses NUL), a time outside years 1-9999, or
// nesting deeper than MaxMetaDepth. The field names the place ("metadata.a[2]").
func checkMeta(item string, meta map[string]any) error {
	if meta == nil {
		return nil
	}
	if err := checkValue(item, "metadata", reflect.ValueOf(meta), 0); err != nil {
		return err
	}
	if _, err := json.Marshal(meta); err != nil {
		return &Error{Item: item, Field: "metadata", Problem: "not encodable as JSON: " + err.Error()}
	}
	return nil
}

var timeType = reflect.TypeFor[time.Time]()

func checkValue(item, path string, v reflect.Value, depth int) error {
	if depth > MaxMetaDepth {
		return &Error{Item: item, Field: path, Problem: fmt.Sprintf("nested deeper than %d levels", MaxMetaDepth)}
	}
	if v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		return checkValue(item, path, v.Elem(), depth)
	}
	if v.Type() == timeType {
		t := v.Interface().(time.Time) //nolint:forcetypeassert // checked by type
		return checkTime(item, path, &t)
	}
	switch v.Kind() {
	case reflect.String:
		return checkStr(item, path, v.String())
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return &Error{Item: item, Field: path, Problem: fmt.Sprintf("%v: JSON holds finite numbers only", f)}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			if k.Kind() == reflect.String {
				if err := checkStr(item, path+" key", k.String()); err != nil {
					return err
				}
			}
			if err := checkValue(item, fmt.Sprintf("%s.%v", path, k.Interface()), iter.Value(), depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // []byte: JSON writes base64
		}
		for i := range v.Len() {
			if err := checkValue(item, fmt.Sprintf("%s[%d]", path, i), v.Index(i), depth+1); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if err := checkValue(item, path+"."+v.Type().Field(i).Name, v.Field(i), depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
