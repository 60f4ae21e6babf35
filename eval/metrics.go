// Package eval measures retrieval quality: trec_eval's metrics over a ranked list and graded
// relevance judgments (qrels), and BEIR-format datasets.
package eval

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Qrels are relevance judgments for one query: document id -> grade (> 0 relevant).
type Qrels map[string]int

// NDCG is trec_eval's ndcg_cut.k: DCG = sum over the first k ranks of grade / log2(rank + 1),
// divided by the DCG of the ideal order of the judged grades (cut at k as well). 0 when the
// query has no relevant document.
func NDCG(ranked []string, rel Qrels, k int) float64 {
	var dcg float64
	for i, id := range ranked[:min(k, len(ranked))] {
		if g := rel[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var grades []int
	for _, g := range rel {
		if g > 0 {
			grades = append(grades, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	var ideal float64
	for i, g := range grades[:min(k, len(grades))] {
		ideal += float64(g) / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// Recall is the share of relevant documents found in the first k ranks.
func Recall(ranked []string, rel Qrels, k int) float64 {
	total := 0
	for _, g := range rel {
		if g > 0 {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(total)
}

// MRR is the reciprocal rank of the first relevant document within the first k ranks, 0
// when none is there.
func MRR(ranked []string, rel Qrels, k int) float64 {
	for i, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// A Metric scores one ranked list against a query's judgments.
type Metric struct {
	Name string
	Fn   func(ranked []string, rel Qrels) float64
}

// Metrics are the metrics every study reports, in report order.
var Metrics = []Metric{
	{"ndcg@10", func(r []string, q Qrels) float64 { return NDCG(r, q, 10) }},
	{"recall@5", func(r []string, q Qrels) float64 { return Recall(r, q, 5) }},
	{"recall@10", func(r []string, q Qrels) float64 { return Recall(r, q, 10) }},
	{"recall@25", func(r []string, q Qrels) float64 { return Recall(r, q, 25) }},
	{"recall@50", func(r []string, q Qrels) float64 { return Recall(r, q, 50) }},
	{"recall@100", func(r []string, q Qrels) float64 { return Recall(r, q, 100) }},
	{"mrr@10", func(r []string, q Qrels) float64 { return MRR(r, q, 10) }},
}

// Current is 1 when a relevant document is in the first k ranks and no document judged
// stale (a negative judgment: a fact that no longer holds) is, else 0: whether the top k
// holds the current fact and not the one it replaced.
func Current(ranked []string, rel Qrels, k int) float64 {
	found := false
	for _, id := range ranked[:min(k, len(ranked))] {
		switch g := rel[id]; {
		case g < 0:
			return 0
		case g > 0:
			found = true
		}
	}
	if found {
		return 1
	}
	return 0
}

// StaleMetrics are scored, and reported, for queries whose judgments mark stale documents
// (a negative score in the qrels: aizk-eval updates writes such data); a study's mean counts
// a query without such judgments as 0.
var StaleMetrics = []Metric{
	{"current@5", func(r []string, q Qrels) float64 { return Current(r, q, 5) }},
	{"current@10", func(r []string, q Qrels) float64 { return Current(r, q, 10) }},
}

// hasStale reports whether rel judges a document stale.
func hasStale(rel Qrels) bool {
	for _, g := range rel {
		if g < 0 {
			return true
		}
	}
	return false
}

// MetricByName returns the metric called name, or nil.
func MetricByName(name string) *Metric {
	for _, list := range [][]Metric{Metrics, StaleMetrics} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// MetricNames lists the metrics' names, comma-separated.
func MetricNames() string {
	var b strings.Builder
	for i, m := range append(slices.Clone(Metrics), StaleMetrics...) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Name)
	}
	return b.String()
}

// Score returns every metric of ranked against rel, and the stale metrics when rel judges a
// document stale.
func Score(ranked []string, rel Qrels) map[string]float64 {
	out := make(map[string]float64, len(Metrics))
	for _, m := range Metrics {
		out[m.Name] = m.Fn(ranked, rel)
	}
	if hasStale(rel) {
		for _, m := range StaleMetrics {
			out[m.Name] = m.Fn(ranked, rel)
		}
	}
	return out
}

// reported are the metrics a report shows: every one, and the stale metrics when a plan has
// them.
func reported(plans []PlanResult) []Metric {
	out := slices.Clone(Metrics)
	for _, m := range StaleMetrics {
		for _, p := range plans {
			if _, ok := p.Metrics[m.Name]; ok {
				out = append(out, m)
				break
			}
		}
	}
	return out
}
