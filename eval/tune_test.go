package eval_test

import (
	"math"
	"testing"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/statement"
)

// TestCoordinateAscent: on an objective with one best grid point per coordinate, coordinate
// ascent reaches it from the defaults, keeps a setting whose change would not help, and
// records each kept step with its score.
func TestCoordinateAscent(t *testing.T) {
	t.Parallel()
	target := map[string]float64{"rrf_k": 30, "weights.bm25": 0.5, "weights.vector": 1.5}
	params := eval.FusionParams()
	objective := func(s statement.Settings) float64 {
		v := 0.0
		for _, p := range params {
			if want, ok := target[p.Name]; ok {
				v -= math.Abs(p.Get(&s) - want)
			}
		}
		return v
	}
	start := statement.DefaultSettings()
	best, score, steps := eval.CoordinateAscent(start, params, objective, 5)
	if best.RRFK != 30 || best.Weights[statement.BM25] != 0.5 || best.Weights[statement.Vector] != 1.5 || score != 0 {
		t.Fatalf("best rrf_k %v weights %v score %v", best.RRFK, best.Weights, score)
	}
	if best.Weights[statement.Mention] != start.Weights[statement.Mention] {
		t.Fatal("a weight the objective ignores moved")
	}
	if len(steps) != 3 || steps[len(steps)-1].Score != 0 {
		t.Fatalf("steps %v", steps)
	}
	if again, _, more := eval.CoordinateAscent(best, params, objective, 5); again != best || len(more) != 0 {
		t.Fatalf("from the optimum: %v, steps %v", again.Weights, more)
	}
}
