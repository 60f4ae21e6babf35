package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestLoneSurrogatesRefused: a body that escapes half a UTF-16 surrogate pair, which JSON
// decoding would store as U+FFFD, is refused with 400 naming the body, as raw invalid UTF-8
// is: on the REST write and on MCP's endpoint; nothing is written.
func TestLoneSurrogatesRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	write := []byte(`{"memories": [{"id": "s1", "text": "broken \ud800 text"}]}`)
	r := w.do(t, "POST", "/v1/memories", w.keys["ana"], write)
	if p := r.problem(t); r.status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Field != "body" || !strings.Contains(p.Detail, "surrogate") {
		t.Fatalf("REST write with a lone surrogate: %d %s", r.status, r.body)
	}
	call := []byte(`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "remember", "arguments": {"memories": [{"id": "s2", "text": "x\udc00"}]}}}`)
	r = w.do(t, "POST", "/mcp", w.keys["ana"], call)
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "surrogate") {
		t.Fatalf("MCP call with a lone surrogate: %d %s", r.status, r.body)
	}
	var n int
	if err := w.db.Owner.QueryRow(t.Context(), `SELECT count(*) FROM recall.memories WHERE external_id IN ('s1', 's2')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d memories written: %v", n, err)
	}
	// A pair is text, and is stored as written.
	r = w.do(t, "POST", "/v1/memories", w.keys["ana"], []byte(`{"memories": [{"id": "s3", "text": "a smile \ud83d\ude00"}]}`))
	if r.status != http.StatusOK {
		t.Fatalf("a surrogate pair: %d %s", r.status, r.body)
	}
}
