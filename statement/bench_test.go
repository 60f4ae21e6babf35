package statement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// benchCorpus returns the synthetic corpus of RECALL_BENCH_N memories (default 10,000) and
// its database, generated once per server and migration hash and kept for later runs
// (testdb.Persistent).
func benchCorpus(b testing.TB) (*synth.Corpus, *testdb.DB) {
	b.Helper()
	return benchCorpusOf(b, benchSize(b, "RECALL_BENCH_N", 10000))
}

// benchSize reads a corpus size from the environment variable name, def when it is unset.
func benchSize(b testing.TB, name string, def int) int {
	b.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 {
		b.Fatalf("%s=%q: want an integer >= 100", name, v)
	}
	return n
}

// benchCorpusOf is benchCorpus for a corpus of n memories.
func benchCorpusOf(b testing.TB, n int) (*synth.Corpus, *testdb.DB) {
	b.Helper()
	c := synth.New(synth.Config{N: n})
	db := testdb.Persistent(b, fmt.Sprintf("synth%d_%d_%d", synth.Version, n, c.Cfg.Seed), func(db *testdb.DB) error {
		start := time.Now()
		last := time.Now()
		err := c.Load(context.Background(), db.Owner, func(stage string, done, total int) {
			if time.Since(last) > 10*time.Second || done == total {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "synth: %s %d/%d (%v)\n", stage, done, total, time.Since(start).Round(time.Second))
			}
		})
		return err
	})
	return c, db
}

// benchSettings are the default settings with the fields of the JSON object in
// RECALL_BENCH_SETTINGS (Settings field names, e.g. {"TitleFuzzyWords": 2}) set on top.
func benchSettings(b *testing.B) statement.Settings {
	s := statement.DefaultSettings()
	v := os.Getenv("RECALL_BENCH_SETTINGS")
	if v == "" {
		return s
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		b.Fatalf("RECALL_BENCH_SETTINGS: %v", err)
	}
	if err := s.Validate(); err != nil {
		b.Fatalf("RECALL_BENCH_SETTINGS: %v", err)
	}
	return s
}

// benchQuery is the corpus's query i for a caller of scope, with a week's window.
func benchQuery(c *synth.Corpus, scope string, i int) statement.Query {
	q := c.QueryIn(scope, i)
	day := synth.Base.Add(time.Duration(i%700) * 24 * time.Hour)
	return statement.Query{
		Text: q.Text, Raw: q.Raw, Vector: q.Vector,
		WindowStart: day, WindowEnd: day.Add(7 * 24 * time.Hour),
		Now: synth.Base.Add(2 * 365 * 24 * time.Hour),
	}
}

