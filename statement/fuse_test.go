package statement_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestFuseMatchesStatement: fusing every lane's candidates in Go gives the statement's own
// fused order and RRF sums, to the last bit, for random weights and RRF constants.
func TestFuseMatchesStatement(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 200, seed: 5, dim: dim, base: base}.load(t, db.Runtime)
	q := statement.Query{
		Text: "apple river violin harbor Alice", Raw: "What did Alice Martin say in Notes on apple river?",
		Vector: unitVector(6, dim), WindowStart: base.Add(30 * 24 * time.Hour), WindowEnd: base.Add(40 * 24 * time.Hour),
		Now: base.Add(400 * 24 * time.Hour),
	}
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 8 {
		s := statement.DefaultSettings()
		s.RRFK = []float64{1, 5, 20, 60, 200}[trial%5]
		for l := range s.Weights {
			s.Weights[l] = []float64{0, 0.1, 0.35, 1, 2.5}[r.IntN(5)]
		}
		s.K = 40
		all := s
		all.K = s.TraceK(statement.Maximal)
		cands := run(t, db, []string{"acme"}, statement.Maximal, q, all)
		want := run(t, db, []string{"acme"}, statement.Maximal, q, s)
		got := statement.Fuse(cands, s, q.Now)
		if len(got) != len(want) || len(want) < 20 {
			t.Fatalf("trial %d: Fuse kept %d, the statement %d", trial, len(got), len(want))
		}
		for i := range want {
			if got[i].ID != want[i].ID || got[i].RRF != want[i].RRF || got[i].Score != want[i].Score {
				t.Fatalf("trial %d (k %v, weights %v): row %d: Fuse %d rrf %v score %v, statement %d rrf %v score %v",
					trial, s.RRFK, s.Weights, i, got[i].ID, got[i].RRF, got[i].Score, want[i].ID, want[i].RRF, want[i].Score)
			}
		}
	}
}
