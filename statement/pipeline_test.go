package statement_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestPipelinedEqualsTransaction: a recall sent with its scopes in one batch returns what
// the same recall returns in a transaction of its own, row for row, under the caller's
// scopes; it runs only on a connection known to be one server (a fresh one goes the
// transaction's way), leaves the connection idle with no scope set, and an error in the
// statement comes back typed with the batch rolled back.
func TestPipelinedEqualsTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 120, seed: 21, dim: dim, base: base}.load(t, db.Runtime)
	fixture{scopes: []string{"beta"}, n: 200, seed: 22, dim: dim, base: base}.load(t, db.Runtime)
	st, err := statement.Build(statement.Shape{Dim: dim, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		t.Fatal(err)
	}
	q := statement.Query{
		Text: "apple river violin harbor Alice", Raw: "What did Alice Martin say about apple river?",
		Vector: unitVector(23, dim), Now: base.Add(400 * 24 * time.Hour),
	}
	s := statement.DefaultSettings()
	who := statement.Scopes{Read: []string{"acme"}}

	c, err := db.Runtime.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if c.Conn().PgConn().CustomData()["recall/scope.citus"] == nil {
		if _, done, err := statement.RunPipelined(ctx, c.Conn(), who, st, q, s); done || err != nil {
			t.Fatalf("a connection no transaction has told what server it is: done %v, err %v; want the transaction's way", done, err)
		}
	}
	lists, err := statement.RunEach(ctx, c, who, []*statement.Statement{st}, q, s)
	if err != nil {
		t.Fatal(err)
	}
	want := lists[0]
	got, done, err := statement.RunPipelined(ctx, c.Conn(), who, st, q, s)
	if err != nil || !done {
		t.Fatalf("pipelined after a transaction on the connection: done %v, err %v", done, err)
	}
	if len(want) < 20 || len(got) != len(want) {
		t.Fatalf("pipelined %d candidates, transaction %d (want at least 20)", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Score != want[i].Score || got[i].Text != want[i].Text || got[i].ContextOf != want[i].ContextOf {
			t.Fatalf("row %d: pipelined %d (%v), transaction %d (%v)", i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
		}
	}
	named := 0
	for _, w := range want {
		if len(w.Entities) > 0 {
			named++
		}
	}
	if named < 5 {
		t.Fatalf("only %d of %d candidates name an entity: the fixture tests the names too little", named, len(want))
	}

	// With the names deferred the batch leaves them out, a transaction does not, and
	// EntityNames reads each candidate's as the statement does, under row security, in one
	// round trip (from the pool) or in a transaction (on the held connection).
	dq := q
	dq.DeferNames = true
	deferred, done, err := statement.RunPipelined(ctx, c.Conn(), who, st, dq, s)
	if err != nil || !done || len(deferred) != len(want) {
		t.Fatalf("deferred names: done %v, %d candidates, err %v", done, len(deferred), err)
	}
	inTx, err := statement.RunEach(ctx, c, who, []*statement.Statement{st}, dq, s)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(deferred))
	for i, d := range deferred {
		if !d.NamesDeferred || d.Entities != nil || d.ID != want[i].ID {
			t.Fatalf("row %d with deferred names: id %d, deferred %v, entities %v", i, d.ID, d.NamesDeferred, d.Entities)
		}
		if inTx[0][i].NamesDeferred || !slices.Equal(inTx[0][i].Entities, want[i].Entities) {
			t.Fatalf("row %d in a transaction: deferred %v, entities %v, want %v", i, inTx[0][i].NamesDeferred, inTx[0][i].Entities, want[i].Entities)
		}
		ids[i] = d.ID
	}
	for _, pool := range []statement.Beginner{db.Runtime, c} {
		names, err := statement.EntityNames(ctx, pool, who, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !slices.Equal(names[w.ID], w.Entities) {
				t.Fatalf("EntityNames of %d: %v, the statement's %v", w.ID, names[w.ID], w.Entities)
			}
		}
	}
	if other, err := statement.EntityNames(ctx, db.Runtime, statement.Scopes{Read: []string{"beta"}}, ids); err != nil || len(other) != 0 {
		t.Fatalf("a caller of beta read names of %d of acme's memories (err %v)", len(other), err)
	}

	var beta int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE scopes = '{beta}'`).Scan(&beta); err != nil {
		t.Fatal(err)
	}
	acme := map[int64]bool{}
	if err := pgxCollectIDs(ctx, db, acme); err != nil {
		t.Fatal(err)
	}
	for _, g := range got {
		if !acme[g.ID] {
			t.Fatalf("pipelined recall by a caller of acme returned memory %d, not of acme (%d memories in beta)", g.ID, beta)
		}
	}
	if tx := c.Conn().PgConn().TxStatus(); tx != 'I' {
		t.Fatalf("connection after the batch: transaction status %q, want idle", tx)
	}
	var read string
	if err := c.Conn().QueryRow(ctx, `SELECT coalesce(current_setting('recall.read_scopes', true), '')`).Scan(&read); err != nil {
		t.Fatal(err)
	}
	if read != "" && read != "{}" {
		t.Fatalf("the batch's scopes outlived it on the connection: %q", read)
	}

	// The timeout is a setting of the batch: a recall that waits on a lock past it ends
	// with ErrTimeout, and the connection serves the next one.
	lock, err := db.Owner.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, `LOCK TABLE recall.memories IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	short := s
	short.Timeout = 200 * time.Millisecond
	_, done, err = statement.RunPipelined(ctx, c.Conn(), who, st, q, short)
	_ = lock.Rollback(ctx)
	if !done || !errors.Is(err, statement.ErrTimeout) {
		t.Fatalf("a recall waiting on a lock past its 200 ms: done %v, err %v; want ErrTimeout", done, err)
	}
	var se *scope.Error
	if _, _, err := statement.RunPipelined(ctx, c.Conn(), statement.Scopes{Read: []string{"acme"}, Write: []string{"beta"}}, st, q, s); !errors.As(err, &se) {
		t.Fatalf("write scope outside the read scopes: %v, want *scope.Error", err)
	}
	if again, done, err := statement.RunPipelined(ctx, c.Conn(), who, st, q, s); err != nil || !done || len(again) != len(want) {
		t.Fatalf("after the failed batches: done %v, %d candidates, err %v", done, len(again), err)
	}
}

// pgxCollectIDs puts the ids of acme's memories in ids (as the owner: no row security).
func pgxCollectIDs(ctx context.Context, db *testdb.DB, ids map[int64]bool) error {
	rows, err := db.Owner.Query(ctx, `SELECT id FROM recall.memories WHERE scopes = '{acme}'`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids[id] = true
	}
	return rows.Err()
}
