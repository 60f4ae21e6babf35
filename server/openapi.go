package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/recall-engine/recall"
)

// The OpenAPI document is generated from the routes below and the Go types of the bodies
// (their JSON field names and types), so it cannot drift from them: TestOpenAPIFile fails
// when openapi.json differs from what this makes (go test ./server -run OpenAPI -update
// writes it).

type apiRoute struct {
	Method, Path, Summary string
	Auth                  bool
	Request, Response     any
	Statuses              []int // besides 200
}

var apiRoutes = []apiRoute{
	{"post", "/v1/recall", "The evidence for a question that fits the budget (the Pack).", true, RecallRequest{}, recall.Pack{},
		[]int{400, 401, 403, 413, 429, 501, 503, 504}},
	{"post", "/v1/trace", "The recall of /v1/recall, explained: every candidate, its lanes and its fate.", true, RecallRequest{}, TraceResponse{},
		[]int{400, 401, 403, 413, 429, 501, 503, 504}},
	{"post", "/v1/memories", "Write one batch of sources, memories, entities and relations: all of it or nothing.", true, WriteRequest{}, WriteResponse{},
		[]int{400, 401, 403, 413, 503, 504}},
	{"delete", "/v1/memories", "Delete memories by id (and the summaries that cover them).", true, DeleteRequest{}, DeleteResponse{}, []int{400, 401, 403, 413, 503, 504}},
	{"post", "/v1/prune", "Delete the memories of a scope set whose expires_at has passed (recall already leaves them out).", true, PruneRequest{}, PruneResponse{},
		[]int{400, 401, 403, 413, 503, 504}},
	{"post", "/v1/supersede", "Mark stored memories as superseded by a newer one of their scope set: recall then answers with the newer.", true, SupersedeRequest{}, SupersedeResponse{},
		[]int{400, 401, 403, 413, 503, 504}},
	{"post", "/v1/summarize", "Build the summaries of a scope set by session and entity community, replacing the last ones.", true, SummarizeRequest{}, SummarizeResponse{},
		[]int{400, 401, 403, 413, 503, 504}},
	{"get", "/v1/me", "Who the key is: its user, label, read and write scopes, and whether it may write.", true, nil, MeResponse{}, []int{401, 503}},
	{"post", "/v1/browse", "The key's memories by scope, source, kind, tag, text and time, newest first (a source's in place order), a page at a time, with the sources to browse them by.", true, BrowseRequest{}, BrowseResponse{},
		[]int{400, 401, 413, 429, 503, 504}},
	{"post", "/v1/memory", "The key's memories of one id, each with its neighbours in its source, its entities and their relations, its access count and last access.", true, MemoryRequest{}, MemoryResponse{},
		[]int{400, 401, 413, 429, 503, 504}},
	{"post", "/v1/ingest", "Load a JSONL body (native records, BEIR or conversation turns; ?format, ?scope, ?duplicates, ?duplicate_match, ?batch, ?from_line) as recall ingest does, answering application/x-ndjson: one IngestProgress line per batch written, the last with done or the error and its line (the batches before it stay written; a body cut at the limit names last_written: send the rest with ?from_line=last_written+1, which numbers its lines from there and continues each conversation's places after the stored ones). A body whose declared length is over the limit is refused with 413 before anything is written.", true, nil, IngestProgress{},
		[]int{400, 401, 403, 429}},
	{"delete", "/v1/scopes/{scope}", "Erase everything of one scope set (the path names it: a scope, or several joined by commas, exactly that set) in one transaction: sources, memories, summaries, entities, relations, access counts and the statistics of it, in every table; answers the receipt (each table's rows of the set, the time). An admin key only (recall keys create --admin); ?dry_run=true counts and removes nothing.", true, nil, recall.EraseReceipt{},
		[]int{400, 401, 403, 503, 504}},
	{"get", "/v1/export", "Export one scope set the key reads (?scope=a,b: exactly that set; none: the key's only write scope, else its only read scope) as application/x-ndjson native records, one snapshot: an export header, sources, entities, memories (?embeddings=true: with their embeddings), relations, and an export_end line with the counts; recall ingest and POST /v1/ingest read it back into the same rows. A stream that ends without its export_end line was cut, and a loader refuses it.", true, nil, nil,
		[]int{400, 401, 403, 429, 503, 504}},
	{"get", "/console/", "The console: static files (HTML, script, style) that call the routes above with the key its user types in.", false, nil, nil, nil},
	{"post", "/mcp", "The MCP endpoint (streamable HTTP, stateless): tools recall_search, recall_trace, recall_remember, recall_forget, recall_supersede.", true, nil, nil, []int{401}},
	{"get", "/healthz", "The process is up.", false, nil, nil, nil},
	{"get", "/readyz", "The database answers and its schema is this server's.", false, nil, nil, []int{503}},
	{"get", "/metrics", "Prometheus metrics (text format).", false, nil, nil, nil},
	{"get", "/openapi.json", "This document.", false, nil, nil, nil},
}

