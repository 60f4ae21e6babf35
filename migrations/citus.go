package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	sqltext "github.com/recall-engine/recall/sql"
)

// ErrNotCurrent is returned by Distribute for a database that Up has not brought to this
// build's schema.
var ErrNotCurrent = errors.New("migrations: the database is not current: run migrate up first")

// Distribute turns a migrated database on a Citus coordinator into a distributed one
// (sql/citus/distribute.sql): every table of scoped rows distributed by its scope set,
// co-located, the policies in the form Citus accepts, the BM25 upkeep by row trigger and
// recall.bm25_flush. One transaction: all of it or nothing. A database distributed already
// is left as it is. It refuses a database Up has not made current, and a server without
// Citus. `recall migrate distribute` calls it; docs/SCALING.md says what runs on the
// distributed schema and what does not yet.
func Distribute(ctx context.Context, db *sql.DB) error {
	ok, err := Current(ctx, db)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotCurrent
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, sqltext.FunctionsLock); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, sqltext.CitusDistribute); err != nil {
		return fmt.Errorf("migrations: distribute (sql/citus/distribute.sql): %w", err)
	}
	if _, err := tx.ExecContext(ctx, sqltext.CitusTriggerPlans); err != nil {
		return fmt.Errorf("migrations: distribute (sql/citus/trigger_plans.sql): %w", err)
	}
	return tx.Commit()
}

// Distributed reports whether db's recall tables are distributed (Distribute ran): false on a
// server without Citus.
func Distributed(ctx context.Context, db *sql.DB) (bool, error) {
	var d bool
	err := db.QueryRowContext(ctx, sqltext.IsCitus).Scan(&d)
	if err != nil || !d {
		return false, err
	}
	err = db.QueryRowContext(ctx, sqltext.IsDistributed).Scan(&d)
	return d, err
}
