package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"

	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/sql"
)

// migrate: recall migrate up|down|status|distribute — goose migrations as the owner, under a
// Postgres session lock; distribute turns a migrated database on a Citus coordinator into a
// distributed one (migrations.Distribute).
func (m *Main) migrate(ctx context.Context, args []string) error {
	fs := m.Flags("migrate")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall migrate up|down|status|distribute\n\n"+
			"up applies every pending migration and every changed function file (sql/); down rolls back\n"+
			"the last migration; status lists them. distribute, on a Citus coordinator whose workers are\n"+
			"added (docs/SCALING.md), distributes the migrated schema by scope set, the rows already\n"+
			"written included, in one transaction; a second run does nothing.")
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (pos[0] != "up" && pos[0] != "down" && pos[0] != "status" && pos[0] != "distribute") {
		fs.Usage()
		return fmt.Errorf("%w: want up, down, status or distribute", cli.ErrUsage)
	}
	c, err := m.Connect(ctx, false)
	if err != nil {
		return err
	}
	defer c.Close()
	if pos[0] == "up" {
		return m.MigrateUp(ctx, c.OwnerURL, true)
	}
	db, err := cli.SQLDB(c.OwnerURL)
	if err != nil {
		return err
	}
	defer db.Close() //nolint:errcheck // closing a handle
	if pos[0] == "distribute" {
		return m.distribute(ctx, db)
	}
	p, err := migrations.NewProvider(db)
	if err != nil {
		return err
	}
	if pos[0] == "down" {
		r, err := p.Down(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "rolled back %s\n", r.Source.Path)
		return nil
	}
	st, err := p.Status(ctx)
	if err != nil {
		return err
	}
	for _, s := range st {
		when := "pending"
		if s.State == "applied" {
			when = "applied " + s.AppliedAt.Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(m.Stdout, "%-40s %s\n", s.Source.Path, when)
	}
	if len(st) > 0 && st[0].State != "applied" {
		return nil // no schema yet: the function files have nowhere to be
	}
	drift, err := migrations.CheckFunctions(ctx, db)
	if err != nil {
		return err
	}
	for _, d := range drift {
		fmt.Fprintf(m.Stdout, "%-40s %s (migrate up applies it)\n", "sql/"+d.File, d.Problem)
	}
	if len(drift) == 0 {
		fmt.Fprintf(m.Stdout, "%-40s applied\n", fmt.Sprintf("function files (%d)", len(sqltext.FunctionFiles)))
	}
	return nil
}

// distribute runs migrations.Distribute and says what it did.
func (m *Main) distribute(ctx context.Context, db *sql.DB) error {
	was, err := migrations.Distributed(ctx, db)
	if err != nil {
		return err
	}
	if was {
		fmt.Fprintln(m.Stdout, "distributed already: nothing to do")
		return nil
	}
	t := time.Now()
	if err := migrations.Distribute(ctx, db); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "distributed by scope set in %v: engines connected before this see it on their new connections\n", time.Since(t).Round(time.Millisecond))
	return nil
}
