package main

import (
	"context"
	"fmt"

	"github.com/recall-engine/recall/internal/command/cli"
)

// db: recall db start|stop|status|url — the embedded database.
func (m *Main) db(ctx context.Context, args []string) error {
	fs := m.Flags("db")
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "usage: recall db start|stop|status|url\n\n"+
			"The embedded PostgreSQL used when RECALL_DATABASE_URL is unset; its data is in %s/pg.\n", m.DataDir())
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one of start, stop, status, url", cli.ErrUsage)
	}
	switch pos[0] {
	case "start":
		c, err := m.Connect(ctx, true)
		if err != nil {
			return err
		}
		defer c.Close()
		fmt.Fprintf(m.Stdout, "running, migrated: %s\n", cli.Redact(c.OwnerURL))
		return nil
	case "stop", "status", "url":
		out, err := m.DBScript(ctx, pos[0])
		if err != nil {
			return err
		}
		if out != "" {
			fmt.Fprintln(m.Stdout, out)
		}
		return nil
	}
	fs.Usage()
	return fmt.Errorf("%w: unknown db command %q", cli.ErrUsage, pos[0])
}
