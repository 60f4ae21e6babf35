package records

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/recall-engine/recall/write"
)

// A native record is one of the write types (write.Source, Memory, Entity, Relation) under
// its own JSON names, with "type" saying which. Each line decodes into the write type
// itself, so a field added there is read here too; only the times are read more leniently
// than over HTTP (ParseTime: RFC 3339, dates, and times as conversations write them).
type (
	nativeSource struct {
		Type string `json:"type"`
		write.Source
		OccurredAt *timeValue `json:"occurred_at"`
	}
	nativeMemory struct {
		Type string `json:"type"`
		write.Memory
		OccurredStart *timeValue `json:"occurred_start"`
		OccurredEnd   *timeValue `json:"occurred_end"`
		MentionedAt   *timeValue `json:"mentioned_at"`
		RefersStart   *timeValue `json:"refers_start"`
		RefersEnd     *timeValue `json:"refers_end"`
		ExpiresAt     *timeValue `json:"expires_at"`
		ValidFrom     *timeValue `json:"valid_from"`
		ValidUntil    *timeValue `json:"valid_until"`
		SupersedesAt  *timeValue `json:"supersedes_at"`
	}
	nativeEntity struct {
		Type string `json:"type"`
		write.Entity
	}
	nativeRelation struct {
		Type string `json:"type"`
		write.Relation
	}
)

// nativeTypes are the native record types with the write type each carries, in the order
// NativeFields lists them.
var nativeTypes = []struct {
	name string
	row  reflect.Type
}{
	{"source", reflect.TypeFor[write.Source]()},
	{"memory", reflect.TypeFor[write.Memory]()},
	{"entity", reflect.TypeFor[write.Entity]()},
	{"relation", reflect.TypeFor[write.Relation]()},
}

// fieldNotes says what some fields hold, in help texts.
var fieldNotes = map[string]string{
	"memory.kind":       "world|experience|observation|summary",
	"memory.entities":   "entity ids",
	"memory.covers":     "memory ids, for a summary",
	"memory.supersedes": "memory ids it replaces",
	"relation.from":     "entity id",
	"relation.to":       "entity id",
	"relation.memory":   "evidence memory id",
}

// NativeFields lists a native record's fields per type, for help texts: the JSON names of
// the write types' fields, wrapped at 90 columns.
func NativeFields() string {
	var b strings.Builder
	for _, nt := range nativeTypes {
		line := fmt.Sprintf("%-9s ", nt.name+":")
		width := len(line)
		for i, f := range JSONNames(nt.row) {
			if note, ok := fieldNotes[nt.name+"."+f]; ok {
				f += " (" + note + ")"
			}
			if i > 0 {
				f = ", " + f
			}
			if len(line)+len(f) > 90 {
				b.WriteString(strings.TrimRight(line, " ") + ",\n")
				line = strings.Repeat(" ", width) + strings.TrimPrefix(f, ", ")
				continue
			}
			line += f
		}
		b.WriteString(line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// JSONNames lists the JSON names of struct type t's fields, in order, without those JSON
// leaves out.
func JSONNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func parseNative(b []byte, _ Options) ([]Record, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("native record: %v", err)
	}
	switch head.Type {
	case "source":
		var n nativeSource
		if err := strict(b, &n); err != nil {
			return nil, fmt.Errorf("native record: %v", err)
		}
		n.Source.OccurredAt = n.OccurredAt.ptr()
		return []Record{{Source: &n.Source}}, nil
	case "memory":
		var n nativeMemory
		if err := strict(b, &n); err != nil {
			return nil, fmt.Errorf("native record: %v", err)
		}
		n.Memory.OccurredStart, n.Memory.OccurredEnd, n.Memory.MentionedAt = n.OccurredStart.ptr(), n.OccurredEnd.ptr(), n.MentionedAt.ptr()
		n.Memory.RefersStart, n.Memory.RefersEnd, n.Memory.ExpiresAt = n.RefersStart.ptr(), n.RefersEnd.ptr(), n.ExpiresAt.ptr()
		n.Memory.ValidFrom, n.Memory.ValidUntil, n.Memory.SupersedesAt = n.ValidFrom.ptr(), n.ValidUntil.ptr(), n.SupersedesAt.ptr()
		return []Record{{Memory: &n.Memory}}, nil
	case "entity":
		var n nativeEntity
		if err := strict(b, &n); err != nil {
			return nil, fmt.Errorf("native record: %v", err)
		}
		return []Record{{Entity: &n.Entity}}, nil
	case "relation":
		var n nativeRelation
		if err := strict(b, &n); err != nil {
			return nil, fmt.Errorf("native record: %v", err)
		}
		return []Record{{Relation: &n.Relation}}, nil
	case "export":
		var n struct {
			Type string `json:"type"`
			ExportHeader
		}
		if err := strict(b, &n); err != nil {
			return nil, fmt.Errorf("export header: %v", err)
		}
		return []Record{{Header: &n.ExportHeader}}, nil
	case "export_end":
		var n struct {
			Type string `json:"type"`
			ExportEnd
		}
		if err := strict(b, &n); err != nil {
			return nil, fmt.Errorf("export end: %v", err)
		}
		return []Record{{End: &n.ExportEnd}}, nil
	}
	return nil, fmt.Errorf(`"type" %q: want source, memory, entity, relation (or export, export_end around an export)`, head.Type)
}

// timeValue reads a time as ParseTime does.
type timeValue struct{ time.Time }

func (t *timeValue) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("time: want a string")
	}
	v, err := ParseTime(s)
	t.Time = v
	return err
}

func (t *timeValue) ptr() *time.Time {
	if t == nil {
		return nil
	}
	v := t.Time
	return &v
}
