package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/server"
)

// TestCitusServe: the API on a Citus coordinator whose schema is distributed. A key of one
// scope set gets the engine's pack over HTTP; a key whose read scopes see two sets gets 501
// many-scope-sets for a recall, saying what to do, and browses both sets as the engine does.
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
	r := w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "Who fixed the crane?", "budget": 300})
	if r.status != http.StatusNotImplemented {
		t.Fatalf("a recall by a key of two scope sets: status %d, body %s", r.status, r.body)
	}
	if p := r.problem(t); !strings.HasSuffix(p.Type, "many-scope-sets") || !strings.Contains(p.Detail, "one scope set") {
		t.Fatalf("a recall by a key of two scope sets: problem %+v", p)
	}
	r = w.do(t, "POST", "/v1/browse", w.keys["ana"], map[string]any{"limit": 9, "offset": 2})
	var b server.BrowseResponse
	if r.status != http.StatusOK || json.Unmarshal(r.body, &b) != nil {
		t.Fatalf("a browse by a key of two scope sets: status %d, body %s", r.status, r.body)
	}
	goRes, err := w.engine.Browse(context.Background(), recall.User{ID: "ana", Read: []string{"team", "ops"}}, recall.BrowseQuery{Limit: 9, Offset: 2})
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
