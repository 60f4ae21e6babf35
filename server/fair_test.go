package server_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

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
	lock, err := w.db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx) //nolint:errcheck // released below
	if _, err := lock.Exec(ctx, `LOCK TABLE recall.memories IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
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
	// On a loaded machine the two writes can take seconds to reach the lock: wait for both
	// (well inside the write timeout), so the third finds both slots taken.
	for start, waiting := time.Now(), 0; waiting < 2; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 45*time.Second {
			t.Fatalf("after 45 s, %d of the two held writes wait on the lock", waiting)
		}
		if err := w.db.Owner.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'recall.memories'::regclass`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
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
