package statement_test

import (
	"context"
	"flag"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

var update = flag.Bool("update", false, "rewrite golden files")

const dim = 8

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func run(t *testing.T, db *testdb.DB, read []string, plan statement.Plan, q statement.Query, s statement.Settings) []statement.Candidate {
	t.Helper()
	st, err := statement.Build(statement.Shape{Dim: len(q.Vector), Fuzzy: true, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	out, err := statement.Run(context.Background(), db.Runtime, statement.Scopes{Read: read}, st, q, s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func queryTerms(t *testing.T, tx pgx.Tx, text string) []string {
	t.Helper()
	rows, err := tx.Query(context.Background(), `SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1))`, text)
	if err != nil {
		t.Fatal(err)
	}
	terms, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return terms
}

func relErr(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

// TestBM25MatchesReferenceAndIgnoresInvisibleRows: the BM25 lane's scores equal textbook BM25
// computed in Go over the caller's visible rows, and adding ten times as many rows the caller
// cannot see changes no lane's output.
func TestBM25MatchesReferenceAndIgnoresInvisibleRows(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 150, seed: 1, dim: dim, base: base}.load(t, db.Runtime)

	s := statement.DefaultSettings()
	s.K, s.BM25K = 1000, 1000
	q := statement.Query{
		Text: "apple river violin harbor Alice", Raw: "What did Alice Martin say in Notes on apple river?",
		Vector: unitVector(5, dim), WindowStart: base.Add(30 * 24 * time.Hour), WindowEnd: base.Add(40 * 24 * time.Hour),
		Now: base.Add(400 * 24 * time.Hour),
	}
	acme := []string{"acme"}

	// check compares the lane with the reference three ways: every query term read whole
	// (the default on a small corpus), every term probed per candidate (BM25Whole 0), and a
	// mix, the terms above the median document frequency probed.
	check := func() {
		t.Helper()
		tx := testdb.BeginAs(t, db.Runtime, acme, nil)
		tf, dl := visibleLexemes(t, tx)
		terms := queryTerms(t, tx, q.Text)
		_ = tx.Rollback(context.Background())
		ref := bm25Reference(tf, dl, terms, s.BM25K1, s.BM25B)
		var dfs []int
		for _, term := range terms {
			dfs = append(dfs, docFreq(tf, term))
		}
		slices.Sort(dfs)
		if dfs[0] == dfs[len(dfs)-1] {
			t.Fatalf("query terms share one document frequency %v: the mixed case would not mix", dfs)
		}
		for _, whole := range []int{s.BM25Whole, 0, dfs[len(dfs)/2-1]} {
			sw := s
			sw.BM25Whole = whole
			got := run(t, db, acme, statement.Only(statement.BM25), q, sw)
			if len(got) != len(ref) || len(got) < 50 {
				t.Fatalf("BM25Whole %d: bm25 lane returned %d documents, the reference scores %d", whole, len(got), len(ref))
			}
			prev := math.Inf(1)
			for i, c := range got {
				h := c.Lanes[statement.BM25]
				if h.Rank != i+1 {
					t.Fatalf("BM25Whole %d: row %d has bm25 rank %d", whole, i, h.Rank)
				}
				if e := relErr(h.Score, ref[c.ID]); e > 1e-9 {
					t.Fatalf("BM25Whole %d: memory %d: bm25 %.15g, reference %.15g (relative error %g)", whole, c.ID, h.Score, ref[c.ID], e)
				}
				if h.Score > prev {
					t.Fatalf("BM25Whole %d: bm25 lane not in score order at row %d", whole, i)
				}
				prev = h.Score
			}
		}
	}
	check()
	before := run(t, db, acme, statement.Maximal, q, s)
	for l := range statement.Lane(statement.NumLanes) {
		n := 0
		for _, c := range before {
			if c.Lanes[l].Rank > 0 {
				n++
			}
		}
		if n == 0 {
			t.Errorf("lane %s returned nothing on the fixture; the invariance check would be vacuous", l)
		}
	}

	// Ten times as many rows, same words and same entity names, in a scope acme cannot see.
	fixture{scopes: []string{"beta"}, n: 1500, seed: 2, dim: dim, base: base}.load(t, db.Runtime)
	check()
	after := run(t, db, acme, statement.Maximal, q, s)
	if len(before) != len(after) {
		t.Fatalf("maximal returned %d rows before and %d after adding invisible rows", len(before), len(after))
	}
	for i := range before {
		b, a := before[i], after[i]
		if b.ID != a.ID || b.Lanes != a.Lanes || b.RRF != a.RRF || b.Direct != a.Direct {
			t.Fatalf("row %d changed after adding invisible rows:\nbefore %+v\nafter  %+v", i, b.Lanes, a.Lanes)
		}
	}
	// And the beta caller sees its own rows only.
	for _, c := range run(t, db, []string{"beta"}, statement.Maximal, q, s) {
		for _, b := range before {
			if b.ID == c.ID {
				t.Fatalf("memory %d of acme returned to a beta caller", c.ID)
			}
		}
	}
}

// TestFusionRecomputed: every row's RRF equals sum(weight / (rrf_k + rank)) recomputed in Go
// from the returned ranks, the recency and frequency terms add up, and rows are in fused order.
func TestFusionRecomputed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 120, seed: 3, dim: dim, base: base}.load(t, db.Runtime)
	now := base.Add(500 * 24 * time.Hour)
	// Some access history so the recency and frequency terms are not zero.
	if _, err := db.Owner.Exec(ctx, `INSERT INTO recall.memory_access (memory_id, scopes, access_count, last_accessed)
		SELECT id, scopes, 1 + id % 7, $1::timestamptz - make_interval(hours => (id % 50)::int)
		FROM recall.memories WHERE id % 3 = 0`, now); err != nil {
		t.Fatal(err)
	}
	s := statement.DefaultSettings()
	s.Weights = [statement.NumLanes]float64{1.1, 0.9, 0.7, 0.6, 0.5, 0.4}
	s.RRFK, s.WRecency, s.WFrequency = 40, 0.01, 0.003
	q := statement.Query{Text: "river glacier Bob", Raw: "river glacier Bob Stone Notes on apple",
		Vector: unitVector(9, dim), WindowStart: base.Add(100 * 24 * time.Hour), WindowEnd: base.Add(101 * 24 * time.Hour), Now: now}
	got := run(t, db, []string{"acme"}, statement.Maximal, q, s)
	if len(got) < 20 {
		t.Fatalf("only %d rows", len(got))
	}
	rs, err := db.Owner.Query(ctx, `SELECT m.id, coalesce(a.access_count, 0), a.last_accessed
		FROM recall.memories m LEFT JOIN recall.memory_access a ON a.memory_id = m.id`)
	if err != nil {
		t.Fatal(err)
	}
	type accessRow struct {
		count int64
		last  *time.Time
	}
	access := map[int64]accessRow{}
	for rs.Next() {
		var id int64
		var r accessRow
		if err := rs.Scan(&id, &r.count, &r.last); err != nil {
			t.Fatal(err)
		}
		access[id] = r
	}
	if rs.Err() != nil {
		t.Fatal(rs.Err())
	}
	if len(access) != 120 {
		t.Fatalf("%d memories", len(access))
	}
	for i, c := range got {
		var rrf float64
		for l := range statement.Lane(statement.NumLanes) {
			if r := c.Lanes[l].Rank; r > 0 {
				rrf += s.Weights[l] / (s.RRFK + float64(r))
			}
		}
		if relErr(rrf, c.RRF) > 1e-12 {
			t.Fatalf("row %d: rrf %.15g, recomputed %.15g", i, c.RRF, rrf)
		}
		a := access[c.ID]
		want := rrf + s.WFrequency*math.Log(1+float64(a.count))
		if a.last != nil {
			age := now.Sub(*a.last).Seconds()
			want += s.WRecency * math.Exp(-math.Ln2*age/s.RecencyHalfLife.Seconds())
		}
		if relErr(want, c.Score) > 1e-9 {
			t.Fatalf("row %d: fused %.15g, recomputed %.15g", i, c.Score, want)
		}
		if i > 0 && c.Score > got[i-1].Score {
			t.Fatalf("row %d out of fused order", i)
		}
	}
}

// TestStatementGolden pins the maximal plan's SQL (run with -update to rewrite after a
// deliberate change).
func TestStatementGolden(t *testing.T) {
	t.Parallel()
	st, err := statement.Build(statement.Shape{Dim: 384, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		t.Fatal(err)
	}
	path := "testdata/maximal_384_fuzzy.sql"
	if *update {
		if err := os.WriteFile(path, []byte(st.SQL), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.SQL != string(want) {
		t.Fatalf("the maximal statement differs from %s; run go test ./statement -run Golden -update after a deliberate change", path)
	}
}

// TestCacheBuildsOncePerShape: 64 concurrent callers over 4 shapes cause 4 builds and all
// callers of a shape share one statement.
func TestCacheBuildsOncePerShape(t *testing.T) {
	t.Parallel()
	var c statement.Cache
	shapes := []statement.Shape{
		{Dim: 384, Fuzzy: true, Plan: statement.Maximal},
		{Dim: 384, Fuzzy: false, Plan: statement.Maximal},
		{Dim: 768, Fuzzy: true, Plan: statement.Maximal},
		{Dim: 384, Fuzzy: true, Plan: statement.Only(statement.BM25)},
	}
	got := make([]*statement.Statement, 64)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			st, err := c.Get(shapes[i%len(shapes)])
			if err != nil {
				t.Error(err)
			}
			got[i] = st
		}()
	}
	close(start)
	wg.Wait()
	if n := c.Builds(); n != int64(len(shapes)) {
		t.Fatalf("%d builds for %d shapes", n, len(shapes))
	}
	for i := range got {
		if got[i] != got[i%len(shapes)] {
			t.Fatalf("caller %d got a different statement for the same shape", i)
		}
	}
	if got[0].SQL == got[1].SQL || got[0].SQL == got[2].SQL || got[0].SQL == got[3].SQL {
		t.Fatal("different shapes share SQL text")
	}
}

// TestPlans: every study plan builds, compiles only its lanes, and round-trips its name.
func TestPlans(t *testing.T) {
	t.Parallel()
	plans := statement.StudyPlans()
	if len(plans) != 1+2*statement.NumLanes {
		t.Fatalf("%d study plans", len(plans))
	}
	names := map[string]bool{}
	for _, p := range plans {
		back, err := statement.ParsePlan(p.String())
		if err != nil || back != p {
			t.Fatalf("plan %s parses back as %s (%v)", p, back, err)
		}
		names[p.String()] = true
		st, err := statement.Build(statement.Shape{Dim: 16, Plan: p})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(st.Lanes, p.Lanes()) {
			t.Fatalf("plan %s compiled lanes %v", p, st.Lanes)
		}
	}
	if len(names) != len(plans) {
		t.Fatal("two study plans share a name")
	}
	if _, err := statement.Build(statement.Shape{Dim: 0, Plan: statement.Only(statement.Vector)}); err == nil {
		t.Fatal("a vector-only plan without a vector built")
	}
	st, err := statement.Build(statement.Shape{Dim: 0, Plan: statement.Maximal})
	if err != nil || st.Shape.Plan.Has(statement.Vector) {
		t.Fatalf("maximal without a vector: %v, lanes %v", err, st.Lanes)
	}
}

func sortedIDs(cs []statement.Candidate) []int64 {
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// TestBM25Expansion: with expansion words (Query.Expansion) at ExpansionWeight w, the BM25
// lane's score is the question's terms' BM25 plus w times the BM25 of the expansion's terms
// the question lacks (a term of both counts once, at 1), as computed in Go; at weight 0 the
// expansion changes nothing.
func TestBM25Expansion(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 150, seed: 3, dim: dim, base: base}.load(t, db.Runtime)
	acme := []string{"acme"}
	s := statement.DefaultSettings()
	s.K, s.BM25K = 1000, 1000
	q := statement.Query{Text: "apple river", Raw: "apple river", Vector: unitVector(5, dim), Now: base.Add(400 * 24 * time.Hour),
		Expansion: []string{"violins", "harbor", "river"}}
	tx := testdb.BeginAs(t, db.Runtime, acme, nil)
	tf, dl := visibleLexemes(t, tx)
	own := queryTerms(t, tx, q.Text)
	var extra []string
	for _, x := range queryTerms(t, tx, strings.Join(q.Expansion, " ")) {
		if !slices.Contains(own, x) {
			extra = append(extra, x)
		}
	}
	_ = tx.Rollback(context.Background())
	if len(extra) != 2 {
		t.Fatalf("expansion terms %v: want violin and harbor", extra)
	}
	base1 := bm25Reference(tf, dl, own, s.BM25K1, s.BM25B)
	added := bm25Reference(tf, dl, extra, s.BM25K1, s.BM25B)
	for _, w := range []float64{0, 0.3, 1} {
		sw := s
		sw.ExpansionWeight = w
		ref := map[int64]float64{}
		for id, v := range base1 {
			ref[id] = v
		}
		if w > 0 {
			for id, v := range added {
				ref[id] += w * v
			}
		}
		got := run(t, db, acme, statement.Only(statement.BM25), q, sw)
		if len(got) != len(ref) {
			t.Fatalf("weight %g: the lane scored %d memories, the reference %d", w, len(got), len(ref))
		}
		for _, c := range got {
			if e := relErr(c.Lanes[statement.BM25].Score, ref[c.ID]); e > 1e-9 {
				t.Fatalf("weight %g: memory %d: bm25 %.15g, reference %.15g", w, c.ID, c.Lanes[statement.BM25].Score, ref[c.ID])
			}
		}
	}
}
