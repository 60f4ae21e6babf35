package recall_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/modeltest"
	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/internal/synth"
	"github.com/recall-engine/recall/internal/testdb"
	"github.com/recall-engine/recall/rerank"
	rerankonnx "github.com/recall-engine/recall/rerank/onnx"
)

// benchEngine returns an engine over the synthetic corpus of RECALL_BENCH_N memories
// (default 100,000) embedded by the built-in hashing embedder, generated once per server
// and kept (testdb.Persistent).
func benchEngine(b *testing.B, rr rerank.Reranker) (*recall.Engine, *synth.Corpus) {
	b.Helper()
	n := 100000
	if v := os.Getenv("RECALL_BENCH_N"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1000 {
			b.Fatalf("RECALL_BENCH_N=%q: want an integer >= 1000", v)
		}
	}
	emb, err := embed.NewHashing(0)
	if err != nil {
		b.Fatal(err)
	}
	c := synth.New(synth.Config{N: n, Dim: emb.Dim(), Embed: func(texts []string) ([][]float32, error) {
		return emb.Embed(context.Background(), texts, embed.Document)
	}})
	db := testdb.Persistent(b, fmt.Sprintf("hashing%d_%d_%d", synth.Version, n, c.Cfg.Seed), func(db *testdb.DB) error {
		start, last := time.Now(), time.Now()
		return c.Load(context.Background(), db.Owner, func(stage string, done, total int) {
			if time.Since(last) > 10*time.Second || done == total {
				last = time.Now()
				fmt.Fprintf(os.Stderr, "synth: %s %d/%d (%v)\n", stage, done, total, time.Since(start).Round(time.Second))
			}
		})
	})
	e, err := recall.New(context.Background(), recall.Config{Pool: db.Runtime, Embedder: emb, Reranker: rr,
		Now: func() time.Time { return synth.Base.Add(2 * 365 * 24 * time.Hour) }})
	if err != nil {
		b.Fatal(err)
	}
	return e, c
}

// runRecalls runs b.N recalls of the corpus's queries for a user of the big scope and
// reports p50 and p95 of the whole call and the median of each stage.
func runRecalls(b *testing.B, e *recall.Engine, c *synth.Corpus) {
	user := recall.User{ID: "bench", Read: []string{synth.BigScope}, Write: []string{synth.BigScope}}
	var total, st, emb, rr, acc []time.Duration
	i := 0
	for b.Loop() {
		p, err := e.Recall(context.Background(), user, c.Query(i).Raw, 2000, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(p.Items) == 0 || len(p.Warnings) > 0 {
			b.Fatalf("query %d: %d items, warnings %v", i, len(p.Items), p.Warnings)
		}
		total = append(total, p.Timings.Total)
		st = append(st, p.Timings.Statement)
		emb = append(emb, p.Timings.Embed)
		rr = append(rr, p.Timings.Rerank)
		acc = append(acc, p.Timings.Access)
		i++
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	q := func(lat []time.Duration, f float64) time.Duration {
		s := append([]time.Duration(nil), lat...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[min(len(s)-1, int(f*float64(len(s))))]
	}
	b.ReportMetric(ms(q(total, 0.5)), "p50_ms")
	b.ReportMetric(ms(q(total, 0.95)), "p95_ms")
	b.ReportMetric(ms(q(st, 0.5)), "statement_p50_ms")
	b.ReportMetric(ms(q(emb, 0.5)), "embed_p50_ms")
	b.ReportMetric(ms(q(rr, 0.5)), "rerank_p50_ms")
	b.ReportMetric(ms(q(acc, 0.5)), "access_p50_ms")
}

// BenchmarkRecall: Recall end to end (embed, statement, merit order, budget walk, access
// recording) with the built-in embedder and no reranker.
func BenchmarkRecall(b *testing.B) {
	e, c := benchEngine(b, nil)
	runRecalls(b, e, c)
}

// BenchmarkRecallRerank: the same with a MiniLM-L6-shaped random cross-encoder over the
// first 32 candidates (speed only: random weights), on each backend in the binary. Pairs
// are cut to 256 tokens, about what a 100-word memory takes under a real vocabulary (the
// synthetic corpus's made-up words split into many more word pieces).
func BenchmarkRecallRerank(b *testing.B) {
	dir := modeltest.BenchModel(b, "minilm-l6-cross-encoder")
	backends := []rerankonnx.Backend{rerankonnx.BackendGo}
	if ortrun.Built {
		backends = append(backends, rerankonnx.BackendORT)
	}
	for _, backend := range backends {
		ce, err := rerankonnx.New(context.Background(), rerankonnx.Config{Dir: dir, Backend: backend, MaxLen: 256})
		if err != nil {
			b.Fatal(err)
		}
		e, c := benchEngine(b, ce)
		b.Run("backend="+string(backend), func(b *testing.B) { runRecalls(b, e, c) })
		_ = ce.Close()
	}
}
