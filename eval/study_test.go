package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/statement"
)

// TestStudy runs a study over a scripted search: maximal ranks each query's relevant
// document first, the bm25 arm second, the vector arm never.
func TestStudy(t *testing.T) {
	t.Parallel()
	var queries []eval.Query
	qrels := map[string]eval.Qrels{}
	for i, id := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"} {
		queries = append(queries, eval.Query{ID: id, Meta: map[string]any{"kind": []string{"a", "b"}[i%2]}})
		qrels[id] = eval.Qrels{"rel-" + id: 1}
	}
	packs := map[int]int{}
	search := func(_ context.Context, q eval.Query, plan statement.Plan, budget int) ([]string, error) {
		var out []string
		switch plan {
		case statement.Maximal:
			out = []string{"rel-" + q.ID, "x", "y"}
		case statement.Only(statement.BM25):
			out = []string{"x", "rel-" + q.ID, "y"}
		default:
			out = []string{"x", "y"}
		}
		if budget > 0 { // a pack of budget/100 items
			packs[budget]++
			out = out[:min(len(out), budget/100)]
		}
		return out, nil
	}
	plans := []statement.Plan{statement.Maximal, statement.Only(statement.BM25), statement.Only(statement.Vector)}
	calls := 0
	rep, err := eval.Study(context.Background(), "toy", queries, qrels, plans, search,
		eval.Options{GroupField: "kind", PackBudgets: []int{100, 200}, Progress: func(done, total int) { calls = done }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 72 || packs[100] != 24 || packs[200] != 24 || rep.Queries != 8 || len(rep.Plans) != 3 {
		t.Fatalf("calls %d, packs %v, report %+v", calls, packs, rep)
	}
	// bm25 puts the one relevant document at rank 2: nDCG = 1/log2(3), MRR = 1/2; its pack of
	// one item misses it, of two finds it.
	bm := rep.Plans[1]
	if math.Abs(bm.Metrics["ndcg@10"]-1/math.Log2(3)) > 1e-12 || bm.Metrics["mrr@10"] != 0.5 || bm.Metrics["recall@10"] != 1 ||
		rep.Plans[0].Metrics["ndcg@10"] != 1 || rep.Plans[2].Metrics["ndcg@10"] != 0 || bm.Pack["100"] != 0 || bm.Pack["200"] != 1 {
		t.Fatalf("plans %+v", rep.Plans)
	}
	if len(bm.Queries) != 8 || bm.Queries[1].Group != "b" || bm.Queries[1].Top[1] != "rel-q2" || rep.Groups["a"] != 4 ||
		math.Abs(bm.Groups["a"]["ndcg@10"]-1/math.Log2(3)) > 1e-12 {
		t.Fatalf("per query %+v, groups %v %v", bm.Queries[1], rep.Groups, bm.Groups)
	}
	// Both arms lose on every one of 8 queries: p = 2/256 exactly, about 0.0078 with 10,000
	// trials; Holm over two arms doubles the smaller... both equal, both times 2 then 1.
	if len(rep.Significance) != 2 || rep.Significance[0].Plan != "bm25" || rep.Significance[0].Delta >= 0 {
		t.Fatalf("significance %+v", rep.Significance)
	}
	for _, s := range rep.Significance {
		if math.Abs(s.P-2.0/256) > 0.003 || !s.Significant {
			t.Fatalf("%s: p %v holm %v", s.Plan, s.P, s.PHolm)
		}
	}
	// The JSON has exactly the documented keys.
	b, _ := json.Marshal(rep)
	var top map[string]json.RawMessage
	_ = json.Unmarshal(b, &top)
	for _, k := range []string{"dataset", "queries", "metric", "group_field", "groups", "pack_budgets", "plans", "significance"} {
		if top[k] == nil || len(top) != 8 {
			t.Fatalf("top-level keys: %s", b)
		}
	}
	var plansJSON []map[string]any
	_ = json.Unmarshal(top["plans"], &plansJSON)
	for _, k := range []string{"plan", "metrics", "groups", "pack", "p50_ms", "p95_ms", "failed", "retried", "per_query"} {
		if _, ok := plansJSON[0][k]; !ok || len(plansJSON[0]) != 9 {
			t.Fatalf("plan keys: %v", plansJSON[0])
		}
	}
	var md, svg bytes.Buffer
	if err := rep.Markdown(&md, "aizk-eval bench --dataset toy", "plot.svg"); err != nil {
		t.Fatal(err)
	}
	if err := rep.SVG(&svg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| bm25 | 0.6309 |") || !strings.Contains(md.String(), "![ndcg@10") ||
		!strings.Contains(md.String(), "### kind = a (4 queries)") || !strings.Contains(md.String(), "pack@200") || !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "<rect") != 6 {
		t.Fatalf("markdown:\n%s\nsvg:\n%s", md.String(), svg.String())
	}
}

// TestStudyRetriesAndCountsFailures: a search that fails once is tried again and scores as
// usual; one that fails every try scores as finding nothing, is named in its query's result,
// and is counted in the report; one failure past MaxFailed stops the run with the count.
func TestStudyRetriesAndCountsFailures(t *testing.T) {
	t.Parallel()
	queries := []eval.Query{{ID: "flaky"}, {ID: "broken"}, {ID: "fine"}}
	qrels := map[string]eval.Qrels{"flaky": {"rel-flaky": 1}, "broken": {"rel-broken": 1}, "fine": {"rel-fine": 1}}
	tries := map[string]int{}
	search := func(_ context.Context, q eval.Query, _ statement.Plan, _ int) ([]string, error) {
		tries[q.ID]++
		if q.ID == "broken" || (q.ID == "flaky" && tries[q.ID] == 1) {
			return nil, errors.New("statement: timed out")
		}
		return []string{"rel-" + q.ID}, nil
	}
	var told []string
	o := eval.Options{Retries: 2, MaxFailed: 1, Failed: func(_ string, q eval.Query, _ int, _ error, again bool) {
		told = append(told, fmt.Sprintf("%s %v", q.ID, again))
	}}
	rep, err := eval.Study(context.Background(), "toy", queries, qrels, []statement.Plan{statement.Maximal}, search, o)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Plans[0]
	if p.Failed != 1 || p.Retried != 2 || tries["flaky"] != 2 || tries["broken"] != 3 || tries["fine"] != 1 {
		t.Fatalf("failed %d, retried %d, tries %v", p.Failed, p.Retried, tries)
	}
	if got := strings.Join(told, ","); got != "flaky true,broken true,broken true,broken false" {
		t.Fatalf("told %s", got)
	}
	byID := map[string]eval.QueryResult{}
	for _, q := range p.Queries {
		byID[q.ID] = q
	}
	if byID["flaky"].Metrics["recall@10"] != 1 || byID["flaky"].Failed != "" ||
		byID["broken"].Metrics["recall@10"] != 0 || byID["broken"].Failed != "statement: timed out" ||
		math.Abs(p.Metrics["recall@10"]-2.0/3) > 1e-12 {
		t.Fatalf("per query %+v, mean %v", byID, p.Metrics)
	}
	var md bytes.Buffer
	if err := rep.Markdown(&md, "aizk-eval bench", ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "maximal: 1 failed, 2 retried") {
		t.Fatalf("the report does not count the failures:\n%s", md.String())
	}
	// No failure allowed: the first search that fails every try stops the run.
	o.MaxFailed, o.Failed = 0, nil
	clear(tries)
	if _, err := eval.Study(context.Background(), "toy", queries, qrels, []statement.Plan{statement.Maximal}, search, o); err == nil ||
		!strings.Contains(err.Error(), "query broken") || !strings.Contains(err.Error(), "1 searches failed after 3 tries each") {
		t.Fatalf("past MaxFailed: %v", err)
	}
	// A run whose context ends is not retried.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	clear(tries)
	cut := func(ctx context.Context, q eval.Query, p statement.Plan, b int) ([]string, error) {
		tries[q.ID]++
		return nil, ctx.Err()
	}
	if _, err := eval.Study(ctx, "toy", queries, qrels, []statement.Plan{statement.Maximal}, cut, o); !errors.Is(err, context.Canceled) || tries["flaky"] != 1 {
		t.Fatalf("cancelled: %v after %v", err, tries)
	}
}