type schemas struct {
	defs   map[string]any
	names  map[reflect.Type]string
	prefix string // where a $ref points: "#/components/schemas/" in the document, "#/$defs/" in a tool's schema
}

func (s *schemas) name(t reflect.Type) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	n := t.Name()
	for _, used := range s.names {
		if used == n {
			pkg := t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:]
			n = strings.ToUpper(pkg[:1]) + pkg[1:] + n
		}
	}
	s.names[t] = n
	return n
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// of is the JSON schema of a value of type t, registering named structs as components.
func (s *schemas) of(t reflect.Type) map[string]any {
	switch t {
	case timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case durationType:
		return map[string]any{"type": "integer", "description": "nanoseconds"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return s.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": s.of(t.Elem())}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object"}
		}
		return map[string]any{"type": "object", "additionalProperties": s.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		n := s.name(t)
		if _, ok := s.defs[n]; !ok {
			s.defs[n] = nil // placeholder against recursion
			s.defs[n] = s.object(t)
		}
		return map[string]any{"$ref": s.prefix + n}
	}
	return map[string]any{}
}

// object is a struct's schema: its JSON fields (embedded structs inlined); a field without
// omitempty or omitzero is required.
func (s *schemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if f.Anonymous && tag == "" {
				walk(f.Type)
				continue
			}
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			props[name] = s.of(f.Type)
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				required = append(required, name)
			}
		}
	}
	walk(t)
	if t == reflect.TypeFor[recall.Item]() {
		// Item.MarshalJSON adds the lanes that found the item, by name.
		props["lanes"] = map[string]any{"type": "object", "description": "rank and score in each lane that found the item"}
	}
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// openAPI builds the document.
func openAPI() ([]byte, error) {
	s := &schemas{defs: map[string]any{}, names: map[reflect.Type]string{}, prefix: "#/components/schemas/"}
	problemRef := s.of(reflect.TypeFor[Problem]())
	paths := map[string]any{}
	for _, r := range apiRoutes {
		op := map[string]any{"summary": r.Summary}
		responses := map[string]any{}
		ok := map[string]any{"description": "OK"}
		if r.Response != nil {
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": s.of(reflect.TypeOf(r.Response))}}
		}
		responses["200"] = ok
		for _, st := range r.Statuses {
			responses[strconv.Itoa(st)] = map[string]any{"description": http.StatusText(st),
				"content": map[string]any{"application/problem+json": map[string]any{"schema": problemRef}}}
		}
		op["responses"] = responses
		if r.Request != nil {
			op["requestBody"] = map[string]any{"required": true,
				"content": map[string]any{"application/json": map[string]any{"schema": s.of(reflect.TypeOf(r.Request))}}}
		}
		if r.Auth {
			op["security"] = []any{map[string]any{"bearer": []any{}}}
		}
		var params []any
		for rest := r.Path; strings.Contains(rest, "{"); {
			_, after, _ := strings.Cut(rest, "{")
			name, tail, _ := strings.Cut(after, "}")
			params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
			rest = tail
		}
		if params != nil {
			op["parameters"] = params
		}
		p, _ := paths[r.Path].(map[string]any)
		if p == nil {
			p = map[string]any{}
			paths[r.Path] = p
		}
		p[r.Method] = op
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "recall", "version": "1",
			"description": "Recall evidence under a token budget. Every request but the health, metrics and document routes takes an API key (recall keys create) as Authorization: Bearer KEY; the key's scopes bound what it reads and writes. Errors are RFC 9457 problem+json."},
		"paths": paths,
		"components": map[string]any{
			"schemas":         s.defs,
			"securitySchemes": map[string]any{"bearer": map[string]any{"type": "http", "scheme": "bearer"}},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}

// toolSchema is the JSON Schema of an MCP tool's structured result, v's type, from the same
// generator as the OpenAPI document: the object itself, the types it refers to in $defs.
func toolSchema(v any) map[string]any {
	s := &schemas{defs: map[string]any{}, names: map[reflect.Type]string{}, prefix: "#/$defs/"}
	root := s.object(reflect.TypeOf(v))
	if len(s.defs) > 0 {
		root["$defs"] = s.defs
	}
	return root
}