func percentiles(b *testing.B, lat []time.Duration, prefix string) float64 {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50 := float64(lat[len(lat)/2].Microseconds()) / 1000
	b.ReportMetric(p50, prefix+"p50_ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, prefix+"p95_ms")
	return p50
}

// timedRun runs st for q as who on db's runtime pool and returns its rows and how long the
// run took; an error ends the benchmark b.
func timedRun(b *testing.B, db *testdb.DB, who statement.Scopes, st *statement.Statement, q statement.Query, s statement.Settings) ([]statement.Candidate, time.Duration) {
	b.Helper()
	t0 := time.Now()
	out, err := statement.Run(context.Background(), db.Runtime, who, st, q, s)
	d := time.Since(t0)
	if err != nil {
		b.Fatal(err)
	}
	return out, d
}

// BenchmarkMaximal runs the maximal statement (as a recall runs it: the lanes of weight above
// 0, Settings.Narrow) for a caller of the big scope (99% of rows) and of the small one (1%),
// and each lane alone, reporting p50 and p95. RECALL_BENCH_PLANS,
// a comma-separated list of plan names (statement.ParsePlan: "maximal", "bm25", "-title",
// "vector+bm25"), runs those plans for the big scope instead.
//
// RECALL_BENCH_CONTROL=n (a corpus size, e.g. 10000) adds a control: after each iteration
// the maximal statement runs once on the corpus of n memories, for a caller of the whole of
// it (its big scope), on the same server. Each arm then also reports the control's p50
// (control_p50_ms) and its own p50 over it (x_control). This machine's speed moves by a
// third between hours (BENCHMARKS.md), so a figure from one run says little alone; the
// ratio to a control measured in the same minutes moves much less.
func BenchmarkMaximal(b *testing.B) {
	c, db := benchCorpus(b)
	s := benchSettings(b)
	// The control: the maximal statement on the corpus of RECALL_BENCH_CONTROL memories.
	type corpusStatement struct {
		c  *synth.Corpus
		db *testdb.DB
		st *statement.Statement
	}
	var control *corpusStatement
	if n := benchSize(b, "RECALL_BENCH_CONTROL", 0); n > 0 {
		cc, cdb := benchCorpusOf(b, n)
		cst, err := statement.Build(statement.Shape{Dim: cc.Cfg.Dim, Fuzzy: true, Plan: s.Narrow(statement.Maximal)})
		if err != nil {
			b.Fatal(err)
		}
		control = &corpusStatement{cc, cdb, cst}
	}
	type arm struct {
		plan  statement.Plan
		scope string
	}
	// What a recall runs: every lane of weight above 0 (the graph lane's is 0 by default).
	def := s.Narrow(statement.Maximal)
	arms := []arm{{def, synth.BigScope}, {def, synth.SmallScope}}
	for l := range statement.Lane(statement.NumLanes) {
		arms = append(arms, arm{statement.Only(l), synth.BigScope})
	}
	if v := os.Getenv("RECALL_BENCH_PLANS"); v != "" {
		arms = nil
		for _, name := range strings.Split(v, ",") {
			p, err := statement.ParsePlan(strings.TrimSpace(name))
			if err != nil {
				b.Fatalf("RECALL_BENCH_PLANS: %v", err)
			}
			arms = append(arms, arm{p, synth.BigScope})
		}
	}
	for _, a := range arms {
		st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: a.plan})
		if err != nil {
			b.Fatal(err)
		}
		who := statement.Scopes{Read: []string{a.scope}}
		b.Run(fmt.Sprintf("n=%d/plan=%s/scope=%s", c.Cfg.N, a.plan, a.scope), func(b *testing.B) {
			var lat, ctl []time.Duration
			i := 0
			for b.Loop() {
				i++
				out, d := timedRun(b, db, who, st, benchQuery(c, a.scope, i), s)
				lat = append(lat, d)
				if len(out) == 0 && a.plan == def {
					b.Fatal("no rows")
				}
				if control != nil {
					b.StopTimer()
					out, d := timedRun(b, control.db, statement.Scopes{Read: []string{synth.BigScope}}, control.st,
						benchQuery(control.c, synth.BigScope, i), s)
					if len(out) == 0 {
						b.Fatal("control: no rows")
					}
					ctl = append(ctl, d)
					b.StartTimer()
				}
			}
			p50 := percentiles(b, lat, "")
			if control != nil {
				c50 := percentiles(b, ctl, "control_")
				b.ReportMetric(p50/c50, "x_control")
			}
		})
	}
}

// stageRE finds the WITH queries of a statement, in order.
var stageRE = regexp.MustCompile(`(?m)^([a-z0-9_]+)(?: \([a-z0-9_, ]+\))? AS (?:MATERIALIZED )?\(`)

