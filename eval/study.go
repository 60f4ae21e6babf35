package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/recall-engine/recall/statement"
)

// Query is one judged question of a dataset.
type Query struct {
	ID   string
	Text string
	Meta map[string]any
}

// SearchFunc returns the external ids a plan retrieves for q, in the order the engine returns
// them. With budget 0 it is the ranking (at least 100 when the system has them); with a
// budget, the pack of that many tokens, a run of adjacent memories counting as its memories
// in order.
type SearchFunc func(ctx context.Context, q Query, plan statement.Plan, budget int) ([]string, error)

// Options shape a study. The zero value scores nDCG@10, compares arms on it, and packs
// nothing.
type Options struct {
	// Metric is what arms are compared on (a Metrics name; "": ndcg@10).
	Metric string
	// GroupField names a query metadata field: every metric is also reported per its value.
	GroupField string
	// PackBudgets are token budgets at which the real pack's evidence recall is measured.
	PackBudgets []int
	// Progress, when set, is told after every search.
	Progress func(done, total int)
	// Retries is how many more times a failed search is tried (after 250 ms, then 500 ms, ...)
	// before it counts as failed. A search that still fails scores as a query that found
	// nothing, and the report counts it; the run stops once more than MaxFailed searches
	// have failed so (the zero value: at the first).
	Retries   int
	MaxFailed int
	// Sessions, when set, says each document's session: every query is also scored on
	// LongMemEval's measures (SessionMetrics), and the report has a table of them.
	Sessions Sessions
	// Failed, when set, is told of every failed attempt (retried says whether it will be
	// tried again).
	Failed func(arm string, q Query, budget int, err error, retried bool)
	// Baselines are arms that are not plans of the engine, run after the plans and compared
	// with maximal as they are: plain retrieval the engine must beat (aizk-eval's exact
	// vector search). Their packs are not measured.
	Baselines []Baseline
}

// A Baseline is an arm outside the engine: its name and its ranking of a query (budget is
// always 0).
type Baseline struct {
	Name   string
	Search func(ctx context.Context, q Query, budget int) ([]string, error)
}

// QueryResult is one query's outcome in one arm.
type QueryResult struct {
	ID      string             `json:"id"`
	Group   string             `json:"group,omitempty"`
	Metrics map[string]float64 `json:"metrics"`
	// Pack is the evidence recall of the pack at each budget (by its decimal string).
	Pack map[string]float64 `json:"pack,omitempty"`
	// Top is the first ten ids returned.
	Top []string `json:"top"`
	// Ms is how long the ranking took (the recall without a pack budget), in ms.
	Ms float64 `json:"ms"`
	// Failed is the error of a search that failed every try: the query scored as having
	// found nothing (its pack too, when it is the pack's search that failed).
	Failed string `json:"failed,omitempty"`
}

// PlanResult is one arm of a study: its metrics (means over the queries, trec_eval
// definitions), the same per group, the pack's evidence recall per budget, latency, and every
// query's outcome.
type PlanResult struct {
	Plan    string                        `json:"plan"`
	Metrics map[string]float64            `json:"metrics"`
	Groups  map[string]map[string]float64 `json:"groups,omitempty"`
	Pack    map[string]float64            `json:"pack,omitempty"`
	P50ms   float64                       `json:"p50_ms"`
	P95ms   float64                       `json:"p95_ms"`
	// Failed counts the searches that failed every try; Retried, the searches that failed
	// at least once.
	Failed  int           `json:"failed"`
	Retried int           `json:"retried"`
	Queries []QueryResult `json:"per_query,omitempty"`

	lastFailure string
}

// Significance compares an arm's metric with maximal's over the same queries.
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
	Metric       string         `json:"metric"`
	GroupField   string         `json:"group_field,omitempty"`
	Groups       map[string]int `json:"groups,omitempty"` // queries per group
	PackBudgets  []int          `json:"pack_budgets,omitempty"`
	Plans        []PlanResult   `json:"plans"`
	Significance []Significance `json:"significance"`
	// Stages, when the caller logged them (StageLog), are each arm's median time by stage.
	Stages []PlanStages `json:"stages,omitempty"`
}

