package statement_test

import (
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestPlanForDropsOnlyIdleLanes: a question without a time window runs the plan without the
// temporal lane and gets the same candidates, row for row (ranks, scores, RRF, fused score,
// every lane's rank and score), as the plan with it; a question with a window keeps the lane
// and finds memories by it; a plan of the temporal lane alone is kept whole.
func TestPlanForDropsOnlyIdleLanes(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 200, seed: 31, dim: dim, base: base}.load(t, db.Runtime)
	s := statement.DefaultSettings()
	plan := s.Narrow(statement.Maximal)
	q := statement.Query{
		Text: "apple river violin harbor Alice", Raw: "What did Alice Martin say about apple river?",
		Vector: unitVector(32, dim), Now: base.Add(400 * 24 * time.Hour),
	}
	idle := plan.For(q)
	if idle != plan&^statement.Only(statement.Temporal) || !plan.Has(statement.Temporal) {
		t.Fatalf("plan %v for a question without a window: %v", plan, idle)
	}
	with, without := run(t, db, []string{"acme"}, plan, q, s), run(t, db, []string{"acme"}, idle, q, s)
	if len(with) < 20 || len(with) != len(without) {
		t.Fatalf("with the temporal lane %d candidates, without %d (want at least 20)", len(with), len(without))
	}
	for i := range with {
		a, b := with[i], without[i]
		if a.ID != b.ID || a.RRF != b.RRF || a.Score != b.Score || a.Lanes != b.Lanes || len(a.Context) != len(b.Context) {
			t.Fatalf("row %d: with the lane %d (rrf %v, lanes %v), without %d (rrf %v, lanes %v)", i, a.ID, a.RRF, a.Lanes, b.ID, b.RRF, b.Lanes)
		}
	}

	q.WindowStart, q.WindowEnd = base.Add(30*24*time.Hour), base.Add(40*24*time.Hour)
	if plan.For(q) != plan {
		t.Fatalf("a question with a window: %v, want %v", plan.For(q), plan)
	}
	found := 0
	for _, c := range run(t, db, []string{"acme"}, plan, q, s) {
		if c.Lanes[statement.Temporal].Rank > 0 {
			found++
		}
	}
	if found == 0 {
		t.Fatal("with a window the temporal lane found nothing: the fixture does not test what it drops")
	}
	if only := statement.Only(statement.Temporal); only.For(statement.Query{}) != only {
		t.Fatalf("the temporal lane alone: %v", only.For(statement.Query{}))
	}
}
