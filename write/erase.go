package write

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
)

// Receipt is what an erase removed (or, dry, would remove): the scope set, each table of
// the schema that holds rows of a scope set with the rows it held of this one, and the
// transaction's time.
type Receipt struct {
	Scopes []string         `json:"scopes"`
	Tables map[string]int64 `json:"tables"`
	At     time.Time        `json:"at"`
	DryRun bool             `json:"dry_run,omitempty"`
}

// Total is the rows of every table.
func (r Receipt) Total() int64 {
	var n int64
	for _, v := range r.Tables {
		n += v
	}
	return n
}

// Erase removes everything of scope set scopes (nil: the user's only write scope) in one
// transaction, as the caller of read and write scopes, who must write every scope of the set
// (recall.erase_scope_set, sql/write/erase.sql); dry counts and removes nothing.
func (w *Writer) Erase(ctx context.Context, read, write, scopes []string, dry bool) (Receipt, error) {
	sc, err := Scopes(write, scopes)
	if err != nil {
		return Receipt{}, err
	}
	r := Receipt{Scopes: sc, Tables: map[string]int64{}, DryRun: dry}
	err = pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, statementText("erase_call"), pgx.NamedArgs{"scopes": sc, "dry": dry})
		if err != nil {
			return err
		}
		var t string
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&t, &n, &r.At}, func() error {
			r.Tables[t] = n
			return nil
		})
		return err
	})
	if err != nil {
		return Receipt{}, dberr.Interpret(ctx, "recall: erase", err)
	}
	if len(r.Tables) == 0 {
		return Receipt{}, fmt.Errorf("recall: erase: the schema has no table of scope sets (is it migrated?)")
	}
	return r, nil
}