// BenchmarkStages times the maximal statement cut after each of its WITH queries, as
// "SELECT count(*) FROM stage" for a caller of the big scope (RECALL_BENCH_SCOPE=small for
// the 1% one): Postgres runs only the WITH
// queries the final query reads and those they read, so the step from one stage of a lane to
// the next is what that stage costs, without EXPLAIN ANALYZE's per-node overhead (which at
// 100k memories made the graph lane look 60% slower than it runs).
func BenchmarkStages(b *testing.B) {
	c, db := benchCorpus(b)
	s := benchSettings(b)
	st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		b.Fatal(err)
	}
	who := synth.BigScope
	if v := os.Getenv("RECALL_BENCH_SCOPE"); v != "" {
		who = v
	}
	head := st.SQL[:strings.LastIndex(st.SQL, "\nSELECT ")]
	for _, m := range stageRE.FindAllStringSubmatch(head, -1) {
		sql := head + "\nSELECT count(*) FROM " + m[1]
		b.Run(fmt.Sprintf("n=%d/scope=%s/stage=%s", c.Cfg.N, who, m[1]), func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				i++
				args, err := st.Args(benchQuery(c, who, i), s)
				if err != nil {
					b.Fatal(err)
				}
				asReader(b, db.Runtime, []string{who}, s, func(ctx context.Context, tx pgx.Tx) error {
					t0 := time.Now()
					var n int
					err := tx.QueryRow(ctx, sql, args).Scan(&n)
					lat = append(lat, time.Since(t0))
					return err
				})
			}
			percentiles(b, lat, "")
		})
	}
}

// BenchmarkSingleVsSeparate alternates, query by query, the maximal statement and the same
// lanes issued as separate statements (one per lane, one transaction, one snapshot) fused in
// Go, and reports both latencies and their ratio (separate / single).
func BenchmarkSingleVsSeparate(b *testing.B) {
	c, db := benchCorpus(b)
	s := benchSettings(b)
	shape := statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: statement.Maximal}
	single, err := statement.Build(shape)
	if err != nil {
		b.Fatal(err)
	}
	var lanes []*statement.Statement
	for l := range statement.Lane(statement.NumLanes) {
		st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: statement.Only(l)})
		if err != nil {
			b.Fatal(err)
		}
		lanes = append(lanes, st)
	}
	who := statement.Scopes{Read: []string{synth.BigScope}}
	ctx := context.Background()
	b.Run(fmt.Sprintf("n=%d", c.Cfg.N), func(b *testing.B) {
		var one, sep []time.Duration
		i := 0
		for b.Loop() {
			i++
			q := benchQuery(c, synth.BigScope, i)
			a, d := timedRun(b, db, who, single, q, s)
			one = append(one, d)
			t0 := time.Now()
			lists, err := statement.RunEach(ctx, db.Runtime, who, lanes, q, s)
			fused := fuseInGo(lists, s)
			sep = append(sep, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
			if len(a) == 0 || len(fused) == 0 {
				b.Fatal("no rows")
			}
		}
		p1 := percentiles(b, one, "single_")
		p2 := percentiles(b, sep, "separate_")
		b.ReportMetric(p2/p1, "ratio")
	})
}

