package server_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recall-engine/recall/server"
)

// TestOneKeyCannotStarveTheRest: writes are bounded apart from recalls (--max-concurrent-
// writes), so writes held up by the database do not take a recall's turn; a key over its
// share of requests gets 429 with Retry-After naming the limit, while another key's requests
// are answered.
func TestOneKeyCannotStarveTheRest(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	alt := *w
	alt.url = serveWith(t, w, server.Config{MaxConcurrentWrites: 2, KeyRate: 0.2, KeyBurst: 5, WriteTimeout: time.Minute})

	// Hold the memories against writes (reads go on): two writes wait, the third is turned
	// away at once, and a recall by another key is answered meanwhile.
	lock := lockMemories(t, w, "SHARE")
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := map[string]any{"memories": []any{map[string]any{"id": fmt.Sprintf("held-%d", i), "text": "held up"}}}
			statuses[i] = alt.do(t, "POST", "/v1/memories", w.keys["bob"], body).status
		}()
	}
	// Both writes wait on the lock, so the third finds both slots taken.
	waitOnMemories(t, w, 2)
	r := alt.do(t, "POST", "/v1/memories", w.keys["bob"], map[string]any{"memories": []any{map[string]any{"id": "third", "text": "x"}}})
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("a third write while two wait: %d %s", r.status, r.body)
	}
	if r := alt.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "crane", "budget": 100}); r.status != http.StatusOK {
		t.Fatalf("another key's recall while writes wait: %d %s", r.status, r.body)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if statuses[0] != http.StatusOK || statuses[1] != http.StatusOK {
		t.Fatalf("the held writes: %v", statuses)
	}

	// bob spends his burst (5, three of it on the writes above, refilled one every 5 s) and
	// more: some are 429 key-rate;
	// ana's requests in the same moments are all answered.
	over := 0
	for range 12 {
		r := alt.do(t, "POST", "/v1/recall", w.keys["bob"], map[string]any{"query": "crane", "budget": 50})
		if r.status == http.StatusTooManyRequests {
			if p := r.problem(t); p.Type != "urn:recall:problem:key-rate" || r.header.Get("Retry-After") == "" {
				t.Fatalf("429: %s, Retry-After %q", r.body, r.header.Get("Retry-After"))
			}
			over++
		}
	}
	if over == 0 {
		t.Fatal("12 requests on what is left of a burst of 5 were all answered")
	}
	for range 3 {
		if r := alt.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "crane", "budget": 50}); r.status != http.StatusOK {
			t.Fatalf("ana's recall while bob is over his share: %d %s", r.status, r.body)
		}
	}
}

// TestOneKeyCannotStarveTheRestOverMCP: the same over MCP: one key's remembers held up by the
// database take the write slots (a third is refused busy at once), another key's search is
// answered meanwhile, and a key past its share of requests is refused (HTTP 429 key-rate,
// before the MCP exchange) while the other key's searches go on.
func TestOneKeyCannotStarveTheRestOverMCP(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	alt := *w
	alt.url = serveWith(t, w, server.Config{MaxConcurrentWrites: 2, KeyRate: 0.2, KeyBurst: 6, WriteTimeout: time.Minute})
	bob, ana := mcpSessionAt(t, alt.url, w.keys["bob"]), mcpSessionAt(t, alt.url, w.keys["ana"])
	remember := func(id string) (*mcp.CallToolResult, error) {
		return bob.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolRemember, Arguments: map[string]any{
			"memories": []any{map[string]any{"id": id, "text": "held up"}}}})
	}
	search := func(cs *mcp.ClientSession) (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: server.ToolSearch, Arguments: map[string]any{"query": "crane", "budget": 50}})
	}
	lock := lockMemories(t, w, "SHARE")
	var wg sync.WaitGroup
	held := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := remember(fmt.Sprintf("mcp-held-%d", i))
			if err == nil && res.IsError {
				err = fmt.Errorf("tool error: %v", res.Content)
			}
			held[i] = err
		}()
	}
	waitOnMemories(t, w, 2)
	if res, err := remember("mcp-third"); err != nil || !res.IsError {
		t.Fatalf("a third remember while two wait: %v %+v, want a busy tool error", err, res)
	}
	if res, err := search(ana); err != nil || res.IsError {
		t.Fatalf("another key's search while remembers wait: %v %+v", err, res)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if held[0] != nil || held[1] != nil {
		t.Fatalf("the held remembers: %v", held)
	}
	// bob spends what is left of his burst and more: some calls are refused; ana's go on.
	over := 0
	for range 12 {
		if res, err := search(bob); err != nil || res.IsError {
			over++
		}
	}
	if over == 0 {
		t.Fatal("12 searches on what is left of a burst of 6 were all answered")
	}
	for range 3 {
		if res, err := search(ana); err != nil || res.IsError {
			t.Fatalf("ana's search while bob is over his share: %v %+v", err, res)
		}
	}
}
