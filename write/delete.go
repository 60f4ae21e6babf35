package write

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// Delete removes memories of scopes (nil: the caller's only write scope) by ID, with their
// mentions, the relations they are evidence for, their access rows and the summaries that
// cover them; extracted entities nothing mentions any more go too. It returns how many of
// the named memories were deleted (summaries that went with them are not counted).
func (w *Writer) Delete(ctx context.Context, read, write, scopes, ids []string) (int, error) {
	sc, err := Scopes(write, scopes)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		if err := checkID(fmt.Sprintf("ids[%d]", i), "id", id, true); err != nil {
			return 0, err
		}
	}
	n, owed := 0, false
	err = pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		owed = scope.Owed(tx)
		n, err = deleteIn(ctx, tx, sc, ids)
		return err
	})
	if err != nil {
		return 0, dberr.Interpret(ctx, "recall: delete", err)
	}
	return n, w.settle(ctx, owed, "recall: delete")
}

// deleteIn deletes the memories ids of scope set sc as Delete says, in tx, and returns how
// many of them were deleted.
func deleteIn(ctx context.Context, tx pgx.Tx, sc, ids []string) (int, error) {
	rows, err := tx.Query(ctx, statementText("delete"), pgx.NamedArgs{"scopes": sc, "ids": ids})
	if err != nil {
		return 0, err
	}
	named, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil {
		return 0, err
	}
	n := 0
	for _, x := range named {
		if x {
			n++
		}
	}
	_, err = tx.Exec(ctx, statementText("orphans"), pgx.NamedArgs{"scopes": sc})
	return n, err
}

// Prune deletes the memories of scopes (nil: the caller's only write scope) that expired at
// now (Memory.ExpiresAt at or before it), as Delete deletes them, in one transaction, and
// returns how many.
func (w *Writer) Prune(ctx context.Context, read, write, scopes []string, now time.Time) (int, error) {
	sc, err := Scopes(write, scopes)
	if err != nil {
		return 0, err
	}
	n, owed := 0, false
	err = pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		owed = scope.Owed(tx)
		rows, err := tx.Query(ctx, statementText("expired"), pgx.NamedArgs{"scopes": sc, "now": now})
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(ids) == 0 {
			return err
		}
		n, err = deleteIn(ctx, tx, sc, ids)
		return err
	})
	if err != nil {
		return 0, dberr.Interpret(ctx, "recall: prune", err)
	}
	return n, w.settle(ctx, owed, "recall: prune")
}

// IDs lists the external ids of the memories of scope set scopes (nil: the user's only
// write scope), in id order, read as the caller of read and write scopes.
func (w *Writer) IDs(ctx context.Context, read, write, scopes []string) ([]string, error) {
	var out []string
	err := w.readSet(ctx, read, write, scopes, "recall: memory ids", func(tx pgx.Tx, sc []string) error {
		rows, err := tx.Query(ctx, sqltext.MemoryIDs, pgx.StrictNamedArgs{"scopes": sc})
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out, err
}

// Places returns the greatest place stored in each of sources (external ids) of scope set
// scopes (nil: the caller's only write scope), read as the caller; a source not stored is 0.
func (w *Writer) Places(ctx context.Context, read, write, scopes, sources []string) (map[string]int, error) {
	out := make(map[string]int, len(sources))
	err := w.readSet(ctx, read, write, scopes, "recall: places", func(tx pgx.Tx, sc []string) error {
		rows, err := tx.Query(ctx, sqltext.SourcePlaces, pgx.StrictNamedArgs{"scopes": sc, "sources": sources})
		if err != nil {
			return err
		}
		var id string
		var n int
		_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
			out[id] = n
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readSet runs read in one read-only transaction as the caller of read and write scopes, with
// scope set scopes (nil: the caller's only write scope) normalized; a database error is
// interpreted as what's (dberr.Interpret).
func (w *Writer) readSet(ctx context.Context, read, write, scopes []string, what string, fn func(pgx.Tx, []string) error) error {
	sc, err := Scopes(write, scopes)
	if err != nil {
		return err
	}
	err = pgx.BeginTxFunc(ctx, w.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		return fn(tx, sc)
	})
	if err != nil {
		return dberr.Interpret(ctx, what, err)
	}
	return nil
}