// fuseInGo is the client-side equivalent of the statement's fusion: RRF over the lanes'
// ranks plus the recency and frequency terms, best first, at most s.K rows.
func fuseInGo(lists [][]statement.Candidate, s statement.Settings) []statement.Candidate {
	byID := map[int64]*statement.Candidate{}
	for l, list := range lists {
		for _, c := range list {
			m, ok := byID[c.ID]
			if !ok {
				cc := c
				cc.RRF, cc.Score = 0, 0
				m = &cc
				byID[c.ID] = m
			}
			m.Lanes[l] = c.Lanes[l]
			m.Direct = m.Direct || c.Direct
		}
	}
	out := make([]statement.Candidate, 0, len(byID))
	for _, c := range byID {
		for l, h := range c.Lanes {
			if h.Rank > 0 {
				c.RRF += s.Weights[l] / (s.RRFK + float64(h.Rank))
			}
		}
		c.Score = c.RRF + s.WFrequency*math.Log1p(float64(c.AccessCount))
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	return out[:min(len(out), s.K)]
}

// BenchmarkTitleTypos is the fuzzy title check: 100 source titles of the corpus, sampled
// evenly, each with one letter of its longest word changed, named in a question ("what does
// <title> say about it?"); the title probe (recall.probe_titles, as a caller of the big
// scope in a recall's session, the default settings) should find each one. It reports how
// many of the 100 it found and the probe's p50.
func BenchmarkTitleTypos(b *testing.B) {
	c, db := benchCorpus(b)
	s := benchSettings(b)
	nsrc := (c.Cfg.N + c.Cfg.PerSrc - 1) / c.Cfg.PerSrc
	type probe struct{ question, title string }
	var probes []probe
	for k := range 100 {
		title := c.SourceTitle(k * nsrc / 100)
		words := strings.Fields(title)
		longest := 0
		for i, w := range words {
			if len(w) > len(words[longest]) {
				longest = i
			}
		}
		w := []byte(words[longest])
		at := len(w) / 2
		w[at] = 'a' + (w[at]-'a'+1)%26 // the next letter, z to a
		typo := append(append(append([]string{}, words[:longest]...), string(w)), words[longest+1:]...)
		probes = append(probes, probe{"what does " + strings.Join(typo, " ") + " say about it?", title})
	}
	for b.Loop() {
		found := 0
		var lat []time.Duration
		for _, p := range probes {
			// As the statement runs it: the recall session's settings (the trigram threshold
			// the GIN scans use is the floor; left at pg_trgm's default of 0.3 they return
			// more candidates to recheck).
			asReader(b, db.Runtime, []string{synth.BigScope}, s, func(ctx context.Context, tx pgx.Tx) error {
				t := time.Now()
				var n int
				err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.probe_titles($1, $2, $3, $4) p JOIN recall.sources s ON s.id = p.id WHERE s.title = $5`,
					p.question, s.TitleExactWords, s.TitleFuzzyWords, s.TitleFloor, p.title).Scan(&n)
				lat = append(lat, time.Since(t))
				if n > 0 {
					found++
				}
				return err
			})
		}
		b.ReportMetric(float64(found), "found/100")
		percentiles(b, lat, "probe_")
	}
}

// BenchmarkTitleProbe times the title probe alone (recall.probe_titles, as the title lane
// calls it, in a recall's session) on the bench's questions, for a caller of the big scope
// (the GIN way at 1M) and of the small one (its own postings), and reports p50 and p95.
func BenchmarkTitleProbe(b *testing.B) {
	c, db := benchCorpus(b)
	s := benchSettings(b)
	for _, who := range []string{synth.BigScope, synth.SmallScope} {
		b.Run(fmt.Sprintf("n=%d/scope=%s", c.Cfg.N, who), func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				i++
				q := strings.ToLower(benchQuery(c, who, i).Raw)
				asReader(b, db.Runtime, []string{who}, s, func(ctx context.Context, tx pgx.Tx) error {
					t := time.Now()
					var n int
					err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.probe_titles($1, $2, $3, $4)`,
						q, s.TitleExactWords, s.TitleFuzzyWords, s.TitleFloor).Scan(&n)
					lat = append(lat, time.Since(t))
					return err
				})
			}
			percentiles(b, lat, "")
		})
	}
}

