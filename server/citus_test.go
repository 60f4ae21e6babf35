package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/server"
	"github.com/recall-engine/recall/statement"
)

// TestCitusServe: the API on a Citus coordinator whose schema is distributed. A key of one
// scope set gets the engine's pack over HTTP, and so does a key of two sets on one worker and
// one of two sets on two workers (read in rounds on both); ana (two sets) browses both as the
// engine does.
func TestCitusServe(t *testing.T) {
	t.Parallel()
	w := newWorldOn(t, testdb.CitusDistributed(t))
	want, err := w.engine.Recall(context.Background(), recall.User{ID: "bob", Read: []string{"other"}}, "Who fixed the crane?", 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := pack(t, w.do(t, "POST", "/v1/recall", w.keys["bob"], map[string]any{"query": "Who fixed the crane?", "budget": 300}))
	if itemIDs(got) != itemIDs(*want) || len(got.Items) == 0 {
		t.Fatalf("HTTP pack:\n%s\nGo pack:\n%s", itemIDs(got), itemIDs(*want))
	}
	// ana reads team and ops. Where both sets' shards are on one worker, her recall is read
	// there: the engine's pack. A key of two sets on two workers gets the engine's pack too.
	ctx := context.Background()
	workerOf := func(scope string) string {
		t.Helper()
		tx, err := w.db.Runtime.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck // read only
		p, err := statement.PlacementOf(ctx, tx, []string{scope})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s:%d", p.Host, p.Port)
	}
	ana := recall.User{ID: "ana", Read: []string{"team", "ops"}}
	if workerOf("team") == workerOf("ops") {
		want, err := w.engine.Recall(ctx, ana, "Who fixed the crane?", 300, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := pack(t, w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "Who fixed the crane?", "budget": 300}))
		if itemIDs(got) != itemIDs(*want) || len(got.Items) == 0 {
			t.Fatalf("HTTP pack of two sets on one worker:\n%s\nGo pack:\n%s", itemIDs(got), itemIDs(*want))
		}
	}
	// A set on the other worker than team's: the first of x0, x1, ... written there.
	var far string
	for i := 0; far == ""; i++ {
		sc := fmt.Sprintf("x%d", i)
		if i == 64 {
			t.Fatal("64 sets, all on team's worker")
		}
		if workerOf(sc) != workerOf("team") {
			far = sc
		}
	}
	if _, err := w.engine.Write(ctx, recall.User{ID: "w", Read: []string{far}, Write: []string{far}},
		recall.Batch{Scopes: []string{far}, Memories: []recall.Memory{{ID: "far-0", Text: "The far crane was fixed too."}}}); err != nil {
		t.Fatal(err)
	}
	text, _, err := keys.Create(ctx, w.db.Owner, keys.Spec{User: "split", Read: []string{"team", far}})
	if err != nil {
		t.Fatal(err)
	}
	r := w.do(t, "POST", "/v1/recall", text, map[string]any{"query": "Who fixed the crane?", "budget": 300})
	if r.status != http.StatusOK {
		t.Fatalf("a recall by a key of two scope sets on two workers: status %d, body %s", r.status, r.body)
	}
	want, err = w.engine.Recall(ctx, recall.User{ID: "split", Read: []string{"team", far}}, "Who fixed the crane?", 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Their scores may differ in the ninth digit: the recency term of a memory read before
	// decays between the two calls.
	split := pack(t, r)
	order := func(p recall.Pack) (out []string) {
		for _, it := range p.Items {
			out = append(out, it.ExternalID)
		}
		return out
	}
	if !slices.Equal(order(split), order(*want)) || !slices.Contains(order(split), "far-0") {
		t.Fatalf("HTTP pack of two sets on two workers:\n%s\nGo pack:\n%s", itemIDs(split), itemIDs(*want))
	}
	r = w.do(t, "POST", "/v1/browse", w.keys["ana"], map[string]any{"limit": 9, "offset": 2})
	var b server.BrowseResponse
	if r.status != http.StatusOK || json.Unmarshal(r.body, &b) != nil {
		t.Fatalf("a browse by a key of two scope sets: status %d, body %s", r.status, r.body)
	}
	goRes, err := w.engine.Browse(ctx, recall.User{ID: "ana", Read: []string{"team", "ops"}}, recall.BrowseQuery{Limit: 9, Offset: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range b.Memories {
		seen[m.Scopes[0]] = true
	}
	if g, w := ids(b.Memories), ids(goRes.Memories); g != w || len(b.Memories) != 9 || len(seen) != 2 {
		t.Fatalf("HTTP browse %s (scopes %v), Go %s", g, seen, w)
	}
}

// ids are the memories' ids, in order.
func ids(ms []recall.MemoryRow) string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return strings.Join(out, " ")
}
