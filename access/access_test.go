package access_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/recall-engine/recall/access"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

type bundle struct {
	db  *testdb.DB
	rec *access.Recorder
	ids map[string][]int64 // by scope literal
}

// setup writes n memories in scope a, n in b, and n shared by a and b.
func setup(t *testing.T, n int) bundle {
	t.Helper()
	db := testdb.New(t)
	ctx := context.Background()
	b := bundle{db: db, rec: access.New(db.Runtime, 0), ids: map[string][]int64{}}
	for _, lit := range []string{"{a}", "{b}", "{a,b}"} {
		rows, err := db.Owner.Query(ctx, `INSERT INTO recall.memories (external_id, scopes, text)
			SELECT 'm' || g, $1::text[], 'memory ' || g FROM generate_series(1, $2) g RETURNING id`, lit, n)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			b.ids[lit] = append(b.ids[lit], id)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
	}
	return b
}

func (b bundle) counts(t *testing.T) map[int64]int64 {
	t.Helper()
	rows, err := b.db.Owner.Query(context.Background(), `SELECT m.id, coalesce(a.access_count, 0)
		FROM recall.memories m LEFT JOIN recall.memory_access a ON a.memory_id = m.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

func TestRecordStampsOnlyWritableMemories(t *testing.T) {
	t.Parallel()
	b := setup(t, 3)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	// Reads a and b, writes a: memories in {a} are stamped; {b} and {a,b} are not (a row
	// shared with b may only change for a writer of b too).
	ids := append(append(append([]int64{}, b.ids["{a}"]...), b.ids["{b}"]...), b.ids["{a,b}"]...)
	ids = append(ids, b.ids["{a}"][0]) // repeated: counted once
	n, err := b.rec.Record(ctx, []string{"a", "b"}, []string{"a"}, ids, at)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("stamped %d, want 3", n)
	}
	c := b.counts(t)
	for lit, ids := range b.ids {
		want := int64(0)
		if lit == "{a}" {
			want = 1
		}
		for _, id := range ids {
			if c[id] != want {
				t.Fatalf("%s memory %d: count %d, want %d", lit, id, c[id], want)
			}
		}
	}
	// last_accessed only moves forward.
	if _, err := b.rec.Record(ctx, []string{"a"}, []string{"a"}, b.ids["{a}"][:1], at.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	var last time.Time
	var cnt int64
	if err := b.db.Owner.QueryRow(ctx, `SELECT last_accessed, access_count FROM recall.memory_access WHERE memory_id = $1`, b.ids["{a}"][0]).Scan(&last, &cnt); err != nil {
		t.Fatal(err)
	}
	if !last.Equal(at) || cnt != 2 {
		t.Fatalf("last_accessed %v count %d, want %v and 2", last, cnt, at)
	}
	if _, err := b.rec.Record(ctx, []string{"a"}, nil, b.ids["{a}"], at); err != access.ErrNoWriteScopes {
		t.Fatalf("no write scopes: %v", err)
	}
	if n, err := b.rec.Record(ctx, []string{"a"}, []string{"a"}, nil, at); n != 0 || err != nil {
		t.Fatalf("no ids: %d, %v", n, err)
	}
}

// TestRecordConcurrent: many recorders stamping overlapping sets in different orders finish
// without deadlocks, and every increment lands.
func TestRecordConcurrent(t *testing.T) {
	t.Parallel()
	b := setup(t, 20)
	ctx := context.Background()
	pool := b.ids["{a}"]
	// Sixteen writers on the same rows queue on their locks, and under a loaded machine a
	// recording can wait longer than DefaultTimeout for them. What this test checks is exact
	// counts and no deadlock (Postgres reports one as an error within deadlock_timeout, 1 s),
	// not speed: give each recording a bound no load reaches.
	b.rec = access.New(b.db.Runtime, 5*time.Minute)
	const workers, rounds = 16, 60
	var wg sync.WaitGroup
	want := map[int64]int64{}
	var mu sync.Mutex
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for range rounds {
				ids := r.Perm(len(pool))[:1+r.IntN(10)]
				set := make([]int64, len(ids))
				for i, j := range ids {
					set[i] = pool[j]
				}
				n, err := b.rec.Record(ctx, []string{"a"}, []string{"a"}, set, time.Now())
				if err != nil {
					errs <- err
					continue
				}
				if n != int64(len(set)) {
					errs <- fmt.Errorf("stamped %d of %d", n, len(set))
				}
				mu.Lock()
				for _, id := range set {
					want[id]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := b.counts(t)
	var total int64
	for _, id := range pool {
		if got[id] != want[id] {
			t.Fatalf("memory %d: count %d, want %d", id, got[id], want[id])
		}
		total += got[id]
	}
	if total == 0 {
		t.Fatal("nothing recorded")
	}
}

// TestAccessRowsFollowRowSecurity: access rows are seen by the memory's readers only, and a
// writer cannot attach an access row to a memory of other scopes or give it other scopes.
func TestAccessRowsFollowRowSecurity(t *testing.T) {
	t.Parallel()
	b := setup(t, 2)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if n, err := b.rec.Record(ctx, []string{"a", "b"}, []string{"a", "b"}, append(b.ids["{a}"], b.ids["{b}"]...), at); err != nil || n != 4 {
		t.Fatalf("record: %d, %v", n, err)
	}
	tx := testdb.BeginAs(t, b.db.Runtime, []string{"b"}, []string{"b"})
	var seen int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.memory_access`).Scan(&seen); err != nil || seen != 2 {
		t.Fatalf("reader of b sees %d access rows (%v), want 2", seen, err)
	}
	for _, forged := range []struct {
		id     int64
		scopes string
	}{{b.ids["{a}"][1], "{b}"}, {b.ids["{a,b}"][0], "{b}"}} {
		tx := testdb.BeginAs(t, b.db.Runtime, []string{"a", "b"}, []string{"b"})
		_, err := tx.Exec(ctx, `INSERT INTO recall.memory_access (memory_id, scopes, last_accessed, access_count) VALUES ($1, $2, now(), 1)`, forged.id, forged.scopes)
		if err == nil {
			t.Fatalf("access row for memory %d with scopes %s accepted", forged.id, forged.scopes)
		}
	}
}

// TestRecordSkipsAMemoryDeletedMeanwhile: a packed memory deleted while its access is being
// recorded is skipped, and the pack's other memories are still counted. The delete holds its
// row when the recording starts and commits while the recording waits for it.
func TestRecordSkipsAMemoryDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	b := setup(t, 3)
	ctx := context.Background()
	ids := b.ids["{a}"]
	gone := ids[1]
	del, err := b.db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer del.Rollback(ctx) //nolint:errcheck // committed below
	if _, err := del.Exec(ctx, `DELETE FROM recall.memories WHERE id = $1`, gone); err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := b.rec.Record(ctx, []string{"a"}, []string{"a"}, ids, time.Now())
		done <- result{n, err}
	}()
	// Commit once the recording waits on the deleted row's lock.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := b.db.Owner.QueryRow(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity s USING (pid)
			WHERE NOT l.granted AND s.datname = current_database()`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("the recording did not wait for the delete: %d, %v", r.n, r.err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the recording never waited for the delete")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := del.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.n != 2 {
		t.Fatalf("recorded %d, %v; want the 2 memories that stay", r.n, r.err)
	}
	c := b.counts(t)
	for _, id := range ids {
		if want := map[bool]int64{true: 0, false: 1}[id == gone]; c[id] != want {
			t.Fatalf("memory %d: count %d, want %d", id, c[id], want)
		}
	}
}