// BenchmarkEntityProbeInvisibleNames measures what a name common in scopes the caller cannot
// see costs a small caller's entity probe, each way (recall.entity_probe: the trigram index,
// the caller's postings): the median time of probe_entities for a mention of that name minus
// for an absent name, the two alternating call by call in one transaction, before and after
// 3,000 entities of the name are added, each in a scope of its own. Reported in microseconds:
// <way>_before_us and <way>_after_us (named minus absent); a way that leaks nothing has both
// near zero. Runs on its own small database, not the bench corpus.
func BenchmarkEntityProbeInvisibleNames(b *testing.B) {
	db := testdb.New(b)
	ctx := context.Background()
	s := statement.DefaultSettings()
	if _, err := db.Owner.Exec(ctx, `INSERT INTO recall.entities (external_id, scopes, name)
		SELECT 'm' || i, '{mine}', 'Harbour master ' || i FROM generate_series(1, 3) i`); err != nil {
		b.Fatal(err)
	}
	settle := func() {
		for _, q := range []string{"VACUUM ANALYZE recall.entities", "VACUUM ANALYZE recall.entity_trigrams"} {
			if _, err := db.Owner.Exec(ctx, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	settle()
	gap := func(way string) float64 {
		var named, absent []time.Duration
		asReader(b, db.Runtime, []string{"mine"}, s, func(ctx context.Context, tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('recall.entity_probe', $1, true)`, way); err != nil {
				return err
			}
			for i := range 606 {
				m := []string{"zorblat quincy", "absent namez"}[i%2]
				t := time.Now()
				var n int
				if err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.probe_entities(ARRAY[$1], true, 0.7)`, m).Scan(&n); err != nil {
					return err
				}
				if i >= 6 && i%2 == 0 {
					named = append(named, time.Since(t))
				} else if i >= 6 {
					absent = append(absent, time.Since(t))
				}
			}
			return nil
		})
		slices.Sort(named)
		slices.Sort(absent)
		return float64(named[len(named)/2]-absent[len(absent)/2]) / float64(time.Microsecond)
	}
	ways := []string{"index", "scope"}
	before, after := map[string]float64{}, map[string]float64{}
	rounds := 0
	for b.Loop() {
		rounds++
		for _, w := range ways {
			before[w] += gap(w)
		}
	}
	if _, err := db.Owner.Exec(ctx, `INSERT INTO recall.entities (external_id, scopes, name)
		SELECT 'x' || g, ARRAY['other' || g], 'Zorblat Quincy' FROM generate_series(1, 3000) g`); err != nil {
		b.Fatal(err)
	}
	settle()
	for range rounds {
		for _, w := range ways {
			after[w] += gap(w)
		}
	}
	for _, w := range ways {
		b.ReportMetric(before[w]/float64(rounds), w+"_before_us")
		b.ReportMetric(after[w]/float64(rounds), w+"_after_us")
	}
}

// BenchmarkEntityProbeWays runs the maximal statement for the small scope's caller with the
// fuzzy entity probe forced each way (recall.entity_probe: the trigram index, the caller's
// postings), alternating query by query on the same corpus, and reports each way's p50
// (index_p50_ms, scope_p50_ms) and their ratio (scope_x_index): what a small caller pays for
// a probe whose work follows its own entities.
func BenchmarkEntityProbeWays(b *testing.B) {
	c, db := benchCorpus(b)
	s := benchSettings(b)
	st, err := statement.Build(statement.Shape{Dim: c.Cfg.Dim, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		b.Fatal(err)
	}
	ways := []string{"index", "scope"}
	dbs := map[string]*testdb.DB{}
	for _, way := range ways {
		cfg := db.Runtime.Config().Copy()
		cfg.ConnConfig.RuntimeParams["recall.entity_probe"] = way
		p, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(p.Close)
		d := *db
		d.Runtime = p
		dbs[way] = &d
	}
	who := statement.Scopes{Read: []string{synth.SmallScope}}
	b.Run(fmt.Sprintf("n=%d/scope=%s", c.Cfg.N, synth.SmallScope), func(b *testing.B) {
		lat := map[string][]time.Duration{}
		i := 0
		for b.Loop() {
			i++
			for _, way := range ways {
				_, d := timedRun(b, dbs[way], who, st, benchQuery(c, synth.SmallScope, i), s)
				lat[way] = append(lat[way], d)
			}
		}
		p := map[string]float64{}
		for _, way := range ways {
			p[way] = percentiles(b, lat[way], way+"_")
		}
		b.ReportMetric(p["scope"]/p["index"], "scope_x_index")
	})
}
