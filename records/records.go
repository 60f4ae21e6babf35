// Package records reads the record formats recall ingests, one JSON object per line, and
// maps each to the rows of a write batch (package write). One mapping per format, used by
// `recall ingest` and by aizk-eval's dataset loader alike:
//
//	native: {"type": "source"|"memory"|"entity"|"relation", ...the fields of write.Source,
//	        Memory, Entity, Relation in snake case}
//	beir:   {"_id", "title", "text", "metadata"}: a source (when titled) and a memory
//	turns:  {"speaker", "text", "date"|"time"|"timestamp", "id"?, "conversation"?,
//	        "session"?, "position"?, "expires_at"?, "valid_from"?, "valid_until"?, "supersedes"?}:
//	        a conversation turn, an experience memory spoken by speaker, in its conversation's
//	        session ("supersedes" names the ids of the memories it replaces)
//
// Turns (and BEIR records read with a session field) are memories with a place in their
// source: a Sequencer numbers them in the order it sees them, unless a record gives its
// position.
//
// With format auto, each line's keys say which it is.
package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/recall-engine/recall/internal/jsoncheck"
	"github.com/recall-engine/recall/write"
)

// Format names a record format.
type Format string

// The formats.
const (
	Auto   Format = "auto"
	Native Format = "native"
	BEIR   Format = "beir"
	Turns  Format = "turns"
)

// Record is what one line adds to a batch: exactly one of its rows is set, or, for the
// lines that frame an export, Header or End.
type Record struct {
	Line     int
	Source   *write.Source
	Memory   *write.Memory
	Entity   *write.Entity
	Relation *write.Relation
	// Header and End open and close an export (recall export): records of no row.
	Header *ExportHeader
	End    *ExportEnd
	// Ordered: the memory takes its place in its source in the order records come
	// (Sequencer), unless it has a position.
	Ordered bool
}

// Sequencer gives ordered memories their places: 1, 2, ... per source in the order it sees
// them. The zero value is ready.
type Sequencer struct{ next map[string]int }

// Place numbers r's memory when it is ordered and has no position.
func (s *Sequencer) Place(r *Record) {
	if r.Memory == nil || !r.Ordered || r.Memory.Source == "" {
		return
	}
	if s.next == nil {
		s.next = map[string]int{}
	}
	if r.Memory.Position == 0 {
		s.next[r.Memory.Source]++
		r.Memory.Position = s.next[r.Memory.Source]
		return
	}
	s.next[r.Memory.Source] = max(s.next[r.Memory.Source], r.Memory.Position)
}

// Seed continues source's places after n (the greatest place already stored), unless the
// Sequencer has numbered the source already.
func (s *Sequencer) Seed(source string, n int) {
	if s.next == nil {
		s.next = map[string]int{}
	}
	if _, ok := s.next[source]; !ok {
		s.next[source] = n
	}
}

// LineError is a malformed line: where and why.
type LineError struct {
	File    string
	Line    int
	Problem string
	// Written, from a load, is the last line whose records were written (0: none): fixed,
	// the load resumes after it (Resume.From = Written + 1).
	Written int
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem) }

// ReadError is a load stopped because its input could not be read to its end (a body cut
// at the server's limit, a connection lost): the whole lines before Line were written,
// through Written (0: none), and the load can resume from the line after Written. The line
// the read stopped in is not parsed: it may be cut.
type ReadError struct {
	File    string
	Line    int // the line being read
	Written int // the last line whose records were written (0: none)
	Err     error
}

func (e *ReadError) Error() string {
	if e.Written == 0 {
		return fmt.Sprintf("%s:%d: reading: %v (nothing written)", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: reading: %v (written through line %d: resume from line %d)", e.File, e.Line, e.Err, e.Written, e.Written+1)
}

func (e *ReadError) Unwrap() error { return e.Err }

// Options change how lines map to rows.
type Options struct {
	// SpeakerField, for BEIR records: the metadata field naming the memory's speaker.
	SpeakerField string
	// TimeField, for BEIR records: the metadata field holding the memory's occurred time.
	TimeField string
	// SessionField, for BEIR records: the metadata field naming the memory's session (a
	// conversation's), its source; the memories of a session are ordered.
	SessionField string
	// TimeLayouts are Go time layouts tried before the built-in ones (ParseTime).
	TimeLayouts []string
	// SupersedesField, for BEIR records: the metadata field listing the ids of the documents
	// the memory supersedes (Memory.Supersedes); ValidFromField the one holding when it
	// starts to hold (Memory.ValidFrom).
	SupersedesField, ValidFromField string
}

// Parse reads one line of file in format f. The line must be valid UTF-8 (JSON decoding
// would replace bad bytes with U+FFFD, silently changing what is stored); a UTF-8
// byte-order mark at the start of line 1 is skipped.
func Parse(b []byte, f Format, file string, line int, o Options) ([]Record, error) {
	bad := func(format string, args ...any) ([]Record, error) {
		return nil, &LineError{File: file, Line: line, Problem: fmt.Sprintf(format, args...)}
	}
	if line == 1 {
		b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	}
	if !utf8.Valid(b) {
		at := 0
		for at < len(b) {
			r, n := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return bad("invalid UTF-8 at byte %d of the line", at+1)
	}
	if at, lone := jsoncheck.LoneSurrogate(b); lone {
		return bad("a \\u escape of half a UTF-16 surrogate pair at byte %d of the line, which would be stored as U+FFFD", at+1)
	}
	if f == Auto {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			return bad("not a JSON object: %v", err)
		}
		switch {
		case keys["type"] != nil:
			f = Native
		case keys["_id"] != nil:
			f = BEIR
		case keys["speaker"] != nil:
			f = Turns
		default:
			return bad(`unknown record: want "type" (native), "_id" (BEIR corpus) or "speaker" (conversation turn)`)
		}
	}
	var recs []Record
	var err error
	switch f {
	case Native:
		recs, err = parseNative(b, o)
	case BEIR:
		var d Doc
		if err = strict(b, &d); err != nil {
			return bad("BEIR record: %v", err)
		}
		recs, err = d.Records(o)
	case Turns:
		recs, err = parseTurn(b, file, line, o)
	default:
		return bad("unknown format %q: want auto, native, beir or turns", f)
	}
	if err != nil {
		return bad("%v", err)
	}
	for i := range recs {
		recs[i].Line = line
	}
	return recs, nil
}

// strict decodes one JSON object into v, refusing unknown fields and trailing values.
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