// Trials of the randomization test.
const Trials = 10000

// Study runs every query once per plan (and once more per pack budget), in plan order, and
// scores each arm. Queries without judgments are skipped by the caller.
func Study(ctx context.Context, dataset string, queries []Query, qrels map[string]Qrels, plans []statement.Plan,
	search SearchFunc, o Options) (*Report, error) {
	if o.Metric == "" {
		o.Metric = "ndcg@10"
	}
	if MetricByName(o.Metric) == nil && (o.Sessions == nil || !IsSessionMetric(o.Metric)) {
		return nil, fmt.Errorf("eval: unknown metric %q (metrics: %s)", o.Metric, MetricNames())
	}
	rep := &Report{Dataset: dataset, Queries: len(queries), Metric: o.Metric, GroupField: o.GroupField, PackBudgets: o.PackBudgets}
	if o.GroupField != "" {
		rep.Groups = map[string]int{}
		for _, q := range queries {
			rep.Groups[group(q, o.GroupField)]++
		}
	}
	total, done := (len(queries)*len(plans)+len(queries)*len(o.Baselines))*(1+len(o.PackBudgets)), 0
	arm := func(name string, search func(ctx context.Context, q Query, budget int) ([]string, error), budgets []int) error {
		r := PlanResult{Plan: name}
		lat := make([]time.Duration, 0, len(queries))
		for _, q := range queries {
			t := time.Now()
			ranked, err := o.try(ctx, search, &r, q, 0)
			lat = append(lat, time.Since(t))
			if err != nil {
				return err
			}
			qr := QueryResult{ID: q.ID, Group: group(q, o.GroupField), Metrics: Score(ranked, qrels[q.ID]), Top: ranked[:min(10, len(ranked))],
				Ms: float64(lat[len(lat)-1]) / float64(time.Millisecond)}
			if o.Sessions != nil {
				maps.Copy(qr.Metrics, o.Sessions.Score(ranked, qrels[q.ID]))
			}
			if ranked == nil {
				qr.Failed = r.lastFailure
			}
			for _, b := range budgets {
				packed, err := o.try(ctx, search, &r, q, b)
				if err != nil {
					return err
				}
				if packed == nil && qr.Failed == "" {
					qr.Failed = r.lastFailure
				}
				if qr.Pack == nil {
					qr.Pack = map[string]float64{}
				}
				qr.Pack[strconv.Itoa(b)] = Recall(packed, qrels[q.ID], len(packed))
				done++
			}
			r.Queries = append(r.Queries, qr)
			done += 1 + len(o.PackBudgets) - len(budgets)
			if o.Progress != nil {
				o.Progress(done, total)
			}
		}
		r.summarize(o.GroupField != "")
		r.P50ms, r.P95ms = percentile(lat, 0.50), percentile(lat, 0.95)
		rep.Plans = append(rep.Plans, r)
		return nil
	}
	for _, plan := range plans {
		err := arm(plan.String(), func(ctx context.Context, q Query, budget int) ([]string, error) {
			return search(ctx, q, plan, budget)
		}, o.PackBudgets)
		if err != nil {
			return nil, err
		}
	}
	for _, b := range o.Baselines {
		if err := arm(b.Name, b.Search, nil); err != nil {
			return nil, err
		}
	}
	rep.Significance = compare(rep.Plans, o.Metric)
	return rep, nil
}

