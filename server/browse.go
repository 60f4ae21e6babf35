package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/records"
)

// MeResponse is GET /v1/me: who the key is and what it may do (the console shows write
// controls only to a key that may write; the routes check anyway).
type MeResponse struct {
	User     string   `json:"user"`
	Label    string   `json:"label,omitempty"`
	Read     []string `json:"read"`
	Write    []string `json:"write"`
	CanWrite bool     `json:"can_write"`
}

// BrowseRequest is the body of POST /v1/browse: the filters of Engine.Browse.
type BrowseRequest = recall.BrowseQuery

// BrowseResponse is a page of the key's memories and the sources to browse them by.
type BrowseResponse = recall.BrowseResult

// MemoryRequest is the body of POST /v1/memory: a memory's id, and optionally a scope its
// scope set holds.
type MemoryRequest struct {
	ID    string `json:"id"`
	Scope string `json:"scope,omitempty"`
}

// MemoryResponse holds the key's memories of that id (one per scope set it sees that has
// one; none: the id is not one the key can see), each with its neighbours, entities and
// relations.
type MemoryResponse struct {
	Memories []recall.MemoryDetail `json:"memories"`
}

// IngestProgress is one line of POST /v1/ingest's answer (application/x-ndjson): after each
// batch written, the lines read and what the batches wrote so far; the last line has Done,
// or Error when the load stopped (the batches before it stay written).
type IngestProgress struct {
	Lines  int                `json:"lines"`
	Bytes  int64              `json:"bytes"`
	Result recall.WriteResult `json:"result"`
	Done   bool               `json:"done,omitempty"`
	Error  *IngestError       `json:"error,omitempty"`
}

// IngestError is why an ingest stopped, with the line of the body it stopped at (0: not
// one line's fault).
type IngestError struct {
	Line int `json:"line,omitempty"`
	// LastWritten, when the body could not be read to its end (cut at the server's limit, or
	// the connection lost), is the last line whose records were written: resume after it.
	LastWritten int    `json:"last_written,omitempty"`
	Problem     string `json:"problem"`
}

func (s *Server) me(w http.ResponseWriter, _ *http.Request, k keys.Key) {
	writeJSON(w, http.StatusOK, MeResponse{User: k.User, Label: k.Label, Read: nonNil(k.Read), Write: nonNil(k.Write), CanWrite: len(k.Write) > 0})
}

