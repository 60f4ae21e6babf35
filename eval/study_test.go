package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
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
	for _, id := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"} {
		queries = append(queries, eval.Query{ID: id})
		qrels[id] = eval.Qrels{"rel-" + id: 1}
	}
	search := func(_ context.Context, q eval.Query, plan statement.Plan) ([]string, error) {
		switch plan {
		case statement.Maximal:
			return []string{"rel-" + q.ID, "x", "y"}, nil
		case statement.Only(statement.BM25):
			return []string{"x", "rel-" + q.ID, "y"}, nil
		}
		return []string{"x", "y"}, nil
	}
	plans := []statement.Plan{statement.Maximal, statement.Only(statement.BM25), statement.Only(statement.Vector)}
	calls := 0
	rep, err := eval.Study(context.Background(), "toy", queries, qrels, plans, search, func(done, total int) { calls = done })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 24 || rep.Queries != 8 || len(rep.Plans) != 3 {
		t.Fatalf("calls %d, report %+v", calls, rep)
	}
	// bm25 puts the one relevant document at rank 2: nDCG = 1/log2(3), MRR = 1/2.
	bm := rep.Plans[1]
	if math.Abs(bm.NDCG10-1/math.Log2(3)) > 1e-12 || bm.MRR10 != 0.5 || bm.Recall10 != 1 || rep.Plans[0].NDCG10 != 1 || rep.Plans[2].NDCG10 != 0 {
		t.Fatalf("plans %+v", rep.Plans)
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
	if len(top) != 4 || top["dataset"] == nil || top["queries"] == nil || top["plans"] == nil || top["significance"] == nil {
		t.Fatalf("top-level keys: %s", b)
	}
	var plansJSON []map[string]any
	_ = json.Unmarshal(top["plans"], &plansJSON)
	for _, k := range []string{"plan", "ndcg@10", "recall@10", "recall@100", "mrr@10", "p50_ms", "p95_ms"} {
		if _, ok := plansJSON[0][k]; !ok || len(plansJSON[0]) != 7 {
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
	if !strings.Contains(md.String(), "| bm25 | 0.6309 |") || !strings.Contains(md.String(), "![nDCG@10") || !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "<rect") != 6 {
		t.Fatalf("markdown:\n%s\nsvg:\n%s", md.String(), svg.String())
	}
}
