package statement_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestRunProfile: the profile of the maximal statement, run as the caller on the fixture,
// names the WITH queries Postgres keeps apart with their lanes, its steps add up to the
// execution time, and its plan is EXPLAIN's JSON.
func TestRunProfile(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 120, seed: 3, dim: dim, base: base}.load(t, db.Runtime)
	p := profileAcme(t, db, statement.Maximal)
	if p.PlanningMS <= 0 || p.ExecutionMS <= 0 {
		t.Fatalf("planning %v ms, execution %v ms", p.PlanningMS, p.ExecutionMS)
	}
	lanes := map[string]string{}
	var sum float64
	for _, s := range p.Steps {
		if s.MS < 0 {
			t.Fatalf("step %+v has a negative time", s)
		}
		sum += s.MS
		lanes[s.Name] = s.Lane
	}
	// MATERIALIZED in the fragments, so steps of their own whatever the planner does.
	for name, lane := range map[string]string{"bm25_candidates": "bm25", "vector_hits": "vector", "graph_nodes": "graph", "output_top": ""} {
		if got, ok := lanes[name]; !ok || got != lane {
			t.Errorf("step %s: lane %q (present %v), want %q", name, got, ok, lane)
		}
	}
	if sum < p.ExecutionMS-1e-6 || sum > p.ExecutionMS*1.5+1 {
		t.Errorf("steps add up to %.3f ms, the execution took %.3f", sum, p.ExecutionMS)
	}
	var doc []map[string]any
	if err := json.Unmarshal(p.Plan, &doc); err != nil || len(doc) != 1 || doc[0]["Plan"] == nil {
		t.Fatalf("the plan is not EXPLAIN's JSON: %v", err)
	}
}

// TestStatementScansNoTableWhole: the maximal statement, run as a caller of one of two scope
// sets, reads every table it reads by an index, so its work follows the caller's rows, not the
// other set's (a sequential scan reads, and filters by row security, every row of the table).
// Small tables are where the planner prefers one: Session sets enable_seqscan off. The
// statement a recall runs by default (every lane of weight above 0: the graph lane's is 0)
// reads no index whole either, as a generic plan made on small tables did for the access
// rows, the entities and sources the probes found, the postings of a whole list and the
// memories of a filtered exact search (a scan in the index's order of distance, HNSW's, is
// the vector lane's own).
func TestStatementScansNoTableWhole(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 120, seed: 3, dim: dim, base: base}.load(t, db.Runtime)
	fixture{scopes: []string{"other"}, n: 120, seed: 4, dim: dim, base: base}.load(t, db.Runtime)
	if _, err := db.Owner.Exec(context.Background(), `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	for _, plan := range []statement.Plan{statement.Maximal, statement.DefaultSettings().Narrow(statement.Maximal)} {
		p := profileAcme(t, db, plan)
		var doc []struct{ Plan planNode }
		if err := json.Unmarshal(p.Plan, &doc); err != nil || len(doc) != 1 {
			t.Fatalf("the plan is not EXPLAIN's JSON: %v", err)
		}
		var walk func(n planNode)
		walk = func(n planNode) {
			switch {
			case n.Type == "Seq Scan":
				t.Errorf("plan %v: a sequential scan of %s", plan, n.Relation)
			case plan != statement.Maximal && (n.Type == "Index Scan" || n.Type == "Index Only Scan") && n.IndexCond == "" && n.OrderBy == "":
				t.Errorf("plan %v: a scan of all of %s by %s", plan, n.Relation, n.Index)
			}
			for _, c := range n.Plans {
				walk(c)
			}
		}
		walk(doc[0].Plan)
	}
}

// planNode is the part of a node of EXPLAIN's JSON TestStatementScansNoTableWhole reads.
type planNode struct {
	Type      string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	OrderBy   string     `json:"Order By"`
	Plans     []planNode `json:"Plans"`
}

// profileAcme is the profile of plan's statement for a question about the fixture, run
// as a caller of the scope acme.
func profileAcme(t *testing.T, db *testdb.DB, plan statement.Plan) statement.Profile {
	t.Helper()
	st, err := statement.Build(statement.Shape{Dim: dim, Fuzzy: true, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	q := statement.Query{Text: "apple river Alice", Raw: "What did Alice Martin say about the apple river?",
		Vector: unitVector(5, dim), Now: base.Add(400 * 24 * time.Hour)}
	p, err := statement.RunProfile(context.Background(), db.Runtime, statement.Scopes{Read: []string{"acme"}}, st, q, statement.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
