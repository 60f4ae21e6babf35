package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/embed"
	embedonnx "github.com/recall-engine/recall/embed/onnx"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/ranker"
	rerankonnx "github.com/recall-engine/recall/rerank/onnx"
	"github.com/recall-engine/recall/statement"
)

var now = time.Date(2022, 6, 1, 0, 0, 0, 0, time.UTC)

var member = recall.User{ID: "u", Read: []string{"team"}, Write: []string{"team"}}

type bundle struct {
	db  *testdb.DB
	emb *embed.Hashing
}

// setup loads the world into scope team of a fresh database.
func setup(t *testing.T) bundle {
	t.Helper()
	db := testdb.New(t)
	emb, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadWorld(context.Background(), db.Owner, emb, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	return bundle{db: db, emb: emb}
}

func (b bundle) engine(t *testing.T, cfg recall.Config) *recall.Engine {
	t.Helper()
	if cfg.Pool == nil {
		cfg.Pool = b.db.Runtime
	}
	if cfg.Embedder == nil {
		cfg.Embedder = b.emb
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return now }
	}
	e, err := recall.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// accessState reads every memory's access count and last access, as the owner.
func accessState(t *testing.T, pool *pgxpool.Pool) map[string][2]any {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT m.external_id, coalesce(a.access_count, 0), a.last_accessed
		FROM recall.memories m LEFT JOIN recall.memory_access a ON a.memory_id = m.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]any{}
	for rows.Next() {
		var id string
		var n int64
		var last *time.Time
		if err := rows.Scan(&id, &n, &last); err != nil {
			t.Fatal(err)
		}
		out[id] = [2]any{n, last}
	}
	return out
}

