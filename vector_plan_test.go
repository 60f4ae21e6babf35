package recall_test

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/statement"
)

// TestVectorPlanIsExactSearch: the vector plan ranks a small caller's memories as an exact
// nearest-neighbour search over the same embedder does (cosine distance of the raw question's
// embedding to every visible memory's, ties by id, computed here in Go): its ranked items, in
// order, are that search's first ones; what the pack adds is attached to them as context (a
// turn's neighbour, marked) or named as a restatement, never ranked in between.
func TestVectorPlanIsExactSearch(t *testing.T) {
	t.Parallel()
	db, e := conversationEngine(t)
	conversation(t, e, 52, 4, 12)
	ctx := context.Background()
	type row struct {
		id  int64
		ext string
		vec []float32
	}
	rows, err := db.Owner.Query(ctx, `SELECT id, external_id, embedding FROM recall.memories WHERE 'team' = ANY(scopes) AND duplicate_of IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	var all []row
	for rows.Next() {
		var r row
		var v pgvector.Vector
		if err := rows.Scan(&r.id, &r.ext, &v); err != nil {
			t.Fatal(err)
		}
		r.vec = v.Slice()
		all = append(all, r)
	}
	if err := rows.Err(); err != nil || len(all) != 48 {
		t.Fatalf("%d memories (%v), want 48", len(all), err)
	}
	cosine := func(a, b []float32) float64 {
		var dot, na, nb float64
		for i := range a {
			dot += float64(a[i]) * float64(b[i])
			na += float64(a[i]) * float64(a[i])
			nb += float64(b[i]) * float64(b[i])
		}
		return 1 - dot/math.Sqrt(na*nb)
	}
	checked := 0
	for _, q := range []string{"harbor lantern", "Did Bo see the falcon near the castle?", "copper ember", "violin orchard meadow"} {
		qv, err := e.Embedder().Embed(ctx, []string{q}, embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		dist := map[int64]float64{}
		for _, r := range all {
			dist[r.id] = cosine(qv[0], r.vec)
		}
		ref := slices.Clone(all)
		slices.SortFunc(ref, func(a, b row) int { return cmp.Or(cmp.Compare(dist[a.id], dist[b.id]), cmp.Compare(a.id, b.id)) })
		p, err := e.Recall(ctx, member, q, 1_000_000, &recall.Options{Plan: statement.Only(statement.Vector)})
		if err != nil {
			t.Fatal(err)
		}
		var ranked []string
		seen := map[string]bool{}
		for _, it := range p.Items {
			seen[it.ExternalID] = true
			for _, r := range it.AlsoSaid {
				seen[r.ExternalID] = true
			}
			if it.Context == "" {
				ranked = append(ranked, it.ExternalID)
			}
		}
		// The reference without what the pack placed as context or named as said again.
		var want []string
		for _, r := range ref {
			if slices.Contains(ranked, r.ext) || !seen[r.ext] {
				want = append(want, r.ext)
			}
		}
		want = want[:min(len(want), len(ranked))]
		if !slices.Equal(ranked, want) {
			t.Fatalf("%q: the vector plan ranks\n %v\nthe exact search\n %v", q, ranked, want)
		}
		checked += len(ranked)
	}
	if checked < 100 {
		t.Fatalf("%d ranked items compared: too few to tell", checked)
	}
}
