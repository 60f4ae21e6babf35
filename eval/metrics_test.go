package eval

import (
	"math"
	"testing"
)

// Hand-computed cases.
func TestMetrics(t *testing.T) {
	rel := Qrels{"a": 1, "c": 2, "x": 1, "z": 0}
	ranked := []string{"b", "c", "z", "a", "d"}
	// DCG@5 = 2/log2(3) + 1/log2(5); ideal = 2/log2(2) + 1/log2(3) + 1/log2(4).
	dcg := 2/math.Log2(3) + 1/math.Log2(5)
	ideal := 2.0 + 1/math.Log2(3) + 0.5
	cases := []struct {
		name      string
		got, want float64
	}{
		{"ndcg@5", NDCG(ranked, rel, 5), dcg / ideal},
		{"ndcg@1", NDCG(ranked, rel, 1), 0},
		// At k=2 the ideal list is cut too: 2/1 + 1/log2(3).
		{"ndcg@2", NDCG(ranked, rel, 2), (2 / math.Log2(3)) / (2 + 1/math.Log2(3))},
		{"recall@2", Recall(ranked, rel, 2), 1.0 / 3},
		{"recall@10", Recall(ranked, rel, 10), 2.0 / 3},
		{"mrr@10", MRR(ranked, rel, 10), 0.5},
		{"mrr@1", MRR(ranked, rel, 1), 0},
		{"no relevant", NDCG(ranked, Qrels{"z": 0}, 10), 0},
		{"perfect", NDCG([]string{"c", "a", "x"}, rel, 10), 1},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
}
