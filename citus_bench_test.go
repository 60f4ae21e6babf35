package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkCitusRecall: the same writes on the distributed schema (coordinator and two
// workers on this machine) and on a single server, then the maximal recall of a caller of
// one scope set on each, alternating recall by recall, so both arms share the machine's
// moment. RECALL_CITUS_BENCH_N memories (default 2,000) go to the caller's set and as many
// to each of three other sets. It reports each arm's p50 and p95 and the cluster's p50 over
// the single server's (x_single), and each arm's write throughput (memories a second,
// through Engine.Write in batches of 200). Beside each recall, a browse by a caller of two
// sets (t and o1: on the cluster read set by set and merged) of a page of 50 at a random
// offset up to 500, half of them with a text filter: browse2_* and x_single_browse2; and the
// recall of a caller of t and another set on t's worker (recall2_*, x_single_recall2), and
// of t and a set on the other worker (apart_*, x_single_apart), both read in rounds
// (statement.RunSpread, one text a set: sets_per_text's default; BenchmarkCitusSets compares
// it with one text over the union of a worker's sets).
//
//	make citus && go test -run '^$' -bench CitusRecall -benchtime 60x .
func BenchmarkCitusRecall(b *testing.B) {
	n := 2000
	if v := os.Getenv("RECALL_CITUS_BENCH_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("RECALL_CITUS_BENCH_N=%q: a positive count", v)
		}
	}
	cdb, sdb := distributedPair(b)
	ctx := context.Background()
	sets := []string{"t", "o1", "o2", "o3"}
	engines, rates := benchEngines(b, cdb, sdb, sets, n)
	words, names := benchWords, benchNames
	user := recall.User{ID: "t", Read: []string{"t"}}
	r := rand.New(rand.NewPCG(2, 34))
	question := func() string {
		return "What did " + names[r.IntN(len(names))] + " say about the " + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + "?"
	}
	for _, e := range engines { // a first recall plans and caches on each
		if _, err := e.Recall(ctx, user, question(), 1000, nil); err != nil {
			b.Fatal(err)
		}
	}
	two := recall.User{ID: "t2", Read: []string{"t", "o1"}}
	// A caller of t and the first other set on t's worker recalls there (statement.RunOnShards).
	var near, far recall.User
	tx, err := cdb.Runtime.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	place := func(set string) string {
		p, err := statement.PlacementOf(ctx, tx, []string{set})
		if err != nil {
			b.Fatal(err)
		}
		return fmt.Sprintf("%s:%d", p.Host, p.Port)
	}
	for _, o := range sets[1:] {
		if near.ID == "" && place(o) == place("t") {
			near = recall.User{ID: "near", Read: []string{"t", o}}
		}
		if far.ID == "" && place(o) != place("t") {
			far = recall.User{ID: "far", Read: []string{"t", o}}
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		b.Fatal(err)
	}
	if near.ID == "" || far.ID == "" {
		b.Fatalf("the other sets are not on both workers (near %v, far %v)", near.Read, far.Read)
	}
	var times, browses, nears, fars [2][]time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := question()
		bq := recall.BrowseQuery{Limit: 50, Offset: r.IntN(501)}
		if i%2 == 1 {
			bq.Text = words[r.IntN(len(words))]
		}
		// Each call on both arms, alternating which goes first.
		both := func(lat *[2][]time.Duration, call func(e *recall.Engine) error) {
			for k := range 2 {
				arm := (i + k) % 2
				t := time.Now()
				if err := call(engines[arm]); err != nil {
					b.Fatal(err)
				}
				lat[arm] = append(lat[arm], time.Since(t))
			}
		}
		recallAs := func(u recall.User) func(e *recall.Engine) error {
			return func(e *recall.Engine) error { _, err := e.Recall(ctx, u, q, 1000, nil); return err }
		}
		both(&times, recallAs(user))
		both(&browses, func(e *recall.Engine) error { _, err := e.Browse(ctx, two, bq); return err })
		both(&nears, recallAs(near))
		both(&fars, recallAs(far))
	}
	b.StopTimer()
	pct := func(d []time.Duration, p float64) float64 {
		s := slices.Clone(d)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(times[0], 0.5), "citus_p50_ms")
	b.ReportMetric(pct(times[0], 0.95), "citus_p95_ms")
	b.ReportMetric(pct(times[1], 0.5), "single_p50_ms")
	b.ReportMetric(pct(times[1], 0.95), "single_p95_ms")
	b.ReportMetric(pct(times[0], 0.5)/pct(times[1], 0.5), "x_single")
	b.ReportMetric(pct(nears[0], 0.5), "recall2_citus_p50_ms")
	b.ReportMetric(pct(nears[1], 0.5), "recall2_single_p50_ms")
	b.ReportMetric(pct(nears[0], 0.5)/pct(nears[1], 0.5), "x_single_recall2")
	b.ReportMetric(pct(fars[0], 0.5), "apart_citus_p50_ms")
	b.ReportMetric(pct(fars[1], 0.5), "apart_single_p50_ms")
	b.ReportMetric(pct(fars[0], 0.5)/pct(fars[1], 0.5), "x_single_apart")
	b.ReportMetric(pct(browses[0], 0.5), "browse2_citus_p50_ms")
	b.ReportMetric(pct(browses[1], 0.5), "browse2_single_p50_ms")
	b.ReportMetric(pct(browses[0], 0.5)/pct(browses[1], 0.5), "x_single_browse2")
	b.ReportMetric(rates[0], "citus_writes/s")
	b.ReportMetric(rates[1], "single_writes/s")
}

