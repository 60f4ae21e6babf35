package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
)

// The JSONL formats recall ingests, one record per line:
//
//	native: {"type": "source"|"memory"|"entity"|"relation", ...the fields of recall.Source,
//	        Memory, Entity, Relation in snake case}
//	BEIR:   {"_id", "title", "text", "metadata"}: a source (when titled) and a memory
//	turns:  {"speaker", "text", "date"|"time"|"timestamp", "id"?, "conversation"?}: a
//	        conversation turn, an experience memory spoken by speaker
//
// With format "auto", each line's keys say which it is.

// lineError is a malformed line: where and why.
type lineError struct {
	File    string
	Line    int
	Problem string
}

func (e *lineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem) }

// record is what one line adds to a batch.
type record struct {
	line     int
	source   *recall.Source
	memory   *recall.Memory
	entity   *recall.Entity
	relation *recall.Relation
}

type nativeLine struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	// source
	Title      string     `json:"title"`
	URI        string     `json:"uri"`
	OccurredAt *time.Time `json:"occurred_at"`
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

// timeValue reads RFC 3339 times, "2006-01-02 15:04[:05]" and plain dates (UTC).
type timeValue struct{ time.Time }

func (t *timeValue) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("time: want a string")
	}
	v, err := cli.ParseTime(s)
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

type beirLine struct {
	ID       string         `json:"_id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

type turnLine struct {
	ID           string         `json:"id"`
	Conversation string         `json:"conversation"`
	Speaker      string         `json:"speaker"`
	Text         string         `json:"text"`
	Date         string         `json:"date"`
	Time         string         `json:"time"`
	Timestamp    string         `json:"timestamp"`
	Metadata     map[string]any `json:"metadata"`
}

func strict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	return nil
}

// parseLine reads one line of file in format (auto, native, beir, turns).
func parseLine(b []byte, format, file string, line int) ([]record, error) {
	bad := func(format string, args ...any) ([]record, error) {
		return nil, &lineError{File: file, Line: line, Problem: fmt.Sprintf(format, args...)}
	}
	if format == "auto" {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			return bad("not a JSON object: %v", err)
		}
		switch {
		case keys["type"] != nil:
			format = "native"
		case keys["_id"] != nil:
			format = "beir"
		case keys["speaker"] != nil:
			format = "turns"
		default:
			return bad(`unknown record: want "type" (native), "_id" (BEIR corpus) or "speaker" (conversation turn)`)
		}
	}
	switch format {
	case "native":
		var n nativeLine
		if err := strict(b, &n); err != nil {
			return bad("native record: %v", err)
		}
		r := record{line: line}
		switch n.Type {
		case "source":
			r.source = &recall.Source{ID: n.ID, Title: n.Title, URI: n.URI, OccurredAt: n.OccurredAt, Metadata: n.Metadata}
		case "memory":
			r.memory = &recall.Memory{ID: n.ID, Source: n.Source, Kind: n.Kind, Text: n.Text, Embedding: n.Embedding,
				OccurredStart: n.OccurredStart.ptr(), OccurredEnd: n.OccurredEnd.ptr(), Tags: n.Tags, Metadata: n.Metadata,
				Speaker: n.Speaker, Entities: n.Entities}
		case "entity":
			r.entity = &recall.Entity{ID: n.ID, Name: n.Name, Kind: n.Kind, Aliases: n.Aliases, Metadata: n.Metadata}
		case "relation":
			r.relation = &recall.Relation{From: n.From, To: n.To, Predicate: n.Predicate, Weight: n.Weight, Memory: n.Memory}
		default:
			return bad(`"type" %q: want source, memory, entity or relation`, n.Type)
		}
		return []record{r}, nil
	case "beir":
		var d beirLine
		if err := strict(b, &d); err != nil {
			return bad("BEIR record: %v", err)
		}
		if d.ID == "" {
			return bad(`BEIR record without "_id"`)
		}
		m := &recall.Memory{ID: d.ID, Text: d.Text, Metadata: d.Metadata}
		out := []record{}
		if d.Title != "" {
			out = append(out, record{line: line, source: &recall.Source{ID: d.ID, Title: d.Title}})
			m.Source = d.ID
		}
		return append(out, record{line: line, memory: m}), nil
	case "turns":
		var t turnLine
		if err := strict(b, &t); err != nil {
			return bad("conversation turn: %v", err)
		}
		if t.Speaker == "" {
			return bad(`conversation turn without "speaker"`)
		}
		m := &recall.Memory{ID: t.ID, Kind: "experience", Text: t.Text, Speaker: t.Speaker, Metadata: t.Metadata}
		if m.ID == "" {
			conv := t.Conversation
			if conv == "" {
				conv = file
			}
			m.ID = fmt.Sprintf("%s:%d", conv, line)
		}
		for _, s := range []string{t.Timestamp, t.Time, t.Date} {
			if s != "" {
				at, err := cli.ParseTime(s)
				if err != nil {
					return bad("%v", err)
				}
				m.OccurredStart = &at
				break
			}
		}
		out := []record{}
		if t.Conversation != "" {
			out = append(out, record{line: line, source: &recall.Source{ID: t.Conversation, Title: t.Conversation}})
			m.Source = t.Conversation
		}
		return append(out, record{line: line, memory: m}), nil
	}
	return bad("unknown format %q: want auto, native, beir or turns", format)
}
