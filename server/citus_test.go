package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestCitusServe: the API on a Citus coordinator whose schema is distributed. A key of one
// scope set gets the engine's pack over HTTP; a key whose read scopes see two sets gets 501
// many-scope-sets, saying what to do, for a recall and a browse alike.
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
	for _, call := range []struct {
		path string
		body map[string]any
	}{
		{"/v1/recall", map[string]any{"query": "Who fixed the crane?", "budget": 300}},
		{"/v1/browse", map[string]any{"limit": 5}},
	} {
		r := w.do(t, "POST", call.path, w.keys["ana"], call.body)
		if r.status != http.StatusNotImplemented {
			t.Fatalf("%s by a key of two scope sets: status %d, body %s", call.path, r.status, r.body)
		}
		if p := r.problem(t); !strings.HasSuffix(p.Type, "many-scope-sets") || !strings.Contains(p.Detail, "one scope set") {
			t.Fatalf("%s: problem %+v", call.path, p)
		}
	}
}
