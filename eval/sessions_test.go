package eval

import (
	"math"
	"testing"
)

// TestSessionMetrics checks LongMemEval's measures against values worked out by hand from
// its definitions (eval_utils.py's evaluate_retrieval and evaluate_retrieval_turn2session).
func TestSessionMetrics(t *testing.T) {
	t.Parallel()
	sessions := Sessions{"a:1": "A", "a:2": "A", "b:1": "B", "c:1": "C", "c:2": "C", "d:1": "D", "e:1": "E", "f:1": "F", "g:1": "G"}
	for name, c := range map[string]struct {
		ranked []string
		rel    Qrels
		want   map[string]float64
	}{
		"evidence high": {
			ranked: []string{"a:1", "b:1", "a:2", "c:2", "c:1", "d:1"},
			rel:    Qrels{"a:2": 1, "c:1": 1, "x": 0},
			want: map[string]float64{
				"turn_recall_any@5": 1, "turn_recall_all@5": 1, "turn_recall_all@10": 1,
				// (1/log2 4 + 1/log2 6) / (1 + 1/log2 3)
				"turn_ndcg_any@10": 0.543771,
				// the ranking ends before it names five sessions: k' is all six turns
				"session_recall_any@5": 1, "session_recall_all@5": 1,
				// turns 1, 3, 4, 5 are of evidence sessions A and C, which hold four turns
				"session_ndcg_any@5": 0.904717, "session_ndcg_any@10": 0.904717,
			},
		},
		"evidence late": {
			ranked: []string{"c:1", "c:2", "d:1", "e:1", "f:1", "g:1", "a:2"},
			rel:    Qrels{"a:2": 1, "b:1": 1},
			want: map[string]float64{
				"turn_recall_any@5": 0, "turn_recall_any@10": 1, "turn_recall_all@10": 0,
				"turn_ndcg_any@10": 0.204382, // (1/log2 8) / (1 + 1/log2 3)
				// five sessions are named by the first six turns: a:2, the seventh, is out
				"session_recall_any@5": 0, "session_ndcg_any@5": 0,
				"session_recall_any@10": 1, "session_recall_all@10": 0,
				"session_ndcg_any@10": 0.156427, // (1/log2 8) / (1 + 1/log2 3 + 1/2): A's two turns and B's one
			},
		},
		"nothing found": {
			ranked: nil,
			rel:    Qrels{"a:2": 1},
			want:   map[string]float64{"turn_recall_any@5": 0, "session_recall_any@5": 0, "session_ndcg_any@10": 0, "turn_ndcg_any@10": 0},
		},
	} {
		got := sessions.Score(c.ranked, c.rel)
		for m, w := range c.want {
			if math.Abs(got[m]-w) > 1e-6 {
				t.Errorf("%s: %s = %.6f, want %.6f", name, m, got[m], w)
			}
		}
		if len(got) != len(SessionMetrics) {
			t.Errorf("%s: %d measures, want %d", name, len(got), len(SessionMetrics))
		}
	}
}