// keyUser makes the key's own user: all its scopes, its label.
func keyUser(k keys.Key) func() (recall.User, *Problem) {
	return func() (recall.User, *Problem) { return userFor(k, Scopes{}, "") }
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// browse and memory read as the key's user, like a recall: the same slots and timeout.
func (s *Server) browse(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req BrowseRequest
	s.readLike(w, r, &req, keyUser(k), func(ctx context.Context, u recall.User) (any, error) {
		return s.cfg.Engine.Browse(ctx, u, req)
	})
}

func (s *Server) memory(w http.ResponseWriter, r *http.Request, k keys.Key) {
	var req MemoryRequest
	s.readLike(w, r, &req, keyUser(k), func(ctx context.Context, u recall.User) (any, error) {
		ms, err := s.cfg.Engine.Memory(ctx, u, req.ID, req.Scope)
		return MemoryResponse{Memories: ms}, err
	})
}

// ingestParams reads an ingest's ?format, ?batch and ?from_line, or the problem with one.
func ingestParams(q url.Values) (format records.Format, batch, from int, p *Problem) {
	format = records.Format(q.Get("format"))
	if format == "" {
		format = records.Auto
	}
	if !slices.Contains([]records.Format{records.Auto, records.Native, records.BEIR, records.Turns}, format) {
		return "", 0, 0, problem(http.StatusBadRequest, "invalid", fmt.Sprintf("format %q: want auto, native, beir or turns", format),
			FieldError{Field: "format", Problem: "want auto, native, beir or turns"})
	}
	batch = 500
	if b := q.Get("batch"); b != "" {
		if _, err := fmt.Sscanf(b, "%d", &batch); err != nil || batch < 1 || batch > 5000 {
			return "", 0, 0, problem(http.StatusBadRequest, "invalid", fmt.Sprintf("batch %q: want 1 to 5000", b),
				FieldError{Field: "batch", Problem: "want 1 to 5000"})
		}
	}
	if f := q.Get("from_line"); f != "" {
		if _, err := fmt.Sscanf(f, "%d", &from); err != nil || from < 1 {
			return "", 0, 0, problem(http.StatusBadRequest, "invalid", fmt.Sprintf("from_line %q: want a line number from 1", f),
				FieldError{Field: "from_line", Problem: "want a line number from 1"})
		}
	}
	return format, batch, from, nil
}

// ingest loads a JSONL body (at most MaxBody bytes) as recall ingest does (records.Load:
// native, BEIR or conversation turns; ?format=auto|native|beir|turns, ?scope=S one of the
// key's write scopes, ?duplicates=, ?duplicate_match=, ?batch= memories per transaction,
// ?from_line=N for the rest of a file from its line N), answering one IngestProgress line per
// batch written as it goes.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, k keys.Key) {
	q := r.URL.Query()
	format, batch, from, p := ingestParams(q)
	if p != nil {
		p.write(w)
		return
	}
	var scopes []string
	if sc := q.Get("scope"); sc != "" {
		scopes = []string{sc}
	}
	user, p := writerFor(k, scopes)
	if p != nil {
		p.write(w)
		return
	}
	if r.ContentLength > s.cfg.MaxBody { // declared too long: refused before anything is written
		tooLarge(s.cfg.MaxBody).write(w)
		return
	}
	release, busy := s.slot(writeCall) // a stream: it answers 200 before it runs, so it takes its slot first
	if busy != nil {
		busy.write(w)
		return
	}
	defer release()
	ctx, cancel := deadline(w, r, s.timeout(writeCall))
	defer cancel()
	proto := recall.Batch{Scopes: scopes, Duplicates: q.Get("duplicates"), DuplicateMatch: q.Get("duplicate_match")}
	// The progress lines go out while the body is still read: without full duplex, net/http
	// drains the unread body at the first write and the next read fails ("invalid Read on
	// closed Body"), which cut every body longer than one batch's worth of buffered bytes.
	if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
		info(r).err = err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	send := func(p IngestProgress) {
		_ = enc.Encode(p)
		if flusher != nil {
			flusher.Flush()
		}
	}
	body := http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	// ?from_line=N: the body is the rest of a file from its line N (a cut ingest resumed):
	// lines are numbered from N and a conversation's places continue after the stored ones.
	resume := records.Resume{From: from, Rest: true, Places: func(ctx context.Context, sources []string) (map[string]int, error) {
		return s.cfg.Engine.Places(ctx, user, scopes, sources)
	}}
	res, lines, err := records.LoadStaged(ctx, body, "body", format, batch, proto, recall.Stage(s.cfg.Engine, user), func(lines int, read int64, res recall.WriteResult) {
		send(IngestProgress{Lines: lines, Bytes: read, Result: res})
	}, resume)
	last := IngestProgress{Lines: lines, Result: res, Done: err == nil}
	if err != nil {
		info(r).err = err
		last.Error = &IngestError{Problem: err.Error()}
		var le *records.LineError
		var re *records.ReadError
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &le):
			last.Error = &IngestError{Line: le.Line, Problem: le.Problem}
		case errors.As(err, &re):
			last.Error = &IngestError{Line: re.Line, LastWritten: re.Written, Problem: re.Error()}
			if errors.As(err, &tooBig) {
				last.Error.Problem = fmt.Sprintf("the body passes %d bytes, the server's limit (--max-body), in line %d: lines through %d were written; send the rest from line %d with ?from_line=%d, or split the file",
					s.cfg.MaxBody, re.Line, re.Written, re.Written+1, re.Written+1)
			}
		default:
			if pr := problemFor(err); pr != nil {
				last.Error.Problem = pr.Detail
			}
		}
	}
	send(last)
	if errors.As(err, new(*http.MaxBytesError)) {
		// The client may still be sending what passed the limit, and net/http closes the
		// connection after a body cut at its limit: closed with unread bytes, it would be reset
		// before the client read this answer. So the rest is read and dropped first, up to
		// another MaxBody (the read deadline bounds the time).
		_, _ = io.CopyN(io.Discard, r.Body, max(s.cfg.MaxBody, 1<<20))
	}
}
