package eval

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/recall-engine/recall/statement"
)

// Query is one judged question of a dataset.
type Query struct {
	ID   string
	Text string
	Meta map[string]any
}

// SearchFunc returns the ranked external ids a plan retrieves for q (at least 100 when the
// system has them, for Recall@100).
type SearchFunc func(ctx context.Context, q Query, plan statement.Plan) ([]string, error)

// PlanResult is one arm of a study: its metrics (means over the queries, trec_eval
// definitions) and latency.
type PlanResult struct {
	Plan      string  `json:"plan"`
	NDCG10    float64 `json:"ndcg@10"`
	Recall10  float64 `json:"recall@10"`
	Recall100 float64 `json:"recall@100"`
	MRR10     float64 `json:"mrr@10"`
	P50ms     float64 `json:"p50_ms"`
	P95ms     float64 `json:"p95_ms"`
	perQuery  []float64
}

// Significance compares an arm's nDCG@10 with maximal's over the same queries.
type Significance struct {
	Plan        string  `json:"plan"`
	Metric      string  `json:"metric"`
	Delta       float64 `json:"delta"` // arm minus maximal
	P           float64 `json:"p"`     // paired randomization, two-sided
	PHolm       float64 `json:"p_holm"`
	Significant bool    `json:"significant"` // p_holm < 0.05
}

// Report is a study's result, written as JSON by aizk-eval bench --json.
type Report struct {
	Dataset      string         `json:"dataset"`
	Queries      int            `json:"queries"`
	Plans        []PlanResult   `json:"plans"`
	Significance []Significance `json:"significance"`
}

// Trials of the randomization test.
const Trials = 10000

// Study runs every query once per plan, in plan order, and scores each arm; progress (if
// set) is told after every query. Queries without judgments are skipped by the caller.
func Study(ctx context.Context, dataset string, queries []Query, qrels map[string]Qrels, plans []statement.Plan,
	search SearchFunc, progress func(done, total int)) (*Report, error) {
	rep := &Report{Dataset: dataset, Queries: len(queries)}
	total := len(queries) * len(plans)
	done := 0
	for _, plan := range plans {
		r := PlanResult{Plan: plan.String()}
		lat := make([]time.Duration, 0, len(queries))
		for _, q := range queries {
			t := time.Now()
			ranked, err := search(ctx, q, plan)
			lat = append(lat, time.Since(t))
			if err != nil {
				return nil, fmt.Errorf("eval: plan %s, query %s: %w", plan, q.ID, err)
			}
			rel := qrels[q.ID]
			n := NDCG(ranked, rel, 10)
			r.perQuery = append(r.perQuery, n)
			r.NDCG10 += n
			r.Recall10 += Recall(ranked, rel, 10)
			r.Recall100 += Recall(ranked, rel, 100)
			r.MRR10 += MRR(ranked, rel, 10)
			done++
			if progress != nil {
				progress(done, total)
			}
		}
		if n := float64(len(queries)); n > 0 {
			r.NDCG10 /= n
			r.Recall10 /= n
			r.Recall100 /= n
			r.MRR10 /= n
		}
		r.P50ms, r.P95ms = percentile(lat, 0.50), percentile(lat, 0.95)
		rep.Plans = append(rep.Plans, r)
	}
	rep.Significance = compare(rep.Plans)
	return rep, nil
}

// compare tests every arm against maximal (when it ran), Holm-adjusted over the arms.
func compare(plans []PlanResult) []Significance {
	var base *PlanResult
	for i := range plans {
		if plans[i].Plan == statement.Maximal.String() {
			base = &plans[i]
		}
	}
	if base == nil {
		return []Significance{}
	}
	var out []Significance
	var ps []float64
	for i := range plans {
		if &plans[i] == base {
			continue
		}
		p := PairedRandomization(plans[i].perQuery, base.perQuery, Trials, uint64(i+1))
		out = append(out, Significance{Plan: plans[i].Plan, Metric: "ndcg@10", Delta: plans[i].NDCG10 - base.NDCG10, P: p})
		ps = append(ps, p)
	}
	for i, h := range Holm(ps) {
		out[i].PHolm = h
		out[i].Significant = h < 0.05
	}
	if out == nil {
		out = []Significance{}
	}
	return out
}

func percentile(d []time.Duration, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[min(len(s)-1, int(q*float64(len(s))))].Microseconds()) / 1000
}
