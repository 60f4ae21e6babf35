package recall_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestReplica runs recall on a real hot-standby replica of a private server (pg_basebackup
// with a replication slot, on another loopback port): after replay the replica returns the
// same pack as the primary; row security holds there; read-your-writes waits for the
// user's write, and serves from the primary when the replica has not replayed it in time;
// access counts land on the primary, once per packed memory; a replica that stops answering
// degrades the recall to the primary with a warning, and serves again once it is back.
func TestReplica(t *testing.T) {
	t.Parallel()
	srv := testdb.PrivateReplicated(t)
	db := srv.NewDB(t)
	ctx := context.Background()
	replicaAdmin := srv.Replica(t)
	replicaRuntime := testdb.RolePool(t, replicaAdmin, testdb.RuntimeRole, db.Name)
	emb, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	// Long enough for a replica on a loaded machine to replay a batch (a run beside other
	// work once took more than 300 ms); the paused replay below waits it out once.
	const wait = 3 * time.Second
	engine := func(replica bool, noAccess bool) *recall.Engine {
		cfg := recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: noAccess, ReplicaWait: wait}
		if replica {
			cfg.Replica = replicaRuntime
		}
		e, err := recall.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	withReplica, primaryOnly, counting := engine(true, true), engine(false, true), engine(true, false)
	team := recall.User{ID: "ana", Read: []string{"team"}, Write: []string{"team"}}
	other := recall.User{ID: "bo", Read: []string{"other"}, Write: []string{"other"}}
	write := func(u recall.User, prefix string, n int) {
		t.Helper()
		var b recall.Batch
		for i := range n {
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("%s%d", prefix, i),
				Text: fmt.Sprintf("The %s harbor crane %d was inspected before the storm.", prefix, i)})
		}
		if _, err := withReplica.Write(ctx, u, b); err != nil {
			t.Fatal(err)
		}
	}
	write(team, "team", 20)
	write(other, "other", 5)
	q := "Which harbor crane was inspected before the storm?"
	var recallQ func(*recall.Engine, recall.User, string, *recall.Options) *recall.Pack
	recallOn := func(e *recall.Engine, u recall.User, opts *recall.Options) *recall.Pack {
		t.Helper()
		return recallQ(e, u, q, opts)
	}
	recallQ = func(e *recall.Engine, u recall.User, q string, opts *recall.Options) *recall.Pack {
		t.Helper()
		p, err := e.Recall(ctx, u, q, 200, opts)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ryw := &recall.Options{ReadYourWrites: true}

	// Read-your-writes: the replica serves once it has replayed ana's batch, with the pack
	// the primary gives.
	got := recallOn(withReplica, team, ryw)
	want := recallOn(primaryOnly, team, nil)
	if got.ServedBy != recall.ServedByReplica || len(got.Warnings) > 0 {
		t.Fatalf("served by %q (%s), warnings %v; want the replica", got.ServedBy, got.ServedWhy, got.Warnings)
	}
	if want.ServedBy != recall.ServedByPrimary || want.ServedWhy != "no replica configured" {
		t.Fatalf("the primary-only engine: served by %q (%s)", want.ServedBy, want.ServedWhy)
	}
	if len(got.Items) == 0 || !slices.Equal(got.IDs(), want.IDs()) {
		t.Fatalf("replica pack %v, primary pack %v", got.IDs(), want.IDs())
	}

	// Row security on the replica: bo reads only scope other.
	p := recallOn(withReplica, other, ryw)
	if p.ServedBy != recall.ServedByReplica || len(p.Items) != 5 {
		t.Fatalf("bo: served by %s, %d items (%v), want the replica and his 5 memories", p.ServedBy, len(p.Items), p.IDs())
	}
	for _, id := range p.IDs() {
		if !strings.HasPrefix(id, "other") {
			t.Fatalf("bo read %s on the replica", id)
		}
	}

	// Access counts land on the primary, once per packed memory.
	p = recallOn(counting, team, nil)
	if p.ServedBy != recall.ServedByReplica || p.Accessed != int64(len(p.Items)) {
		t.Fatalf("counting: served by %s, %d accessed of %d packed", p.ServedBy, p.Accessed, len(p.Items))
	}
	rows, err := db.Owner.Query(ctx, `SELECT m.external_id, a.access_count FROM recall.memory_access a JOIN recall.memories m ON m.id = a.memory_id ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	var ext string
	var n int64
	if _, err := pgx.ForEachRow(rows, []any{&ext, &n}, func() error { counts[ext] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(counts) != len(p.Items) {
		t.Fatalf("access rows %v for the packed %v", counts, p.IDs())
	}
	for _, id := range p.IDs() {
		if counts[id] != 1 {
			t.Fatalf("access count of %s on the primary: %d, want 1 (%v)", id, counts[id], counts)
		}
	}

	// Replay paused: a read-your-writes recall after a write waits ReplicaWait, then the
	// primary serves it, and sees the write.
	replicaAdminConn, err := pgx.ConnectConfig(ctx, replicaAdmin)
	if err != nil {
		t.Fatal(err)
	}
	defer replicaAdminConn.Close(ctx)
	if _, err := replicaAdminConn.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	if _, err := withReplica.Write(ctx, team, recall.Batch{Memories: []recall.Memory{{ID: "late0", Text: "The zeppelin landed at dawn."}}}); err != nil {
		t.Fatal(err)
	}
	late := "When did the zeppelin land?"
	start := time.Now()
	p = recallQ(withReplica, team, late, ryw)
	if p.ServedBy != recall.ServedByPrimary || !strings.Contains(p.ServedWhy, "had not replayed") || time.Since(start) < wait {
		t.Fatalf("replay paused: served by %s (%s) after %v", p.ServedBy, p.ServedWhy, time.Since(start))
	}
	if !slices.Contains(p.IDs(), "late0") {
		t.Fatalf("the primary's pack lacks the write: %v", p.IDs())
	}
	// Without read-your-writes the replica serves its older snapshot.
	if p := recallQ(withReplica, team, late, nil); p.ServedBy != recall.ServedByReplica || slices.Contains(p.IDs(), "late0") {
		t.Fatalf("replay paused, no read-your-writes: served by %s, %v", p.ServedBy, p.IDs())
	}
	if _, err := replicaAdminConn.Exec(ctx, `SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	if p := recallQ(withReplica, team, late, ryw); p.ServedBy != recall.ServedByReplica || !slices.Contains(p.IDs(), "late0") {
		t.Fatalf("replay resumed: served by %s, %v", p.ServedBy, p.IDs())
	}

	// The replica stops answering: the primary serves, with a warning, the same pack.
	srv.StopReplica(t)
	want = recallOn(primaryOnly, team, nil)
	for range 3 {
		p = recallOn(withReplica, team, ryw)
		if p.ServedBy != recall.ServedByPrimary || p.ServedWhy != "the replica failed" || len(p.Warnings) != 1 || p.Warnings[0].Stage != "replica" {
			t.Fatalf("replica down: served by %s (%s), warnings %v", p.ServedBy, p.ServedWhy, p.Warnings)
		}
		if !slices.Equal(p.IDs(), want.IDs()) {
			t.Fatalf("replica down: pack %v, primary's %v", p.IDs(), want.IDs())
		}
	}
	srv.Replica(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p = recallOn(withReplica, team, ryw)
		if p.ServedBy == recall.ServedByReplica {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica is back, but the primary still serves: %s, %v", p.ServedWhy, p.Warnings)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestReadYourWritesUnderAsyncCommit: on a primary with synchronous_commit off (the private
// servers' setting, and a common one in production), a commit returns before its WAL record
// is written out, so a position noted after it must cover the commit itself: a recall with
// ReadYourWrites right after each write finds that write, while another user's writes keep
// the WAL moving and the replica replaying.
func TestReadYourWritesUnderAsyncCommit(t *testing.T) {
	t.Parallel()
	srv := testdb.PrivateReplicated(t)
	db := srv.NewDB(t)
	ctx := context.Background()
	var async string
	if err := db.Owner.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&async); err != nil || async != "off" {
		t.Fatalf("synchronous_commit %q (%v): the test needs it off", async, err)
	}
	replicaRuntime := testdb.RolePool(t, srv.Replica(t), testdb.RuntimeRole, db.Name)
	emb, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true, Replica: replicaRuntime, ReplicaWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	load, stop := context.WithCancel(ctx)
	loaded := make(chan error, 1)
	go func() {
		bo := recall.User{ID: "bo", Read: []string{"other"}, Write: []string{"other"}}
		for i := 0; load.Err() == nil; i++ {
			var b recall.Batch
			for j := range 20 {
				b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("load-%d-%d", i, j), Text: fmt.Sprintf("Background note %d %d about the ferry timetable.", i, j)})
			}
			if _, err := e.Write(load, bo, b); err != nil && load.Err() == nil {
				loaded <- err
				return
			}
		}
		loaded <- nil
	}()
	ana := recall.User{ID: "ana", Read: []string{"team"}, Write: []string{"team"}}
	byReplica := 0
	const rounds = 60
	for i := range rounds {
		word := fmt.Sprintf("zq%dx", i)
		if _, err := e.Write(ctx, ana, recall.Batch{Memories: []recall.Memory{{ID: "m-" + word, Text: "The code word is " + word + "."}}}); err != nil {
			t.Fatal(err)
		}
		p, err := e.Recall(ctx, ana, "Which code word is "+word+"?", 500, &recall.Options{ReadYourWrites: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.IDs(), "m-"+word) {
			t.Fatalf("round %d: served by %s (%s), the write just made is missing: %v", i, p.ServedBy, p.ServedWhy, p.IDs())
		}
		if p.ServedBy == recall.ServedByReplica {
			byReplica++
		}
	}
	stop()
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	// The replica served (the test is of its reads), not the primary by default.
	if byReplica < rounds/2 {
		t.Fatalf("the replica served %d of %d recalls", byReplica, rounds)
	}
	t.Logf("the replica served %d of %d recalls", byReplica, rounds)
}
