package eval

import (
	"math"
	"strings"
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

// TestCurrent: the top k must hold a relevant document and no stale one (a negative
// judgment); the stale metrics are scored only for judgments that mark one stale.
func TestCurrent(t *testing.T) {
	rel := Qrels{"new": 1, "old": -1, "older": -1}
	for _, c := range []struct {
		ranked []string
		k      int
		want   float64
	}{
		{[]string{"x", "new", "y"}, 5, 1},
		{[]string{"x", "new", "old"}, 5, 0},
		{[]string{"old", "new"}, 5, 0},
		{[]string{"new", "a", "b", "c", "d", "older"}, 5, 1},
		{[]string{"a", "b", "c", "d", "e", "new"}, 5, 0},
		{nil, 5, 0},
	} {
		if got := Current(c.ranked, rel, c.k); got != c.want {
			t.Errorf("%v at %d: %v, want %v", c.ranked, c.k, got, c.want)
		}
	}
	if s := Score([]string{"new"}, rel); s["current@5"] != 1 || s["current@10"] != 1 {
		t.Errorf("scores with stale judgments: %v", s)
	}
	if s := Score([]string{"new"}, Qrels{"new": 1}); len(s) != len(Metrics) {
		t.Errorf("scores without stale judgments: %v", s)
	}
	if MetricByName("current@5") == nil || !strings.Contains(MetricNames(), "current@10") {
		t.Error("the stale metrics are not named")
	}
}
