package write

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
)

// Supersede marks the stored memories olds of scope set scopes (nil: the caller's only write
// scope) as superseded by the stored memory by, of the same scope set, from at (nil: by's
// valid_from, else its occurred_start, else the write's time), in one transaction, as a
// batch's Memory.Supersedes does for a memory it writes. It returns how many it marked. An
// id that is not a stored memory of the scope set, by among olds, or no olds, is refused
// with an *Error naming the field. A note, when not empty, says who proposed it (kept in
// each old memory's metadata as superseded_note).
func (w *Writer) Supersede(ctx context.Context, read, write, scopes []string, by string, olds []string, at *time.Time, note string) (int, error) {
	sc, err := Scopes(write, scopes)
	if err != nil {
		return 0, err
	}
	if err := checkID("supersede", "by", by, true); err != nil {
		return 0, err
	}
	switch {
	case len(olds) == 0:
		return 0, &Error{Item: "supersede", Field: "supersedes", Problem: "empty: name the memories the newer one replaces"}
	case len(olds) > MaxCovers:
		return 0, &Error{Item: "supersede", Field: "supersedes", Problem: fmt.Sprintf("%d memories, the limit is %d", len(olds), MaxCovers)}
	}
	refs := map[string]string{by: "supersede.by"}
	for i, id := range olds {
		field := fmt.Sprintf("supersedes[%d]", i)
		if err := checkID("supersede", field, id, true); err != nil {
			return 0, err
		}
		if id == by {
			return 0, &Error{Item: "supersede", Field: field, Problem: fmt.Sprintf("%q is the superseding memory itself", id)}
		}
		refs[id] = "supersede." + field
	}
	n, owed := 0, false
	err = pgx.BeginFunc(ctx, w.Pool, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		owed = scope.Owed(tx)
		t := &txn{ctx: ctx, tx: tx, scopes: sc, res: &Result{}}
		ids, err := t.stored("memories", refs)
		if err != nil {
			return err
		}
		rows := make([]map[string]any, len(olds))
		for i, id := range olds {
			rows[i] = map[string]any{"old": ids[id], "by": ids[by], "at": at}
		}
		tag, err := tx.Exec(ctx, statementText("supersede"), pgx.NamedArgs{"scopes": sc, "rows": jsonRows{rows}, "note": note, "now": time.Now()})
		if err != nil {
			return err
		}
		n = int(tag.RowsAffected())
		return nil
	})
	if err != nil {
		var we *Error
		if errors.As(err, &we) {
			return 0, err
		}
		return 0, dberr.Interpret(ctx, "recall: supersede", err)
	}
	return n, w.settle(ctx, owed, "recall: supersede")
}
