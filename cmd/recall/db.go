package main

import (
	"context"
	"fmt"
)

// db: recall db start|stop|status|url — the embedded database.
func (m *Main) db(ctx context.Context, args []string) error {
	fs := newFlags(m, "db")
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "usage: recall db start|stop|status|url\n\n"+
			"The embedded PostgreSQL used when RECALL_DATABASE_URL is unset; its data is in %s/pg.\n", m.dataDir())
	}
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one of start, stop, status, url", errUsage)
	}
	switch pos[0] {
	case "start":
		c, err := m.connect(ctx, true)
		if err != nil {
			return err
		}
		defer c.close()
		fmt.Fprintf(m.Stdout, "running, migrated: %s\n", redact(c.ownerURL))
		return nil
	case "stop", "status", "url":
		out, err := m.dbScript(ctx, pos[0])
		if err != nil {
			return err
		}
		if out != "" {
			fmt.Fprintln(m.Stdout, out)
		}
		return nil
	}
	fs.Usage()
	return fmt.Errorf("%w: unknown db command %q", errUsage, pos[0])
}
