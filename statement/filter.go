package statement

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// TagsMode is how Filters.Tags matches a memory's tags.
type TagsMode string

// Tag modes: any / all include untagged memories; the strict forms exclude them.
const (
	TagsAny       TagsMode = "any"
	TagsAnyStrict TagsMode = "any_strict"
	TagsAll       TagsMode = "all"
	TagsAllStrict TagsMode = "all_strict"
)

var tagsModes = []TagsMode{TagsAny, TagsAnyStrict, TagsAll, TagsAllStrict}

// Filters restrict every lane (inside the lane, before its LIMIT). Zero values filter nothing.
// In the statement they are one record, recall.filter, which sql/lanes/filter.sql's
// recall.passes applies; the builder writes it where a fragment says {{filter}}.
type Filters struct {
	Kinds    []string
	Tags     []string
	TagsMode TagsMode // default TagsAny
	Metadata map[string]any
	From, To time.Time // occurred_start in [From, To)
}

// FilterError is a filter the statement cannot apply.
type FilterError struct {
	Field   string
	Problem string
}

func (e *FilterError) Error() string {
	return fmt.Sprintf("statement: filters.%s: %s", e.Field, e.Problem)
}

// Validate refuses an unknown tags mode (which would match nothing) and an empty range.
func (f Filters) Validate() error {
	if f.TagsMode != "" && !slices.Contains(tagsModes, f.TagsMode) {
		return &FilterError{Field: "tags_mode", Problem: fmt.Sprintf("%q: want one of any, any_strict, all, all_strict", f.TagsMode)}
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return &FilterError{Field: "to", Problem: "not after from: the range holds no time"}
	}
	if path, v, ok := notJSON("metadata", f.Metadata); ok {
		return &FilterError{Field: path, Problem: fmt.Sprintf("%v: JSON holds finite numbers only", v)}
	}
	if _, err := json.Marshal(f.Metadata); err != nil {
		return &FilterError{Field: "metadata", Problem: "not encodable as JSON: " + err.Error()}
	}
	return nil
}

// notJSON finds a number JSON cannot hold (NaN, an infinity) in a metadata value: its path
// ("metadata.a[2]") and the value.
func notJSON(path string, v any) (string, float64, bool) {
	switch x := v.(type) {
	case float64:
		return path, x, math.IsNaN(x) || math.IsInf(x, 0)
	case float32:
		return path, float64(x), math.IsNaN(float64(x)) || math.IsInf(float64(x), 0)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p, f, ok := notJSON(path+"."+k, x[k]); ok {
				return p, f, true
			}
		}
	case []any:
		for i, e := range x {
			if p, f, ok := notJSON(fmt.Sprintf("%s[%d]", path, i), e); ok {
				return p, f, true
			}
		}
	}
	return "", 0, false
}

func (f Filters) active() bool {
	return len(f.Kinds) > 0 || len(f.Tags) > 0 || len(f.Metadata) > 0 || !f.From.IsZero() || !f.To.IsZero()
}

// filterRecord is what the builder writes for {{filter}}: the recall.filter record of the
// filter binds, in the type's field order. Constant fields of a row are folded by the
// planner, so recall.passes inlines to the plain conditions.
const filterRecord = "ROW(@f_kinds::text[], @f_tags::text[], @f_tags_mode::text, @f_metadata::jsonb, @f_from::timestamptz, @f_to::timestamptz)::recall.filter"

// binds returns the filter binds (f_none says that no filter is set, so lanes may skip
// reading memories only to test them).
func (f Filters) binds() map[string]any {
	mode := f.TagsMode
	if mode == "" {
		mode = TagsAny
	}
	return map[string]any{
		"f_none": !f.active(), "f_kinds": nullSlice(f.Kinds), "f_tags": nullSlice(f.Tags), "f_tags_mode": string(mode),
		"f_metadata": nullMap(f.Metadata), "f_from": nullTime(f.From), "f_to": nullTime(f.To),
	}
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func nullSlice(s []string) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nullMap(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

// relationHolds is what the builder writes for {{relation_holds}}: relation r holds at the
// recall's as_of (its evidence's window, migration 00012). Both columns are in the walk's
// indexes, so the test keeps its reads index-only.
const relationHolds = "(r.valid_from IS NULL OR r.valid_from <= @as_of::timestamptz) AND (r.valid_until IS NULL OR r.valid_until > @as_of::timestamptz)"