// The vocabulary and speakers of the Citus benchmarks' memories: short sentences over 26
// words, so every term's postings are long.
var (
	benchWords = strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed " +
		"report engine cargo tide permit crew berth repair audit invoice ledger signal")
	benchNames = []string{"Alice Martin", "Bob Stone", "Carol Diaz", "Dan Wu", "Eve Park"}
)

// benchEngines writes n memories to each of sets, in batches of 200, through an engine on
// each of dbs (hashing embedder, no access recording), and returns the engines and each
// one's write throughput (memories a second).
func benchEngines(b *testing.B, cdb, sdb *testdb.DB, sets []string, n int) ([]*recall.Engine, []float64) {
	b.Helper()
	ctx := context.Background()
	emb, err := embed.NewHashing(256)
	if err != nil {
		b.Fatal(err)
	}
	writer := recall.User{ID: "w", Read: sets, Write: sets}
	var engines []*recall.Engine
	var rates []float64
	for _, db := range []*testdb.DB{cdb, sdb} {
		e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true})
		if err != nil {
			b.Fatal(err)
		}
		engines = append(engines, e)
		r := rand.New(rand.NewPCG(1, 34))
		start, written := time.Now(), 0
		for _, sc := range sets {
			for batch := 0; batch*200 < n; batch++ {
				src := fmt.Sprintf("chat%d", batch)
				bt := recall.Batch{Scopes: []string{sc}, Sources: []recall.Source{{ID: src, Title: "Harbor log " + src}}}
				for i := range min(200, n-batch*200) {
					var w []string
					for range 6 + r.IntN(8) {
						w = append(w, benchWords[r.IntN(len(benchWords))])
					}
					bt.Memories = append(bt.Memories, recall.Memory{ID: fmt.Sprintf("%s-%d", src, i), Source: src, Position: i + 1,
						Speaker: benchNames[r.IntN(len(benchNames))], Text: benchNames[r.IntN(len(benchNames))] + " " + strings.Join(w, " ") + "."})
				}
				if _, err := e.Write(ctx, writer, bt); err != nil {
					b.Fatal(err)
				}
				written += len(bt.Memories)
			}
		}
		rates = append(rates, float64(written)/time.Since(start).Seconds())
	}
	return engines, rates
}
