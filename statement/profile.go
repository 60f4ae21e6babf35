package statement

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recall-engine/recall/internal/scope"
)

// Profile is where one run of the statement spent its time, from Postgres's own account
// (EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of the text, in the transaction a recall opens as
// the caller): planning and execution, and each WITH query the plan kept as its own step.
type Profile struct {
	PlanningMS, ExecutionMS float64
	// Steps are the plan's materialized WITH queries and its function scans (the probes),
	// most time first.
	Steps []Step
	// Plan is EXPLAIN's JSON, whole.
	Plan json.RawMessage
}

// Step is one WITH query (Kind "cte") or function scan (Kind "function") of the plan.
//
// MS is the step's own time: its plan's time less the time of the steps it reads (a WITH
// query is computed when something first reads it, and its reader's time includes it; the
// step that is read keeps it). The step "rest" is the execution time no other step has: the
// final SELECT and the WITH queries inlined into it. Postgres inlines a WITH query read once that is not
// MATERIALIZED: its time is its reader's, and it has no step. Lane is the lane whose
// fragment defines the query (its name starts with the lane's), "" for shared ones.
type Step struct {
	Kind, Name, Lane string
	MS               float64
	Loops            int64
	Rows             float64 // per loop
	SharedHit        int64   // buffers found in shared memory
	SharedRead       int64   // buffers read from the OS
}

// explainNode is the part of EXPLAIN's JSON a profile reads.
type explainNode struct {
	NodeType       string        `json:"Node Type"`
	SubplanName    string        `json:"Subplan Name"`
	CTEName        string        `json:"CTE Name"`
	FunctionName   string        `json:"Function Name"`
	ActualTotal    float64       `json:"Actual Total Time"`
	ActualRows     float64       `json:"Actual Rows"`
	ActualLoops    int64         `json:"Actual Loops"`
	SharedHitBlks  int64         `json:"Shared Hit Blocks"`
	SharedReadBlks int64         `json:"Shared Read Blocks"`
	Plans          []explainNode `json:"Plans"`
}