func TestRecallPacksInStatementOrderAndRecordsAccess(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	e := b.engine(t, recall.Config{Order: ranker.Off()}) // the statement's order: TestLearnedOrder covers the learned one
	const q = "Who inspected the cranes in Rotterdam?"
	// The trace is the same path without recording: its pack must be Recall's pack.
	tr, err := e.Trace(ctx, member, q, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.Recall(ctx, member, q, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) == 0 || len(p.Items) != len(tr.Pack.Items) {
		t.Fatalf("recall packed %d, trace %d", len(p.Items), len(tr.Pack.Items))
	}
	if p.Items[0].ExternalID != "m05" {
		t.Fatalf("top item %s, want m05 (Dan Wu will inspect the cranes in Rotterdam)", p.Items[0].ExternalID)
	}
	// Without a reranker the merit order is the statement order: walk it in Go.
	var want []string
	left := 50
	for _, c := range tr.Candidates[:tr.K] {
		if n := (budget.Bytes4{}).Count(c.Text); n <= left {
			want = append(want, c.ExternalID)
			left -= n
		}
	}
	var got []string
	used := 0
	for i, it := range p.Items {
		got = append(got, it.ExternalID)
		used += it.Tokens
		if it.ExternalID != tr.Pack.Items[i].ExternalID {
			t.Fatalf("item %d: recall %s, trace %s", i, it.ExternalID, tr.Pack.Items[i].ExternalID)
		}
		if it.StatementRank < 1 || tr.Candidates[it.StatementRank-1].ID != it.ID {
			t.Fatalf("item %d: statement rank %d does not point at it", i, it.StatementRank)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("packed %v, the budget walk over the statement order gives %v", got, want)
	}
	if used != p.Used || p.Used > 50 || p.Used+p.OmittedTokens == 0 {
		t.Fatalf("used %d (items sum %d), omitted tokens %d", p.Used, used, p.OmittedTokens)
	}
	if len(p.Items)+len(p.Omitted) != tr.K {
		t.Fatalf("%d packed + %d omitted, %d candidates", len(p.Items), len(p.Omitted), tr.K)
	}
	// Entities come with the items.
	if !slices.Equal(p.Items[0].Entities, []string{"Dan Wu"}) {
		t.Fatalf("entities of m05: %v", p.Items[0].Entities)
	}
	// Exactly the packed memories were stamped, once, at the engine's now.
	if p.Accessed != int64(len(p.Items)) {
		t.Fatalf("accessed %d, packed %d", p.Accessed, len(p.Items))
	}
	packed := map[string]bool{}
	for _, it := range p.Items {
		packed[it.ExternalID] = true
	}
	for id, st := range accessState(t, b.db.Owner) {
		n, last := st[0].(int64), st[1].(*time.Time)
		switch {
		case packed[id] && (n != 1 || last == nil || !last.Equal(now)):
			t.Fatalf("%s packed: count %d, last %v", id, n, last)
		case !packed[id] && (n != 0 || last != nil):
			t.Fatalf("%s not packed: count %d, last %v", id, n, last)
		}
	}
}

func TestTraceNeverWrites(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	e := b.engine(t, recall.Config{})
	before := accessState(t, b.db.Owner)
	var xact0 int64
	if err := b.db.Owner.QueryRow(ctx, `SELECT n_tup_upd + n_tup_ins FROM pg_stat_user_tables WHERE relid = 'recall.memory_access'::regclass`).Scan(&xact0); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Alice Lisbon", "cranes Rotterdam", "lemon cake recipe"} {
		tr, err := e.Trace(ctx, member, q, 100, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Pack.Accessed != 0 || tr.Pack.Timings.Access != 0 || len(tr.Pack.Items) == 0 {
			t.Fatalf("%q: accessed %d in %v, %d items", q, tr.Pack.Accessed, tr.Pack.Timings.Access, len(tr.Pack.Items))
		}
	}
	after := accessState(t, b.db.Owner)
	for id, st := range before {
		if after[id] != st {
			t.Fatalf("%s changed: %v -> %v", id, st, after[id])
		}
	}
	// The statistics collector agrees: no access row was written (counters flush lazily, so
	// force it first).
	if _, err := b.db.Owner.Exec(ctx, `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var xact1 int64
	if err := b.db.Owner.QueryRow(ctx, `SELECT n_tup_upd + n_tup_ins FROM pg_stat_user_tables WHERE relid = 'recall.memory_access'::regclass`).Scan(&xact1); err != nil {
		t.Fatal(err)
	}
	if xact1 != xact0 {
		t.Fatalf("memory_access saw %d writes during traces", xact1-xact0)
	}
	// A Recall after them does write, so the checks above could fail.
	if p, err := e.Recall(ctx, member, "cranes Rotterdam", 100, nil); err != nil || p.Accessed == 0 {
		t.Fatalf("recall: %v, accessed %d", err, p.Accessed)
	}
}

func TestTraceLanesAndWhy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	e := b.engine(t, recall.Config{})
	tr, err := e.Trace(context.Background(), recall.User{ID: "u", Read: []string{"team"}, Label: "Carol Diaz"},
		"What does Carol bake on Saturdays?", 30, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.SearchText != "What does Carol bake on Saturdays?\nThe asking speaker is Carol Diaz." {
		t.Fatalf("search text %q", tr.SearchText)
	}
	// The question names no time: no temporal lane (Plan.For).
	if tr.Shape.Plan != statement.DefaultSettings().Narrow(statement.Maximal)&^statement.Only(statement.Temporal) || tr.Shape.Dim != b.emb.Dim() || !strings.Contains(tr.SQL, "bm25_lane") {
		t.Fatalf("shape %+v", tr.Shape)
	}
	// Each lane's list is in lane rank order 1, 2, 3, ... and points at candidates found by it.
	// Memories of one score may share a rank (their mid rank, in the lanes whose scores tie);
	// a higher score always has a better rank.
	for l := range statement.Lane(statement.NumLanes) {
		var prev statement.LaneHit
		for i, j := range tr.Lanes[l] {
			h := tr.Candidates[j].Lanes[l]
			if h.Rank < 1 || i > 0 && (h.Rank < prev.Rank || h.Rank == prev.Rank && h.Score != prev.Score || h.Score > prev.Score) {
				t.Fatalf("lane %s place %d: rank %d score %v after rank %d score %v", l, i, h.Rank, h.Score, prev.Rank, prev.Score)
			}
			prev = h
		}
	}
	if len(tr.Lanes[statement.BM25]) == 0 || len(tr.Lanes[statement.Vector]) == 0 || len(tr.Lanes[statement.Mention]) == 0 {
		t.Fatalf("lanes empty: %d bm25, %d vector, %d mention", len(tr.Lanes[statement.BM25]), len(tr.Lanes[statement.Vector]), len(tr.Lanes[statement.Mention]))
	}
	var m07 *recall.TraceCandidate
	for i := range tr.Candidates {
		if tr.Candidates[i].ExternalID == "m07" {
			m07 = &tr.Candidates[i]
		}
	}
	if m07 == nil || m07.FusedRank != 1 || m07.Decision != recall.Packed {
		t.Fatalf("m07: %+v", m07)
	}
	why := tr.Why(m07)
	for _, want := range []string{"m07", "fused #1", "bm25      rank   1", "packed"} {
		if !strings.Contains(why, want) {
			t.Fatalf("Why lacks %q:\n%s", want, why)
		}
	}
	// Decisions add up: every candidate within K is packed or over budget.
	for _, c := range tr.Candidates {
		inK := c.FusedRank <= tr.K
		if inK == (c.Decision == recall.BeyondK) || inK != (c.MeritRank > 0) {
			t.Fatalf("candidate %s at %d: decision %s merit %d", c.ExternalID, c.FusedRank, c.Decision, c.MeritRank)
		}
	}
}

// scripted scores documents with a function, or fails.
type scripted struct {
	score func(doc string) float32
	err   error
	calls atomic.Int32
	docs  atomic.Int32
}

func (s *scripted) Score(ctx context.Context, q string, docs []string) ([]float32, error) {
	s.calls.Add(1)
	s.docs.Store(int32(len(docs)))
	if s.err != nil {
		return nil, s.err
	}
	out := make([]float32, len(docs))
	for i, d := range docs {
		out[i] = s.score(d)
	}
	return out, nil
}

func (s *scripted) Name() string { return "scripted" }

func TestRerankOrdersTheHead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const q = "harbor cranes delivery"
	// Shorter texts score higher: the opposite of nothing in particular, easy to check.
	short := &scripted{score: func(d string) float32 { return -float32(len(d)) }}
	e := b.engine(t, recall.Config{Reranker: short, RerankDepth: 4, NoAccess: true, Order: ranker.Off()})
	tr, err := e.Trace(ctx, member, q, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if short.docs.Load() != 4 {
		t.Fatalf("reranker saw %d documents, depth 4", short.docs.Load())
	}
	// Expected merit order: the first 4 candidates by length, then the rest in order (no
	// source title is named, so nothing is direct).
	cands := tr.Candidates[:tr.K]
	head := slices.Clone(cands[:4])
	slices.SortStableFunc(head, func(a, b recall.TraceCandidate) int { return len(a.Text) - len(b.Text) })
	var want []string
	for _, c := range head {
		want = append(want, c.ExternalID)
	}
	for _, c := range cands[4:] {
		want = append(want, c.ExternalID)
	}
	var got []string
	for _, it := range tr.Pack.Items {
		got = append(got, it.ExternalID)
		if it.StatementRank <= 4 && it.RerankScore == nil || it.StatementRank > 4 && it.RerankScore != nil {
			t.Fatalf("%s at statement rank %d: rerank score %v", it.ExternalID, it.StatementRank, it.RerankScore)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("packed %v, want %v", got, want)
	}

	// A source named in the query goes first, whatever the reranker says.
	long := &scripted{score: func(d string) float32 { return float32(len(d)) }}
	e2 := b.engine(t, recall.Config{Reranker: long, NoAccess: true})
	p, err := e2.Recall(ctx, member, "Family recipes: lemon cake", 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Items[0].Direct || !p.Items[1].Direct || p.Items[2].Direct {
		t.Fatalf("direct flags %v %v %v, want the two recipe memories first", p.Items[0].Direct, p.Items[1].Direct, p.Items[2].Direct)
	}
	if len(p.Items[0].Text) < len(p.Items[1].Text) {
		t.Fatal("direct sources not ordered by rerank score")
	}

	// Fewer candidates than RerankMin: no rerank call.
	few := &scripted{score: func(string) float32 { return 0 }}
	e3 := b.engine(t, recall.Config{Reranker: few, RerankMin: 50, NoAccess: true})
	if _, err := e3.Recall(ctx, member, q, 100, nil); err != nil || few.calls.Load() != 0 {
		t.Fatalf("%v, %d calls", err, few.calls.Load())
	}
}

type failingEmbedder struct{ embed.Embedder }

func (failingEmbedder) Embed(context.Context, []string, embed.Mode) ([][]float32, error) {
	return nil, errors.New("model server down")
}

func TestLenientAndStrict(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const q = "Alice Lisbon Tokyo"
	bad := failingEmbedder{b.emb}
	p, err := b.engine(t, recall.Config{Embedder: bad}).Recall(ctx, member, q, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Stage != "embed" || len(p.Items) == 0 {
		t.Fatalf("warnings %v, %d items", p.Warnings, len(p.Items))
	}
	for _, it := range p.Items {
		if it.Lanes[statement.Vector].Rank != 0 {
			t.Fatalf("%s has a vector rank without an embedding", it.ExternalID)
		}
	}
	if _, err := b.engine(t, recall.Config{Embedder: bad, Strict: true}).Recall(ctx, member, q, 100, nil); !errors.Is(err, recall.ErrEmbed) {
		t.Fatalf("strict embed: %v", err)
	}

	broken := &scripted{err: errors.New("reranker out of memory")}
	p, err = b.engine(t, recall.Config{Reranker: broken, NoAccess: true}).Recall(ctx, member, q, 100, nil)
	if err != nil || len(p.Warnings) != 1 || p.Warnings[0].Stage != "rerank" || p.Items[0].RerankScore != nil {
		t.Fatalf("lenient rerank: %v, warnings %v", err, p.Warnings)
	}
	if _, err := b.engine(t, recall.Config{Reranker: broken, Strict: true}).Recall(ctx, member, q, 100, nil); !errors.Is(err, recall.ErrRerank) {
		t.Fatalf("strict rerank: %v", err)
	}

	// Access recording on a closed pool fails: the pack still comes back, with a warning.
	closed, err := pgxpool.NewWithConfig(ctx, b.db.Runtime.Config())
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	p, err = b.engine(t, recall.Config{AccessPool: closed}).Recall(ctx, member, q, 100, nil)
	if err != nil || len(p.Items) == 0 || p.Accessed != 0 || len(p.Warnings) != 1 || p.Warnings[0].Stage != "access" {
		t.Fatalf("lenient access: %v, %d items, accessed %d, warnings %v", err, len(p.Items), p.Accessed, p.Warnings)
	}
	if _, err := b.engine(t, recall.Config{AccessPool: closed, Strict: true}).Recall(ctx, member, q, 100, nil); !errors.Is(err, recall.ErrAccess) {
		t.Fatalf("strict access: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	e := b.engine(t, recall.Config{MaxBudget: 10_000})
	long := strings.Repeat("word ", 401) // 2005 bytes: 502 tokens
	for _, tc := range []struct {
		name   string
		user   recall.User
		query  string
		budget int
		field  string
		limit  int
	}{
		{"empty query", member, "", 100, "query", 0},
		{"blank query", member, " \n\t ", 100, "query", 0},
		{"query over 500 tokens", member, long, 100, "query", 500},
		{"invalid UTF-8", member, "caf\xe9", 100, "query", 0},
		{"NUL byte", member, "a\x00b", 100, "query", 0},
		{"zero budget", member, "cranes", 0, "budget", 0},
		{"negative budget", member, "cranes", -5, "budget", 0},
		{"absurd budget", member, "cranes", 10_001, "budget", 10_000},
		{"no read scopes", recall.User{ID: "x"}, "cranes", 100, "user.read_scopes", 0},
		{"bad scope name", recall.User{Read: []string{"team", "no spaces"}}, "cranes", 100, "user.read_scopes[1]", 0},
		{"too many scopes", recall.User{Read: manyScopes(65)}, "cranes", 100, "user.read_scopes", 64},
		{"write outside read", recall.User{Read: []string{"team"}, Write: []string{"other"}}, "cranes", 100, "user.write_scopes", 0},
		{"label with NUL", recall.User{Read: []string{"team"}, Label: "a\x00"}, "cranes", 100, "user.label", 0},
		{"label of 1 MB", recall.User{Read: []string{"team"}, Label: strings.Repeat("Ana ", 250_000)}, "cranes", 100, "user.label", recall.MaxLabelLen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []func() error{
				func() error { _, err := e.Recall(ctx, tc.user, tc.query, tc.budget, nil); return err },
				func() error { _, err := e.Trace(ctx, tc.user, tc.query, tc.budget, nil); return err },
			} {
				err := call()
				var ie *recall.InputError
				if !errors.As(err, &ie) || ie.Field != tc.field || ie.Limit != tc.limit {
					t.Fatalf("err %v (%#v), want an InputError for %s with limit %d", err, ie, tc.field, tc.limit)
				}
			}
		})
	}
	// Nothing was recorded by the refused calls.
	for id, st := range accessState(t, b.db.Owner) {
		if st[0].(int64) != 0 {
			t.Fatalf("%s accessed", id)
		}
	}

	// An embedder of another dimension than the stored one.
	small, _ := embed.NewHashing(64)
	_, err := b.engine(t, recall.Config{Embedder: small}).Recall(ctx, member, "cranes", 100, nil)
	var de *recall.DimensionError
	if !errors.As(err, &de) || de.Embedder != 64 || !slices.Equal(de.Stored, []int{b.emb.Dim()}) {
		t.Fatalf("dimension: %v", err)
	}
	// The owner role escapes row security: refused.
	if _, err := recall.New(ctx, recall.Config{Pool: b.db.Owner}); !errors.Is(err, recall.ErrUnsafeRole) {
		t.Fatalf("owner pool: %v", err)
	}
}

func manyScopes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "s" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return out
}

func TestAbstention(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	e := b.engine(t, recall.Config{MinSimilarity: 0.9})
	// A scope with nothing in it: no match, an empty pack with its reason.
	p, err := e.Recall(ctx, recall.User{Read: []string{"elsewhere"}}, "cranes", 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Abstain.NoMatch || !p.Abstain.TooFew || len(p.Items) != 0 || p.Empty != budget.ReasonNoCandidates {
		t.Fatalf("empty scope: %+v, %d items, empty %q", p.Abstain, len(p.Items), p.Empty)
	}
	tr, err := e.Trace(ctx, member, "Dan Wu marathon Rotterdam", 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	top := 0.0
	for _, j := range tr.Lanes[statement.Vector] {
		top = max(top, tr.Candidates[j].Lanes[statement.Vector].Score)
	}
	a := tr.Pack.Abstain
	if a.TopSimilarity != top || top == 0 || a.LowSimilarity != (top < 0.9) || a.NoMatch || a.TooFew {
		t.Fatalf("abstention %+v, top vector similarity %v", a, top)
	}
}

// TestConcurrentRecalls: 32 goroutines x 500 recalls over the same memories. No errors, no
// deadlocks, and every packed item's access is counted exactly once.
func TestConcurrentRecalls(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	// The counts are what this test checks, not the recording's bound: 32 workers recording
	// the same few memories queue on their rows, and on a loaded 2-core CI machine one
	// recording waited past the default 2 s (a warning, so a failure here).
	e := b.engine(t, recall.Config{AccessTimeout: 30 * time.Second})
	workers, rounds := 32, 500
	if testing.Short() {
		rounds = 20
	}
	queries := []string{"Alice Lisbon", "harbor cranes", "Dan Wu Rotterdam", "Carol bread", "Bob cat", "Tokyo conference"}
	var packed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				p, err := e.Recall(ctx, member, queries[(w+i)%len(queries)], 40+(i%3)*40, nil)
				if err != nil {
					errs <- err
					return
				}
				if len(p.Warnings) > 0 || p.Accessed != int64(len(p.Items)) {
					errs <- fmt.Errorf("warnings %v, accessed %d of %d", p.Warnings, p.Accessed, len(p.Items))
					return
				}
				packed.Add(int64(len(p.Items)))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var total int64
	if err := b.db.Owner.QueryRow(ctx, `SELECT sum(access_count) FROM recall.memory_access`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	if total != packed.Load() || total == 0 {
		t.Fatalf("access counts sum to %d, %d items were packed", total, packed.Load())
	}
	t.Logf("%d recalls, %d items packed", workers*rounds, total)
}

// TestRecallWithONNXModels: the tiny ONNX embedder and cross-encoder end to end. The budget
// counts the embedder's tokens, the head is reranked, and a query longer than the embedder
// takes comes back with a warning, not an error.
func TestRecallWithONNXModels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	emb, err := embedonnx.New(ctx, embedonnx.Config{Dir: "testdata/models/tiny-embedder"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emb.Close() })
	ce, err := rerankonnx.New(ctx, rerankonnx.Config{Dir: "testdata/models/tiny-cross-encoder"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ce.Close() })
	if err := loadWorld(ctx, db.Owner, emb, []string{"team"}); err != nil {
		t.Fatal(err)
	}
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, Reranker: ce, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := e.Trace(ctx, member, "harbor cranes in Rotterdam", 80, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := tr.Pack
	if len(p.Items) == 0 || len(p.Warnings) != 0 {
		t.Fatalf("%d items, warnings %v", len(p.Items), p.Warnings)
	}
	reranked := 0
	for _, c := range tr.Candidates[:tr.K] {
		if c.RerankScore != nil {
			reranked++
			want, err := ce.Score(ctx, "harbor cranes in Rotterdam", []string{c.Text})
			if err != nil || math.Abs(float64(*c.RerankScore-want[0])) > 1e-5 {
				t.Fatalf("%s: rerank score %v, alone %v (%v)", c.ExternalID, *c.RerankScore, want, err)
			}
		}
	}
	if reranked != min(tr.K, 32) {
		t.Fatalf("%d reranked of %d", reranked, tr.K)
	}
	for _, it := range p.Items {
		if it.Tokens != emb.Count(it.Text) {
			t.Fatalf("%s: %d tokens, the model's tokenizer counts %d", it.ExternalID, it.Tokens, emb.Count(it.Text))
		}
	}
	long := strings.Repeat("harbor cranes ", 40) // 80 words: over the tiny model's 64 tokens
	p, err = e.Recall(ctx, member, long, 80, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Warnings) == 0 || p.Warnings[0].Stage != "embed" || !strings.Contains(p.Warnings[0].Message, "cut to 62 of its 80 tokens") {
		t.Fatalf("warnings %v", p.Warnings)
	}
}

// TestBadSettings: a setting out of range is refused by New and by SetSettings with a
// *statement.SettingError naming it, and SetSettings leaves the settings in use unchanged.
func TestBadSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bad := statement.DefaultSettings()
	bad.TitleFloor = 0
	var se *statement.SettingError
	if _, err := recall.New(context.Background(), recall.Config{Pool: b.db.Runtime, Settings: &bad}); !errors.As(err, &se) || se.Field != "TitleFloor" {
		t.Fatalf("New: %v, want a *statement.SettingError for TitleFloor", err)
	}
	e := b.engine(t, recall.Config{})
	before := e.Settings()
	if err := e.SetSettings(bad); !errors.As(err, &se) || se.Field != "TitleFloor" {
		t.Fatalf("SetSettings: %v, want a *statement.SettingError for TitleFloor", err)
	}
	if e.Settings() != before {
		t.Fatal("SetSettings changed the settings although it refused them")
	}
	good := statement.DefaultSettings()
	good.RRFK = 7
	if err := e.SetSettings(good); err != nil || e.Settings().RRFK != 7 {
		t.Fatalf("SetSettings(valid): %v, RRFK %v", err, e.Settings().RRFK)
	}
}
