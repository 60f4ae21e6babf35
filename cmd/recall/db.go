package main

import (
	"context"
	"fmt"

	"github.com/recall-engine/recall/internal/command/cli"
)

// db: recall db start|stop|status|url — the embedded database.
func (m *Main) db(ctx context.Context, args []string) error {
	fs := m.Flags("db")
	owner := fs.Bool("owner", false, "url: the owner's URL of database recall (migrations, RECALL_DATABASE_URL)")
	runtime := fs.Bool("runtime", false, "url: the runtime role's URL of database recall (what recall.Open and recall.New take)")
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "usage: recall db start|stop|status|url [--owner|--runtime]\n\n"+
			"The embedded PostgreSQL used when RECALL_DATABASE_URL is unset; its data is in %s/pg.\n"+
			"url prints the server's superuser URL (database postgres); status exits 3 when stopped.\n\nflags:\n", m.DataDir())
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one of start, stop, status, url", cli.ErrUsage)
	}
	if (*owner || *runtime) && pos[0] != "url" {
		return fmt.Errorf("%w: --owner and --runtime go with url", cli.ErrUsage)
	}
	if pos[0] == "url" && (*owner || *runtime) {
		c, err := m.Connect(ctx, true)
		if err != nil {
			return err
		}
		defer c.Close()
		if *runtime {
			fmt.Fprintln(m.Stdout, c.RuntimeURL)
		} else {
			fmt.Fprintln(m.Stdout, c.OwnerURL)
		}
		return nil
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
		if pos[0] == "status" && out == "stopped" {
			return &cli.ExitStatus{Code: 3} // as pg_ctl status and LSB status scripts do
		}
		return nil
	}
	fs.Usage()
	return fmt.Errorf("%w: unknown db command %q", cli.ErrUsage, pos[0])
}
