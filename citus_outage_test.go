package recall_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestCitusWorkerOutage: batches written one after the other through Engine.Write while a
// worker goes away for this database (its connections cut, new ones refused, for two
// seconds) and comes back. Writes fail only while it is away; a failed batch left nothing,
// a written one everything: the cluster then holds exactly what a single server holds after
// the written batches alone, derived rows included, with no flush owed. The outage is
// confined to the test's database (ALLOW_CONNECTIONS off on the worker and its backends
// terminated), so the other tests on the cluster run on.
func TestCitusWorkerOutage(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	workers := strings.Fields(os.Getenv(testdb.EnvCitusWorkers))
	admin, err := pgx.Connect(ctx, workers[0])
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx) //nolint:errcheck // closing a connection
	engines, _ := enginePair(t, recall.Config{}, cdb, sdb)
	cluster, single := engines[0], engines[1]
	sets := []string{"a", "b", "c", "d", "e", "f"} // over both workers' shards
	writer := recall.User{ID: "w", Read: sets, Write: sets}
	batch := func(i int) recall.Batch {
		sc := sets[i%len(sets)]
		b := recall.Batch{Scopes: []string{sc}, Sources: []recall.Source{{ID: fmt.Sprintf("log%d", i), Title: fmt.Sprintf("Harbor log %d", i)}}}
		for j := range 5 {
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("m%d-%d", i, j), Source: b.Sources[0].ID, Position: j + 1,
				Text: fmt.Sprintf("Entry %d of log %d: the crane at pier %d was %s.", j, i, i%7, []string{"fixed", "inspected", "moved"}[j%3])})
		}
		return b
	}
	setConnections := func(allow bool) error {
		if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS %t", pgx.Identifier{cdb.Name}.Sanitize(), allow)); err != nil {
			return err
		}
		if !allow {
			_, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", cdb.Name)
			return err
		}
		return nil
	}
	back := make(chan error, 1)

	const n = 60
	var written, failed []int
	var outStart time.Time
	var outEnd atomic.Int64 // unix nanoseconds once connections are allowed again
	for i := range n {
		if i == 20 {
			outStart = time.Now()
			if err := setConnections(false); err != nil {
				t.Fatal(err)
			}
			go func() {
				time.Sleep(2 * time.Second)
				err := setConnections(true)
				outEnd.Store(time.Now().UnixNano())
				back <- err
			}()
		}
		start := time.Now()
		_, err := cluster.Write(ctx, writer, batch(i))
		switch {
		case err == nil:
			written = append(written, i)
		case i >= 20 && (outEnd.Load() == 0 || start.Before(time.Unix(0, outEnd.Load()).Add(time.Second))):
			failed = append(failed, i) // in the outage, or right after it (connections cut then)
		default:
			t.Fatalf("batch %d failed outside the outage (%v to %v): %v", i, outStart, time.Unix(0, outEnd.Load()), err)
		}
		if i >= 20 && i < 40 {
			time.Sleep(100 * time.Millisecond) // spread the batches over the outage
		}
	}
	if err := <-back; err != nil {
		t.Fatal(err)
	}
	if len(failed) == 0 || len(written) < n/2 {
		t.Fatalf("%d batches written, %d failed: the outage was not seen", len(written), len(failed))
	}
	for _, i := range written {
		if _, err := single.Write(ctx, writer, batch(i)); err != nil {
			t.Fatal(err)
		}
	}
	// A flush a failed commit left owed is done by the next write's; write once more on both.
	last := batch(n)
	for _, e := range []*recall.Engine{cluster, single} {
		if _, err := e.Write(ctx, writer, last); err != nil {
			t.Fatal(err)
		}
	}
	want, got := derivedRows(t, sdb), derivedRows(t, cdb)
	for _, q := range []string{"memories", "entities"} {
		want[q], got[q] = rowsOf(t, sdb, q), rowsOf(t, cdb, q)
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Fatalf("%s differ after the outage (%d batches failed):\n cluster %d rows %v\n single  %d rows %v",
				name, len(failed), len(got[name]), head(got[name]), len(w), head(w))
		}
	}
	if got := len(want["memories"]); got != 5*(len(written)+1) {
		t.Fatalf("%d memories, want %d", got, 5*(len(written)+1))
	}
	t.Logf("%d batches written, %d failed in the outage", len(written), len(failed))
}
