package records

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/recall-engine/recall/write"
)

// ExportVersion is the version of the export format this package writes and reads.
const ExportVersion = 1

// ExportHeader opens an export (recall export, GET /v1/export): a native record of type
// "export". The records after it, up to its ExportEnd, restore the scope set as it was
// stored: a loader that reads it writes them with write.Batch.AsExported.
type ExportHeader struct {
	Version    int       `json:"version"`
	Scopes     []string  `json:"scopes"`     // the scope set exported
	At         time.Time `json:"at"`         // the snapshot's time
	Embeddings bool      `json:"embeddings"` // whether the memories carry their embeddings
}

// ExportEnd closes an export (a native record of type "export_end") with the count of each
// record type written since its header: a loader checks them, so a cut file is not taken for
// a whole one.
type ExportEnd struct {
	Sources   int `json:"sources"`
	Entities  int `json:"entities"`
	Memories  int `json:"memories"`
	Relations int `json:"relations"`
}

// count adds r to the counts.
func (e *ExportEnd) count(r Record) {
	switch {
	case r.Source != nil:
		e.Sources++
	case r.Entity != nil:
		e.Entities++
	case r.Memory != nil:
		e.Memories++
	case r.Relation != nil:
		e.Relations++
	}
}

// Encoder writes records as native JSONL, the format every loader reads back.
type Encoder struct {
	w   *bufio.Writer
	enc *json.Encoder
}

// NewEncoder writes to w; Flush writes what it buffered.
func NewEncoder(w io.Writer) *Encoder {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Encoder{w: bw, enc: enc}
}

// Encode writes r as one native record line.
func (e *Encoder) Encode(r Record) error {
	type (
		source struct {
			Type string `json:"type"`
			*write.Source
		}
		memory struct {
			Type string `json:"type"`
			*write.Memory
		}
		entity struct {
			Type string `json:"type"`
			*write.Entity
		}
		relation struct {
			Type string `json:"type"`
			*write.Relation
		}
		header struct {
			Type string `json:"type"`
			*ExportHeader
		}
		end struct {
			Type string `json:"type"`
			*ExportEnd
		}
	)
	var v any
	switch {
	case r.Source != nil:
		v = source{"source", r.Source}
	case r.Memory != nil:
		v = memory{"memory", r.Memory}
	case r.Entity != nil:
		v = entity{"entity", r.Entity}
	case r.Relation != nil:
		v = relation{"relation", r.Relation}
	case r.Header != nil:
		v = header{"export", r.Header}
	case r.End != nil:
		v = end{"export_end", r.End}
	default:
		return fmt.Errorf("records: an empty record")
	}
	return e.enc.Encode(v)
}

// Flush writes the buffered lines.
func (e *Encoder) Flush() error { return e.w.Flush() }

// exportState follows an export through a load: whether its header was read, the records
// counted since, whether its end was read.
type exportState struct {
	open, closed bool
	seen         ExportEnd
}

// read checks rec against the export's framing: an end last with the counts of what came
// since the header (that the header opens the file, the loader checks); it returns a
// problem, or "".
func (s *exportState) read(rec Record) string {
	switch {
	case rec.Header != nil:
		if rec.Header.Version != ExportVersion {
			return fmt.Sprintf("export version %d: this recall reads version %d", rec.Header.Version, ExportVersion)
		}
		s.open = true
	case rec.End != nil:
		if !s.open || s.closed {
			return "an export end without its header"
		}
		if *rec.End != s.seen {
			return fmt.Sprintf("the export's end counts %+v, the file holds %+v: records are missing", *rec.End, s.seen)
		}
		s.closed = true
	case s.closed:
		return "a record after the export's end"
	case s.open:
		s.seen.count(rec)
	}
	return ""
}

// cut reports an export whose end never came: the file was cut.
func (s *exportState) cut() string {
	if s.open && !s.closed {
		return fmt.Sprintf("the export ends without its end record (after %+v): the file is cut", s.seen)
	}
	return ""
}
