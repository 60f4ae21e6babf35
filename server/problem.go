package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/jsoncheck"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/statement"
)

// Problem is an RFC 9457 problem detail (application/problem+json).
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`

	retryAfter int // seconds, for 429 and 503
}

// FieldError names a field of the request and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
	Limit   int    `json:"limit,omitempty"`
}

// problemPrefix begins every problem type; the rest names the kind.
const problemPrefix = "urn:recall:problem:"

func problem(status int, kind, detail string, fields ...FieldError) *Problem {
	return &Problem{Type: problemPrefix + kind, Title: http.StatusText(status), Status: status, Detail: detail, Errors: fields}
}

func (p *Problem) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/problem+json")
	if p.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(p.retryAfter))
	}
	if p.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="recall"`)
	}
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// errorKind names an error's kind for the metrics and the log: its problem's type
// (invalid-input, invalid-batch, invalid-line, dimension, timeout, canceled, schema, internal).
func errorKind(err error) string {
	return strings.TrimPrefix(problemFor(err).Type, problemPrefix)
}

// statusClientClosed answers a request whose client went away before the answer (nginx's
// 499: no client reads it; logs and metrics tell it from a timeout).
const statusClientClosed = 499

// problemFor maps an engine error to a problem: bad input is 400 with the field named, a
// call refused for want of a slot 429, a body over its limit 413, a deadline 504, a
// connection to the database lost or refused, a read-only database or a schema out of date
// 503 (with Retry-After), a read across scope sets on Citus 501, anything else 500 (its text
// is logged, not sent).
func problemFor(err error) *Problem {
	var ie *recall.InputError
	var we *recall.WriteError
	var de *recall.DimensionError
	var fe *statement.FilterError
	var tooBig *http.MaxBytesError
	var le *records.LineError
	if p, ok := asBusy(err); ok {
		return p
	}
	switch {
	case errors.As(err, &ie):
		return problem(http.StatusBadRequest, "invalid-input", ie.Error(), FieldError{Field: ie.Field, Problem: ie.Problem, Limit: ie.Limit})
	case errors.As(err, &fe):
		return problem(http.StatusBadRequest, "invalid-input", fe.Error(), FieldError{Field: "filters." + fe.Field, Problem: fe.Problem})
	case errors.As(err, &we):
		return problem(http.StatusBadRequest, "invalid-batch", we.Error(), FieldError{Field: we.Item + "." + we.Field, Problem: we.Problem})
	case errors.As(err, &de):
		return problem(http.StatusBadRequest, "dimension", de.Error())
	case errors.As(err, &le): // an ingest's line (the answer is its progress line; the log's kind says whose fault)
		return problem(http.StatusBadRequest, "invalid-line", le.Error(), FieldError{Field: fmt.Sprintf("line %d", le.Line), Problem: le.Problem})
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, recall.ErrTimeout):
		return problem(http.StatusGatewayTimeout, "timeout", "the request took longer than the server's limit")
	case errors.Is(err, context.Canceled):
		return problem(statusClientClosed, "canceled", "the client went away before the answer")
	case dberr.Unavailable(err):
		p := problem(http.StatusServiceUnavailable, "unavailable", "the database connection was lost or refused (a restart, a terminated backend): retry; a write that failed so stored nothing")
		p.retryAfter = 1
		return p
	case errors.As(err, &tooBig):
		return tooLarge(tooBig.Limit)
	case errors.Is(err, recall.ErrReadOnly):
		p := problem(http.StatusServiceUnavailable, "read-only", "the database is read-only (a standby, or set read-only): writes cannot be taken now")
		p.retryAfter = 30
		return p
	case errors.Is(err, recall.ErrManySets):
		return problem(http.StatusNotImplemented, "many-scope-sets",
			"this server reads a Citus cluster through its coordinator only (routed reads), where a recall is of one scope set, and this key's read scopes see several: narrow the request's read scopes to one set's, or serve without routed reads (docs/SCALING.md)")
	case errors.Is(err, recall.ErrSchema):
		p := problem(http.StatusServiceUnavailable, "schema", "the database's schema is not this server's: run recall migrate up")
		p.retryAfter = 30
		return p
	}
	return problem(http.StatusInternalServerError, "internal", "the server failed; its log says why")
}

// decode reads a JSON body of at most limit bytes into v: 413 over the limit, 400 for
// invalid UTF-8 (which encoding/json would silently replace), malformed JSON, a wrong type
// (the field named), an unknown field, or anything after the value.
func decode(w http.ResponseWriter, r *http.Request, limit int64, v any) *Problem {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return tooLarge(limit)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return problemFor(context.DeadlineExceeded)
	}
	if err != nil {
		return problem(http.StatusBadRequest, "malformed", "reading the body: "+err.Error())
	}
	if !utf8.Valid(body) {
		return problem(http.StatusBadRequest, "malformed", "the body is not valid UTF-8",
			FieldError{Field: "body", Problem: "invalid UTF-8"})
	}
	if at, lone := jsoncheck.LoneSurrogate(body); lone {
		return problem(http.StatusBadRequest, "malformed", fmt.Sprintf("the body escapes half a UTF-16 surrogate pair at byte %d, which would be stored as U+FFFD", at+1),
			FieldError{Field: "body", Problem: "a lone surrogate escape"})
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonProblem(err)
	}
	if dec.More() {
		return problem(http.StatusBadRequest, "malformed", "more than one JSON value in the body", FieldError{Field: "body", Problem: "trailing data"})
	}
	return nil
}

// tooLarge is the answer to a body over limit bytes.
func tooLarge(limit int64) *Problem {
	return problem(http.StatusRequestEntityTooLarge, "too-large", fmt.Sprintf("the body is over %d bytes", limit),
		FieldError{Field: "body", Problem: "too large", Limit: int(limit)})
}

func jsonProblem(err error) *Problem {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return problem(http.StatusBadRequest, "malformed", err.Error(),
			FieldError{Field: field, Problem: fmt.Sprintf("want %s, got JSON %s", te.Type, te.Value)})
	case errors.As(err, &se):
		return problem(http.StatusBadRequest, "malformed", err.Error(),
			FieldError{Field: "body", Problem: fmt.Sprintf("malformed JSON at byte %d", se.Offset)})
	case errors.Is(err, io.EOF):
		return problem(http.StatusBadRequest, "malformed", "the body is empty", FieldError{Field: "body", Problem: "empty"})
	}
	// encoding/json says `json: unknown field "x"` for DisallowUnknownFields.
	if name, ok := unknownField(err.Error()); ok {
		return problem(http.StatusBadRequest, "malformed", err.Error(), FieldError{Field: name, Problem: "unknown field"})
	}
	return problem(http.StatusBadRequest, "malformed", err.Error(), FieldError{Field: "body", Problem: err.Error()})
}

func unknownField(msg string) (string, bool) {
	const p = `json: unknown field "`
	if len(msg) > len(p)+1 && msg[:len(p)] == p && msg[len(msg)-1] == '"' {
		return msg[len(p) : len(msg)-1], true
	}
	return "", false
}