// RunProfile runs st for q as the caller under EXPLAIN ANALYZE and returns its profile. It
// reads what a recall reads (the statement runs whole) and writes nothing. On a distributed
// Citus schema it profiles the routed text, which Citus runs on a worker: the steps are the
// coordinator's.
func RunProfile(ctx context.Context, pool Beginner, who Scopes, st *Statement, q Query, s Settings) (Profile, error) {
	args, err := st.Args(q, s)
	if err != nil {
		return Profile{}, err
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return Profile{}, interpretError(ctx, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read only
	if err := scope.Apply(ctx, tx, who.Read, who.Write, s.Session()...); err != nil {
		return Profile{}, interpretError(ctx, err)
	}
	sqls, err := routeOnCitus(ctx, tx, []*Statement{st})
	if err != nil {
		return Profile{}, err
	}
	var raw []byte
	if sqls[0] != st.SQL {
		// A routed text is planned at each call, as a recall runs it.
		if err := tx.QueryRow(ctx, explain+sqls[0], args).Scan(&raw); err != nil {
			return Profile{}, interpretError(ctx, err)
		}
		return parseProfile(raw)
	}
	// The statement as a recall runs it: prepared, under the session's plan_cache_mode
	// (a generic plan), so EXPLAIN shows that plan; its planning time is what a connection
	// pays once.
	rsql, rargs, err := args.RewriteQuery(ctx, tx.Conn(), st.SQL, nil)
	if err != nil {
		return Profile{}, err
	}
	// Prepared by name, the statement is one EXECUTE may run, and its description gives each
	// parameter's type. A prepared statement outlives the transaction: closed on the way out.
	conn := tx.Conn()
	desc, err := conn.Prepare(ctx, profileStatement, rsql)
	if err != nil {
		return Profile{}, interpretError(ctx, err)
	}
	defer conn.Deallocate(context.WithoutCancel(ctx), profileStatement) //nolint:errcheck // the session's, like the rollback
	// EXECUTE takes no binds: each argument goes as a literal, the text form pgx writes
	// for its parameter's type, which EXECUTE casts to that type.
	lits := make([]string, len(rargs))
	for i, a := range rargs {
		text, err := conn.TypeMap().Encode(desc.ParamOIDs[i], pgtype.TextFormatCode, a, nil)
		if err != nil {
			return Profile{}, fmt.Errorf("statement: profile: argument %d: %w", i+1, err)
		}
		lits[i] = "NULL"
		if text != nil {
			lits[i] = "'" + strings.ReplaceAll(string(text), "'", "''") + "'"
		}
	}
	if err := tx.QueryRow(ctx, explain+"EXECUTE "+profileStatement+"("+strings.Join(lits, ", ")+")").Scan(&raw); err != nil {
		return Profile{}, interpretError(ctx, err)
	}
	return parseProfile(raw)
}

// explain prefixes the text a profile runs; profileStatement names the statement it prepares.
const (
	explain          = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
	profileStatement = "recall_profile"
)

// parseProfile reads EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)'s output.
func parseProfile(raw []byte) (Profile, error) {
	var doc []struct {
		Plan      explainNode `json:"Plan"`
		Planning  float64     `json:"Planning Time"`
		Execution float64     `json:"Execution Time"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc) != 1 {
		return Profile{}, fmt.Errorf("statement: reading EXPLAIN's JSON: %v (%d plans)", err, len(doc))
	}
	p := Profile{PlanningMS: doc[0].Planning, ExecutionMS: doc[0].Execution, Plan: raw}
	var walk func(n explainNode)
	walk = func(n explainNode) {
		var st Step
		switch {
		case strings.HasPrefix(n.SubplanName, "CTE "):
			st = Step{Kind: "cte", Name: strings.TrimPrefix(n.SubplanName, "CTE ")}
		case probe(n):
			st = Step{Kind: "function", Name: n.FunctionName}
		}
		if st.Kind != "" {
			st.Loops, st.Rows = max(n.ActualLoops, 1), n.ActualRows
			st.MS = max(n.ActualTotal*float64(st.Loops)-firstReads(n), 0)
			st.SharedHit, st.SharedRead = n.SharedHitBlks, n.SharedReadBlks
			st.Lane = laneOf(st.Name)
			p.Steps = append(p.Steps, st)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(doc[0].Plan)
	rest := p.ExecutionMS
	for _, st := range p.Steps {
		rest -= st.MS
	}
	p.Steps = append(p.Steps, Step{Kind: "rest", Name: "rest", MS: max(rest, 0), Loops: 1, Rows: doc[0].Plan.ActualRows})
	slices.SortStableFunc(p.Steps, func(a, b Step) int {
		if a.MS != b.MS {
			if a.MS > b.MS {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return p, nil
}

// firstReads is the time of the steps n's own plan reads (CTE scans and function scans below
// it, but not within other steps' plans), which n's time includes.
func firstReads(n explainNode) float64 {
	var t float64
	for _, c := range n.Plans {
		switch {
		case strings.HasPrefix(c.SubplanName, "CTE "):
			continue // a step of its own, reported apart, not part of n's plan
		case c.NodeType == "CTE Scan", probe(c):
			t += c.ActualTotal * float64(max(c.ActualLoops, 1))
		default:
			t += firstReads(c)
		}
	}
	return t
}

// probe reports whether n scans a function of the statement's own (a probe, the exact
// vector search), not a built-in set-returning one (unnest, generate_series).
func probe(n explainNode) bool {
	return n.NodeType == "Function Scan" && n.FunctionName != "" && n.FunctionName != "unnest" && n.FunctionName != "generate_series"
}

// laneOf is the lane whose fragment names a WITH query so ("bm25_lane", "graph_walk": its
// name, then "_"), "" for none.
func laneOf(name string) string {
	for _, l := range Lanes() {
		if strings.HasPrefix(name, l.String()+"_") {
			return l.String()
		}
	}
	return ""
}
