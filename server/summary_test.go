package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/server"
)

// TestSummariesOverHTTP: POST /v1/summarize builds a scope's summaries as the key (only in
// scopes it writes), a summary written through POST /v1/memories carries its coverage, and
// POST /v1/recall takes the altitude and the graph context and answers with the same pack
// as Go, its sources listed once.
func TestSummariesOverHTTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	// A session of the team's: one source, ordered turns.
	var mems []map[string]any
	var ids []string
	for i := 1; i <= 5; i++ {
		id := fmt.Sprintf("turn-%d", i)
		ids = append(ids, id)
		mems = append(mems, map[string]any{"id": id, "source": "standup", "position": i,
			"text": fmt.Sprintf("Alice Martin checked crane %d at the harbor. The storm moved east.", i)})
	}
	r := w.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"sources": []any{map[string]any{"id": "standup", "title": "Standup"}}, "memories": mems})
	if r.status != http.StatusOK {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	// A summary written by hand covers two turns.
	r = w.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"memories": []any{
		map[string]any{"id": "digest", "kind": "summary", "text": "Alice checked the cranes.", "covers": ids[:2]}}})
	var wr server.WriteResponse
	if err := json.Unmarshal(r.body, &wr); r.status != http.StatusOK || err != nil || wr.Covered != 2 {
		t.Fatalf("summary write: %d %s", r.status, r.body)
	}
	// Summarize: only where the key writes.
	if r := w.do(t, "POST", "/v1/summarize", w.keys["reader"], map[string]any{}); r.status != http.StatusForbidden {
		t.Errorf("a read-only key summarizing: %d %s", r.status, r.body)
	}
	if r := w.do(t, "POST", "/v1/summarize", w.keys["ana"], map[string]any{"by": []string{"topic"}}); r.status != http.StatusBadRequest {
		t.Errorf("by topic: %d %s", r.status, r.body)
	}
	r = w.do(t, "POST", "/v1/summarize", w.keys["ana"], map[string]any{"by": []string{"session"}, "max_tokens": 40})
	var sr server.SummarizeResponse
	if err := json.Unmarshal(r.body, &sr); r.status != http.StatusOK || err != nil || sr.Written != 1 || sr.Groups["session"] != 1 || sr.Covered != 5 {
		t.Fatalf("summarize: %d %s", r.status, r.body)
	}
	ana := recall.User{ID: "ana", Read: []string{"team", "ops"}, Write: []string{"team"}}
	for _, alt := range []recall.Altitude{recall.AltitudeAuto, recall.AltitudeMemories, recall.AltitudeSummaries} {
		q := "Who checked the crane at the harbor?"
		got := pack(t, w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": q, "budget": 60, "altitude": alt, "graph_context": true}))
		want, err := w.engine.Recall(ctx, ana, q, 60, &recall.Options{Altitude: alt, GraphContext: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Altitude != alt || !slices.Equal(got.IDs(), want.IDs()) || len(got.Climbs) != len(want.Climbs) || len(got.GraphContext) != len(want.GraphContext) {
			t.Fatalf("%s: HTTP pack %s (climbs %v), Go pack %s (climbs %v)", alt, itemIDs(got), got.Climbs, itemIDs(*want), want.Climbs)
		}
		seen := map[int64]bool{}
		for _, s := range got.Sources {
			if seen[s.ID] {
				t.Errorf("%s: source %d listed twice", alt, s.ID)
			}
			seen[s.ID] = true
		}
		for _, it := range got.Items {
			if it.SourceID != 0 && !seen[it.SourceID] {
				t.Errorf("%s: item %s points at source %d, not in the pack's sources", alt, it.ExternalID, it.SourceID)
			}
			if alt == recall.AltitudeMemories && it.Kind == "summary" {
				t.Errorf("memories altitude packed summary %s", it.ExternalID)
			}
		}
		if alt == recall.AltitudeSummaries && !slices.ContainsFunc(got.Items, func(it recall.Item) bool { return it.Kind == "summary" }) {
			t.Errorf("summaries altitude packed no summary: %s", itemIDs(got))
		}
	}
	r = w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "crane", "budget": 60, "altitude": "tenant"})
	if p := r.problem(t); r.status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Field != "altitude" {
		t.Errorf("altitude tenant: %d %s", r.status, r.body)
	}
}

// TestGraphContextListed: a recall that asks for the graph context gets the list, [] when
// nothing fits or relates; one that does not ask gets no list.
func TestGraphContextListed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	r := w.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"memories": []any{
		map[string]any{"id": "note", "text": "the storm moved east over the water"}}})
	if r.status != http.StatusOK {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	for _, asked := range []bool{true, false} {
		r := w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": "where did the storm move?", "budget": 200, "graph_context": asked})
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &body); r.status != http.StatusOK || err != nil {
			t.Fatalf("recall: %d %s", r.status, r.body)
		}
		got, present := body["graph_context"]
		switch {
		case asked && string(got) != "[]":
			t.Errorf("graph context asked for, none relates: graph_context %s, want []", got)
		case !asked && present:
			t.Errorf("graph context not asked for: graph_context %s, want no field", got)
		}
	}
}
