package main

import (
	"bytes"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// otlpReceiver is an OTLP/HTTP trace receiver on loopback: it keeps every span it is sent
// and every request body, as a collector would receive them.
type otlpReceiver struct {
	mu     sync.Mutex
	spans  []*tracepb.Span
	bodies [][]byte
	srv    *httptest.Server
}

func newReceiver(t *testing.T) *otlpReceiver {
	o := &otlpReceiver{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
			t.Errorf("receiver: %s %s (%s): %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err)
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		o.bodies = append(o.bodies, body)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				o.spans = append(o.spans, ss.Spans...)
			}
		}
		o.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

// trace is the spans received so far of the trace id.
func (o *otlpReceiver) trace(id []byte) []*tracepb.Span {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range o.spans {
		if bytes.Equal(s.TraceId, id) {
			out = append(out, s)
		}
	}
	return out
}

func (o *otlpReceiver) received(text string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, b := range o.bodies {
		if bytes.Contains(b, []byte(text)) {
			return true
		}
	}
	return false
}

// attr is span's attribute key as text.
func attr(s *tracepb.Span, key string) string {
	for _, a := range s.Attributes {
		if a.Key != key {
			continue
		}
		switch v := a.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			return v.StringValue
		case *commonpb.AnyValue_IntValue:
			return strconv.FormatInt(v.IntValue, 10)
		}
		return a.Value.String()
	}
	return ""
}

// TestTracing: recall serve, with OTEL_EXPORTER_OTLP_ENDPOINT naming a receiver on loopback,
// exports a span for each request, continuing the caller's trace (traceparent); under it the
// recall's stages, and under those the database round trips; a write and an MCP tool call are
// spans too. No exported byte holds the user's text: not the query, not a memory, not a bind.
func TestTracing(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	rec := newReceiver(t)
	srv := serveProcess(t, db, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rec.srv.URL, "OTEL_BSP_SCHEDULE_DELAY=50"})
	const secret = "quokkazanzibar"
	srv.post(t, "/v1/memories", `{"memories": [{"id": "m1", "text": "The `+secret+` crane was fixed on Tuesday."},
		{"id": "m2", "text": "Lunch is at noon in the harbor canteen."}]}`, nil)
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	srv.post(t, "/v1/recall", `{"query": "when was the `+secret+` crane fixed?", "budget": 500}`,
		http.Header{"Traceparent": {"00-" + traceID + "-" + parentID + "-01"}})
	const mcpTrace = "5bf92f3577b34da6a3ce929d0e0e4737"
	srv.post(t, "/mcp", `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "recall_search", "arguments": {"query": "`+secret+`"}}}`,
		http.Header{"Traceparent": {"00-" + mcpTrace + "-" + parentID + "-01"}, "Accept": {"application/json, text/event-stream"}})

	id, _ := hex.DecodeString(traceID)
	byName := map[string]*tracepb.Span{}
	var spans []*tracepb.Span
	want := []string{"POST /v1/recall", "recall", "recall.embed", "recall.statement", "recall.order", "recall.pack", "recall.access"}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		spans = rec.trace(id)
		for _, s := range spans {
			byName[s.Name] = s
		}
		missing := 0
		for _, n := range want {
			if byName[n] == nil {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the trace holds %d spans, %v; want %v\n%s", len(spans), names(spans), want, srv.logs.String())
		}
	}
	root := byName["POST /v1/recall"]
	parent, _ := hex.DecodeString(parentID)
	if root.Kind != tracepb.Span_SPAN_KIND_SERVER || !bytes.Equal(root.ParentSpanId, parent) ||
		attr(root, "http.route") != "POST /v1/recall" || attr(root, "http.response.status_code") != "200" {
		t.Fatalf("request span: kind %v, parent %x, route %q, status %q", root.Kind, root.ParentSpanId, attr(root, "http.route"), attr(root, "http.response.status_code"))
	}
	recallSpan := byName["recall"]
	if !bytes.Equal(recallSpan.ParentSpanId, root.SpanId) || attr(recallSpan, "recall.budget") != "500" || attr(recallSpan, "recall.items") == "0" {
		t.Fatalf("recall span: parent %x (request %x), budget %q, items %q", recallSpan.ParentSpanId, root.SpanId, attr(recallSpan, "recall.budget"), attr(recallSpan, "recall.items"))
	}
	// The generative-AI conventions' names beside recall's: a search of memory that returned
	// the packed items.
	if attr(recallSpan, "gen_ai.operation.name") != "search_memory" || attr(recallSpan, "gen_ai.memory.record.count") != attr(recallSpan, "recall.items") {
		t.Errorf("recall span: gen_ai.operation.name %q, gen_ai.memory.record.count %q (items %q)",
			attr(recallSpan, "gen_ai.operation.name"), attr(recallSpan, "gen_ai.memory.record.count"), attr(recallSpan, "recall.items"))
	}
	for _, n := range want[2:] {
		if !bytes.Equal(byName[n].ParentSpanId, recallSpan.SpanId) {
			t.Errorf("%s is not a child of the recall span", n)
		}
	}
	// Every lane of weight above 0 (the graph lane's is 0 by default) that can find something
	// for the question: it names no time, so no temporal lane (Plan.For).
	if attr(byName["recall.statement"], "recall.plan") != "vector+bm25+mention+title+context" {
		t.Errorf("statement span: plan %q", attr(byName["recall.statement"], "recall.plan"))
	}
	// The database's round trips, under the stage that made them.
	under := map[string]int{}
	for _, s := range spans {
		if attr(s, "db.system.name") != "postgresql" {
			continue
		}
		if s.Kind != tracepb.Span_SPAN_KIND_CLIENT || attr(s, "db.operation.name") == "" || attr(s, "db.query.text") != "" {
			t.Errorf("database span %q: kind %v, operation %q, query text %q", s.Name, s.Kind, attr(s, "db.operation.name"), attr(s, "db.query.text"))
		}
		for _, st := range spans {
			if bytes.Equal(st.SpanId, s.ParentSpanId) {
				under[st.Name]++
			}
		}
	}
	if under["recall.statement"] == 0 || under["recall.access"] == 0 {
		t.Errorf("database spans by parent: %v; want some under recall.statement and recall.access", under)
	}
	// The MCP call: a tool span under its request's span, in the caller's trace.
	mid, _ := hex.DecodeString(mcpTrace)
	tool := waitSpan(t, rec, mid, "tools/call recall_search")
	if attr(tool, "gen_ai.tool.name") != "recall_search" || !hasChild(rec.trace(mid), tool, "recall") {
		t.Errorf("tool span: tool %q, children %v", attr(tool, "gen_ai.tool.name"), names(rec.trace(mid)))
	}
	// The write, a trace of its own: an upsert of two memory records; a supersede, an update
	// of one.
	write := anySpan(rec, "recall.write")
	if write == nil || attr(write, "recall.batch.memories") != "2" || attr(write, "recall.written.memories") != "2" ||
		attr(write, "gen_ai.operation.name") != "upsert_memory" || attr(write, "gen_ai.memory.record.count") != "2" {
		t.Fatalf("write span %v", write)
	}
	srv.post(t, "/v1/supersede", `{"by": "m1", "supersedes": ["m2"]}`, nil)
	if sup := anySpan(rec, "recall.supersede"); sup == nil || attr(sup, "gen_ai.operation.name") != "update_memory" || attr(sup, "gen_ai.memory.record.count") != "1" {
		t.Fatalf("supersede span %v", sup)
	}
	if rec.received(secret) || rec.received("harbor canteen") {
		t.Fatal("an exported span holds the user's text")
	}
	if !strings.Contains(srv.logs.String(), `"trace_id":"`+traceID+`"`) {
		t.Errorf("the request's log line does not name its trace:\n%s", srv.logs.String())
	}
}

// anySpan waits (10 s at most) for a span named name in any trace, and returns it (nil when
// none came).
func anySpan(rec *otlpReceiver, name string) *tracepb.Span {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rec.mu.Lock()
		for _, s := range rec.spans {
			if s.Name == name {
				rec.mu.Unlock()
				return s
			}
		}
		rec.mu.Unlock()
	}
	return nil
}

func names(spans []*tracepb.Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}

func waitSpan(t *testing.T, rec *otlpReceiver, id []byte, name string) *tracepb.Span {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, s := range rec.trace(id) {
			if s.Name == name {
				return s
			}
		}
	}
	t.Fatalf("no span %q in %v", name, names(rec.trace(id)))
	return nil
}

func hasChild(spans []*tracepb.Span, parent *tracepb.Span, name string) bool {
	for _, s := range spans {
		if s.Name == name && bytes.Equal(s.ParentSpanId, parent.SpanId) {
			return true
		}
	}
	return false
}
