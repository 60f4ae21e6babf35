package recall_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestServerRestartMidLoad: recallers and writers run against a private server that is
// stopped (fast shutdown) and started again under them. Calls fail only while the server
// is down or in the moment it comes back (at most one failure per dead pool connection),
// the same Engine serves again without being rebuilt, every batch is all there or not at
// all (and all there when Write said so), and every recall that succeeded was counted.
func TestServerRestartMidLoad(t *testing.T) {
	t.Parallel()
	srv := testdb.Private(t)
	db := srv.NewDB(t)
	ctx := context.Background()
	emb, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	const maxConns = 6
	e, err := recall.Open(ctx, db.URL(testdb.RuntimeRole), recall.Config{Embedder: emb, Strict: true},
		recall.PoolOptions{MaxConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	user := recall.User{ID: "u", Read: []string{"team"}, Write: []string{"team"}}
	var base []recall.Memory
	for i := range 40 {
		base = append(base, recall.Memory{ID: fmt.Sprintf("base%d", i),
			Text: fmt.Sprintf("the harbor crane %d was inspected before the storm", i)})
	}
	if _, err := e.Write(ctx, user, recall.Batch{Memories: base}); err != nil {
		t.Fatal(err)
	}

	type outcome struct {
		at  time.Time
		err error
	}
	var (
		mu       sync.Mutex
		failures []outcome
		packed   = map[string]int{}  // base memories packed by recalls that succeeded
		wrote    = map[string]bool{} // batch -> Write reported success
		recalls  atomic.Int64
		afterUp  atomic.Int64 // successful recalls after the server is back
		upAgain  atomic.Bool
	)
	const batchSize = 5
	done := make(chan struct{})
	var wg sync.WaitGroup
	bounded := func(f func(context.Context) error) error {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return f(c)
	}
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				q := []string{"harbor storm", "crane inspected", "storm before"}[(g+i)%3]
				var p *recall.Pack
				err := bounded(func(c context.Context) (err error) { p, err = e.Recall(c, user, q, 200, nil); return err })
				mu.Lock()
				if err != nil {
					failures = append(failures, outcome{time.Now(), err})
				} else {
					for _, it := range p.Items {
						packed[it.ExternalID]++
					}
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(5 * time.Millisecond) // as a client would back off
				} else {
					recalls.Add(1)
					if upAgain.Load() {
						afterUp.Add(1)
					}
				}
			}
		})
	}
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				name := fmt.Sprintf("w%d-b%d", w, i)
				b := recall.Batch{}
				for m := range batchSize {
					b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("%s-m%d", name, m),
						Text: fmt.Sprintf("ferry %d of batch %s was delayed", m, name)})
				}
				err := bounded(func(c context.Context) error { _, err := e.Write(c, user, b); return err })
				mu.Lock()
				wrote[name] = err == nil
				if err != nil {
					failures = append(failures, outcome{time.Now(), err})
				}
				mu.Unlock()
				if err != nil {
					time.Sleep(5 * time.Millisecond)
				}
			}
		})
	}

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				close(done)
				wg.Wait()
				t.Fatalf("waited 60 s for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("recalls before the restart", func() bool { return recalls.Load() >= 50 })
	down := time.Now()
	srv.Stop(t)
	time.Sleep(300 * time.Millisecond)
	srv.Start(t)
	up := time.Now()
	upAgain.Store(true)
	waitFor("recalls after the restart", func() bool { return afterUp.Load() >= 100 })
	close(done)
	wg.Wait()

	// Failures: inside the outage, or the first use of a connection the restart killed.
	late := 0
	for _, f := range failures {
		switch {
		case f.at.Before(down):
			t.Errorf("failure before the server stopped: %v", f.err)
		case f.at.After(up.Add(2 * time.Second)):
			t.Errorf("failure %v after the server was back: %v", f.at.Sub(up), f.err)
		case f.at.After(up):
			late++
		}
	}
	if late > maxConns {
		t.Errorf("%d failures after the server was back, more than the pool's %d connections", late, maxConns)
	}
	if len(failures) == 0 {
		t.Fatal("no call failed while the server was down: the test did not restart it under load")
	}

	// Batches: all there or none; all there when Write succeeded.
	counts := map[string]int{}
	rows, err := db.Owner.Query(ctx, `SELECT split_part(external_id, '-m', 1), count(*) FROM recall.memories
		WHERE external_id LIKE 'w%' GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		counts[name] = n
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	landed, refused := 0, 0
	for name, ok := range wrote {
		n := counts[name]
		switch {
		case n != 0 && n != batchSize:
			t.Errorf("batch %s is half there: %d of %d memories", name, n, batchSize)
		case ok && n != batchSize:
			t.Errorf("batch %s: Write succeeded, %d of %d memories there", name, n, batchSize)
		case ok:
			landed++
		default:
			refused++
		}
	}
	for name := range counts {
		if _, ok := wrote[name]; !ok {
			t.Errorf("batch %s is stored but was never written", name)
		}
	}

	// Access: every successful (strict) recall was counted; a failed one may have committed
	// its count before the connection died, but no more than one pack's worth each.
	var total, counted int
	for id, n := range packed {
		var got int
		err := db.Owner.QueryRow(ctx, `SELECT coalesce(max(a.access_count), 0) FROM recall.memories m
			LEFT JOIN recall.memory_access a ON a.memory_id = m.id WHERE m.external_id = $1`, id).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		if got < n {
			t.Errorf("%s packed by %d successful recalls, counted %d times", id, n, got)
		}
		total += n
		counted += got
	}
	if extra := counted - total; extra > len(failures)*len(base) {
		t.Errorf("%d accesses counted beyond the successful recalls, more than the %d failed calls explain", extra, len(failures))
	}
	t.Logf("outage %v; %d recalls succeeded (%d after restart); %d failures (%d after the server was back); batches %d landed, %d refused",
		up.Sub(down).Round(time.Millisecond), recalls.Load(), afterUp.Load(), len(failures), late, landed, refused)
}
