package statement

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
)

// EntityNames returns, for each of the memories ids, the names of the entities it mentions
// (not as its speaker) that the caller can see, by name then entity: the Entities a
// statement run with Query.DeferNames left out (NamesDeferred), for the candidates a recall
// keeps. A memory that names none is absent. On one server, as Run's statement there: from a
// pool, in one round trip on a connection known to be one server, else in a read-only
// transaction.
func EntityNames(ctx context.Context, pool Beginner, who Scopes, ids []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	// Every table by an index, as the statement reads them (Settings.Session says why).
	settings := []scope.Setting{{Name: "enable_seqscan", Value: "off", OneServer: true}}
	args := pgx.StrictNamedArgs{"ids": ids}
	collect := func(rows pgx.Rows) error {
		var id int64
		var name string
		_, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error {
			out[id] = append(out[id], name)
			return nil
		})
		return err
	}
	if a, ok := pool.(acquirer); ok {
		c, err := a.Acquire(ctx)
		if err != nil {
			return nil, interpretError(ctx, err)
		}
		defer c.Release()
		queued, err := readAs(ctx, c.Conn(), who, settings, sqltext.EntityNames, []any{args}, collect)
		if err != nil {
			return nil, interpretError(ctx, err)
		}
		if queued {
			return out, nil
		}
		pool = c
	}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.Read, who.Write, settings...); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sqltext.EntityNames, args)
		if err != nil {
			return err
		}
		return collect(rows)
	})
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	return out, nil
}