// try runs one search, again after a failure up to o.Retries times while ctx lasts. A search
// that fails every try is counted in r and returns nil ranking and nil error, unless it takes
// r's failures past o.MaxFailed (or ctx has ended): then the error stops the study.
func (o Options) try(ctx context.Context, search func(context.Context, Query, int) ([]string, error), r *PlanResult, q Query, budget int) ([]string, error) {
	for attempt := 0; ; attempt++ {
		ranked, err := search(ctx, q, budget)
		if err == nil {
			if ranked == nil {
				ranked = []string{}
			}
			return ranked, nil
		}
		where := fmt.Sprintf("plan %s, query %s", r.Plan, q.ID)
		if budget > 0 {
			where += fmt.Sprintf(", pack of %d", budget)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("eval: %s: %w", where, err)
		}
		again := attempt < o.Retries
		if o.Failed != nil {
			o.Failed(r.Plan, q, budget, err, again)
		}
		if attempt == 0 {
			r.Retried++
		}
		if !again {
			r.Failed++
			r.lastFailure = err.Error()
			if r.Failed > o.MaxFailed {
				return nil, fmt.Errorf("eval: %s: %d searches failed after %d tries each (more than the %d allowed): %w",
					where, r.Failed, o.Retries+1, o.MaxFailed, err)
			}
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("eval: %s: %w", where, err)
		case <-time.After(time.Duration(attempt+1) * 250 * time.Millisecond):
		}
	}
}

func group(q Query, field string) string {
	if field == "" {
		return ""
	}
	switch v := q.Meta[field].(type) {
	case string:
		return v
	case nil:
		return "(none)"
	default:
		return fmt.Sprint(v)
	}
}

// summarize fills the means from the per-query results.
func (r *PlanResult) summarize(groups bool) {
	mean := func(keep func(QueryResult) bool, value func(QueryResult) map[string]float64) map[string]float64 {
		sum, n := map[string]float64{}, 0
		for _, q := range r.Queries {
			if keep(q) {
				for k, v := range value(q) {
					sum[k] += v
				}
				n++
			}
		}
		for k := range sum {
			sum[k] /= float64(max(n, 1))
		}
		return sum
	}
	all := func(QueryResult) bool { return true }
	r.Metrics = mean(all, func(q QueryResult) map[string]float64 { return q.Metrics })
	if p := mean(all, func(q QueryResult) map[string]float64 { return q.Pack }); len(p) > 0 {
		r.Pack = p
	}
	if !groups {
		return
	}
	r.Groups = map[string]map[string]float64{}
	for _, q := range r.Queries {
		if _, ok := r.Groups[q.Group]; !ok {
			g := q.Group
			r.Groups[g] = mean(func(x QueryResult) bool { return x.Group == g }, func(x QueryResult) map[string]float64 { return x.Metrics })
		}
	}
}

func (r *PlanResult) perQuery(metric string) []float64 {
	out := make([]float64, len(r.Queries))
	for i, q := range r.Queries {
		out[i] = q.Metrics[metric]
	}
	return out
}

// compare tests every arm against maximal (when it ran) on metric, Holm-adjusted over the
// arms.
func compare(plans []PlanResult, metric string) []Significance {
	var base *PlanResult
	for i := range plans {
		if plans[i].Plan == statement.Maximal.String() {
			base = &plans[i]
		}
	}
	out := []Significance{}
	if base == nil {
		return out
	}
	var ps []float64
	for i := range plans {
		if &plans[i] == base {
			continue
		}
		p := PairedRandomization(plans[i].perQuery(metric), base.perQuery(metric), Trials, uint64(i+1))
		out = append(out, Significance{Plan: plans[i].Plan, Metric: metric, Delta: plans[i].Metrics[metric] - base.Metrics[metric], P: p})
		ps = append(ps, p)
	}
	for i, h := range Holm(ps) {
		out[i].PHolm = h
		out[i].Significant = h < 0.05
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

// GroupNames returns the report's groups, sorted.
func (r *Report) GroupNames() []string {
	names := make([]string, 0, len(r.Groups))
	for g := range r.Groups {
		names = append(names, g)
	}
	slices.Sort(names)
	return names
}
