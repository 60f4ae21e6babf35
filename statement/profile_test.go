package statement

import (
	"testing"
)

// TestParseProfile: a step's own time is its plan's time less the CTE and function scans in
// it (those steps keep theirs), the rest is what the execution time leaves, and the lanes
// come from the names.
func TestParseProfile(t *testing.T) {
	t.Parallel()
	raw := []byte(`[{"Plan": {"Node Type": "Sort", "Actual Total Time": 9, "Actual Rows": 3, "Actual Loops": 1, "Plans": [
	  {"Node Type": "Hash Join", "Subplan Name": "CTE bm25_candidates", "Parent Relationship": "InitPlan",
	   "Actual Total Time": 4, "Actual Rows": 10, "Actual Loops": 1, "Shared Hit Blocks": 7, "Plans": [
	     {"Node Type": "CTE Scan", "CTE Name": "bm25_idf", "Actual Total Time": 1.5, "Actual Loops": 1},
	     {"Node Type": "Nested Loop", "Actual Total Time": 2, "Actual Loops": 1, "Plans": [
	       {"Node Type": "Function Scan", "Function Name": "unnest", "Actual Total Time": 0.5, "Actual Loops": 1}]}]},
	  {"Node Type": "Result", "Subplan Name": "CTE bm25_idf", "Parent Relationship": "InitPlan",
	   "Actual Total Time": 1.25, "Actual Rows": 2, "Actual Loops": 1},
	  {"Node Type": "Function Scan", "Function Name": "probe_entities", "Actual Total Time": 0.5, "Actual Rows": 2, "Actual Loops": 2},
	  {"Node Type": "CTE Scan", "CTE Name": "output_top", "Actual Total Time": 0.1, "Actual Loops": 1}]},
	  "Planning Time": 3.5, "Execution Time": 10}]`)
	p, err := parseProfile(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.PlanningMS != 3.5 || p.ExecutionMS != 10 {
		t.Fatalf("planning %v, execution %v", p.PlanningMS, p.ExecutionMS)
	}
	got := map[string]Step{}
	for _, s := range p.Steps {
		got[s.Name] = s
	}
	want := []Step{
		// 4 ms less the scan of bm25_idf (1.5); the unnest is no step and stays in.
		{Kind: "cte", Name: "bm25_candidates", Lane: "bm25", MS: 2.5, Loops: 1, Rows: 10, SharedHit: 7},
		{Kind: "cte", Name: "bm25_idf", Lane: "bm25", MS: 1.25, Loops: 1, Rows: 2},
		{Kind: "function", Name: "probe_entities", MS: 1, Loops: 2, Rows: 2},
		// 10 - 2.5 - 1.25 - 1
		{Kind: "rest", Name: "rest", MS: 5.25, Loops: 1, Rows: 3},
	}
	if len(p.Steps) != len(want) {
		t.Fatalf("steps %+v, want %+v", p.Steps, want)
	}
	for i, w := range want {
		if got[w.Name] != w {
			t.Fatalf("step %s: %+v, want %+v", w.Name, got[w.Name], w)
		}
		if i > 0 && p.Steps[i].MS > p.Steps[i-1].MS {
			t.Fatalf("steps not in time order: %+v", p.Steps)
		}
	}
	if _, err := parseProfile([]byte(`{}`)); err == nil {
		t.Fatal("a document that is no EXPLAIN output was read")
	}
}
