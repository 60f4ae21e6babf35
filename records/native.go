package records

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/recall-engine/recall/write"
)

// nativeLine is a native record: the fields of write.Source, Memory, Entity and Relation
// in snake case, with "type" saying which.
type nativeLine struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// source
	Title      string     `json:"title"`
	URI        string     `json:"uri"`
	OccurredAt *timeValue `json:"occurred_at"`
	// memory
	Source        string     `json:"source"`
	Kind          string     `json:"kind"`
	Text          string     `json:"text"`
	Embedding     []float32  `json:"embedding"`
	OccurredStart *timeValue `json:"occurred_start"`
	OccurredEnd   *timeValue `json:"occurred_end"`
	Tags          []string   `json:"tags"`
	Speaker       string     `json:"speaker"`
	Entities      []string   `json:"entities"`
	// entity
	Name    string   `json:"name"`
	Aliases []string `json:"aliases"`
	// relation
	From      string  `json:"from"`
	To        string  `json:"to"`
	Predicate string  `json:"predicate"`
	Weight    float64 `json:"weight"`
	Memory    string  `json:"memory"`

	Metadata map[string]any `json:"metadata"`
}

// NativeFields lists a native record's fields per type, for help texts.
const NativeFields = `source:   id, title, uri, occurred_at, metadata
memory:   id, source, kind (world|experience|observation|summary), text, embedding,
          occurred_start, occurred_end, tags, speaker, entities (entity ids), metadata
entity:   id, name, kind, aliases, metadata
relation: from, to (entity ids), predicate, weight, memory (evidence memory id)`

func parseNative(b []byte, _ Options) ([]Record, error) {
	var n nativeLine
	if err := strict(b, &n); err != nil {
		return nil, fmt.Errorf("native record: %v", err)
	}
	switch n.Type {
	case "source":
		return []Record{{Source: &write.Source{ID: n.ID, Title: n.Title, URI: n.URI, OccurredAt: n.OccurredAt.ptr(), Metadata: n.Metadata}}}, nil
	case "memory":
		return []Record{{Memory: &write.Memory{ID: n.ID, Source: n.Source, Kind: n.Kind, Text: n.Text, Embedding: n.Embedding,
			OccurredStart: n.OccurredStart.ptr(), OccurredEnd: n.OccurredEnd.ptr(), Tags: n.Tags, Metadata: n.Metadata,
			Speaker: n.Speaker, Entities: n.Entities}}}, nil
	case "entity":
		return []Record{{Entity: &write.Entity{ID: n.ID, Name: n.Name, Kind: n.Kind, Aliases: n.Aliases, Metadata: n.Metadata}}}, nil
	case "relation":
		return []Record{{Relation: &write.Relation{From: n.From, To: n.To, Predicate: n.Predicate, Weight: n.Weight, Memory: n.Memory}}}, nil
	}
	return nil, fmt.Errorf(`"type" %q: want source, memory, entity or relation`, n.Type)
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
