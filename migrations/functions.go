package migrations

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/recall-engine/recall/sql"
)

// Drift is a function file whose database state differs from the file: it was never
// applied, the file changed since, or a function it defines has another body in the database.
type Drift struct {
	File    string
	Problem string
}

// CheckFunctions compares the function files with the database: the hash recorded when each
// was applied, and the body of each function it defines (pg_proc.prosrc). It changes nothing.
func CheckFunctions(ctx context.Context, db *sql.DB) ([]Drift, error) { return check(ctx, db) }

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// pairs runs query and calls each for every row of its two text columns.
func pairs(ctx context.Context, db querier, query string, each func(a, b string)) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }()
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		each(a, b)
	}
	return rows.Err()
}

func check(ctx context.Context, db querier) ([]Drift, error) {
	applied := map[string]string{}
	err := pairs(ctx, db, sqltext.FunctionsApplied, func(f, h string) {
		applied[f] = h
	})
	if err != nil {
		return nil, fmt.Errorf("migrations: function files: %w", err)
	}
	stored := map[string][]string{}
	err = pairs(ctx, db, sqltext.StoredFunctions, func(n, src string) {
		stored[n] = append(stored[n], src)
	})
	if err != nil {
		return nil, fmt.Errorf("migrations: function bodies: %w", err)
	}
	stale, err := sqltext.StaleFunctions(stored)
	if err != nil {
		return nil, err
	}
	var out []Drift
	seen := map[string]bool{}
	add := func(file, problem string) {
		if !seen[file] {
			seen[file] = true
			out = append(out, Drift{File: file, Problem: problem})
		}
	}
	for _, f := range sqltext.FunctionFiles {
		text, err := sqltext.Function(f)
		if err != nil {
			return nil, err
		}
		switch h, ok := applied[f]; {
		case !ok:
			add(f, "never applied")
		case h != fileHash(text):
			add(f, "changed since it was applied")
		}
	}
	for _, b := range stale {
		add(b.File, fmt.Sprintf("%s has another body in the database", b.Name))
	}
	return out, nil
}

// ApplyFunctions applies, in one transaction, every function file CheckFunctions reports,
// in FunctionFiles order, statement by statement, and records their hashes; on a distributed
// Citus schema it then has the trigger functions plan at each call (sql/citus/trigger_plans.sql).
// It returns the files it applied.
func ApplyFunctions(ctx context.Context, db *sql.DB) ([]string, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	// One applier at a time; the others then find nothing to do.
	if _, err := tx.ExecContext(ctx, sqltext.FunctionsLock); err != nil {
		return nil, err
	}
	drift, err := check(ctx, tx)
	if err != nil {
		return nil, err
	}
	todo := map[string]bool{}
	for _, d := range drift {
		todo[d.File] = true
	}
	var done []string
	for _, f := range sqltext.FunctionFiles {
		if !todo[f] {
			continue
		}
		text, err := sqltext.Function(f)
		if err != nil {
			return nil, err
		}
		// Statement by statement: a Citus coordinator refuses some DDL inside a query string
		// of several commands (sqltext.Statements says which).
		for _, st := range sqltext.Statements(text) {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return nil, fmt.Errorf("migrations: function file sql/%s: %w", f, err)
			}
		}
		if _, err := tx.ExecContext(ctx, sqltext.FunctionsRecord, f, fileHash(text)); err != nil {
			return nil, err
		}
		done = append(done, f)
	}
	// A function file applied again drops the setting the trigger functions have on a
	// distributed schema; every run sets it where it is missing, so a cluster distributed
	// before the setting existed gets it too.
	if _, err := tx.ExecContext(ctx, sqltext.CitusTriggerPlans); err != nil {
		return nil, fmt.Errorf("migrations: sql/citus/trigger_plans.sql: %w", err)
	}
	return done, tx.Commit()
}
