package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/keys"
	"github.com/recall-engine/recall/server"
)

// BenchmarkServe: 64 concurrent clients for RECALL_BENCH_SECONDS (10) per arm against the
// synthetic corpus (RECALL_BENCH_N, 100,000): recalls called directly on the Engine, then
// the same recalls and traces over HTTP on a loopback server with a read-only key. Reports
// p50/p95/p99 in ms, throughput and errors per arm, and http_over_direct_p50. Run with
// -benchtime=1x (make bench-serve): each arm runs for its time whatever b.N is.
func BenchmarkServe(b *testing.B) {
	c, db, emb := synth.Persistent(b, synth.BenchN(b, 100000))
	ctx := context.Background()
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb})
	if err != nil {
		b.Fatal(err)
	}
	text, k, err := keys.Create(ctx, db.Owner, keys.Spec{User: "bench", Read: []string{synth.BigScope}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _, _ = db.Owner.Exec(context.Background(), `DELETE FROM recall.api_keys WHERE id = $1`, k.ID) })
	srv, err := server.New(server.Config{Engine: e, Keys: db.Runtime, MaxConcurrent: 64,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = srv.Serve(sctx, ln, 5*time.Second) }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	secs, _ := strconv.Atoi(os.Getenv("RECALL_BENCH_SECONDS"))
	if secs <= 0 {
		secs = 10
	}
	user := recall.User{ID: "bench", Read: []string{synth.BigScope}}
	post := func(path string, i int) error {
		body, _ := json.Marshal(server.RecallRequest{Query: c.Query(i).Raw, Budget: 2000})
		req, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+text)
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return &statusError{res.StatusCode}
		}
		return nil
	}
	arms := []struct {
		name string
		call func(i int) error
	}{
		{"direct_recall", func(i int) error { _, err := e.Recall(ctx, user, c.Query(i).Raw, 2000, nil); return err }},
		{"http_recall", func(i int) error { return post("/v1/recall", i) }},
		{"http_trace", func(i int) error { return post("/v1/trace", i) }},
	}
	// Warm the caches, the plans of every pool connection and the HTTP connections first:
	// the arm that ran first otherwise paid for them.
	load(64, time.Duration(secs)*time.Second/2, arms[0].call)
	load(64, time.Duration(secs)*time.Second/2, arms[1].call)
	p50 := map[string]float64{}
	for range b.N {
		for _, arm := range arms {
			lat, errs := load(64, time.Duration(secs)*time.Second, arm.call)
			slices.Sort(lat)
			q := func(f float64) float64 { return float64(lat[int(f*float64(len(lat)-1))].Microseconds()) / 1000 }
			p50[arm.name] = q(0.5)
			b.ReportMetric(q(0.5), arm.name+"_p50_ms")
			b.ReportMetric(q(0.95), arm.name+"_p95_ms")
			b.ReportMetric(q(0.99), arm.name+"_p99_ms")
			b.ReportMetric(float64(len(lat))/float64(secs), arm.name+"_per_s")
			b.ReportMetric(float64(errs), arm.name+"_errors")
		}
	}
	b.ReportMetric(p50["http_recall"]/p50["direct_recall"], "http_over_direct_p50")
}

type statusError struct{ code int }

func (e *statusError) Error() string { return "status " + strconv.Itoa(e.code) }

// load runs call from clients goroutines for d and returns every successful call's latency
// and the number of errors.
func load(clients int, d time.Duration, call func(i int) error) ([]time.Duration, int) {
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for g := range clients {
		wg.Go(func() {
			for i := g; time.Now().Before(end); i += clients {
				t := time.Now()
				err := call(i % 200)
				el := time.Since(t)
				mu.Lock()
				if err != nil {
					errs++
				} else {
					lat = append(lat, el)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return lat, errs
}
