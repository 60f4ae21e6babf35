package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/records"
)

// prune: recall prune --scope S [--at TIME]
func (m *Main) prune(ctx context.Context, args []string) error {
	fs := m.Flags("prune")
	scope := fs.String("scope", "default", "the scope set whose expired memories go: one scope, or several joined by commas")
	at := fs.String("at", "", "delete what expired at or before this time (RFC 3339 or a date); default: now")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall prune --scope S [--at TIME]\n\n"+
			"Deletes the scope set's memories whose expires_at has passed, with their mentions, access\n"+
			"rows and the summaries that cover them, as a delete does. Recall leaves expired memories\n"+
			"out from the moment they expire; prune frees their space.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("%w: no positional arguments", cli.ErrUsage)
	}
	var now time.Time
	if *at != "" {
		if now, err = records.ParseTime(*at); err != nil {
			return fmt.Errorf("%w: --at: %v", cli.ErrUsage, err)
		}
	}
	e, done, err := m.maintenance(ctx)
	if err != nil {
		return err
	}
	defer done()
	scopes := strings.Split(*scope, ",")
	user := recall.User{ID: "prune", Read: scopes, Write: scopes}
	n, err := e.Prune(ctx, user, scopes, now)
	if err != nil {
		return flagError(err)
	}
	fmt.Fprintf(m.Stdout, "scope set %s: %d expired memories deleted\n", *scope, n)
	return nil
}

// maintenance connects to the configured database and opens an engine that records no
// access, for the commands that change memories (prune, supersede, consolidate, demo); done
// closes the connection.
func (m *Main) maintenance(ctx context.Context) (_ *recall.Engine, done func(), err error) {
	c, err := m.Connect(ctx, true)
	if err != nil {
		return nil, nil, err
	}
	e, err := recall.New(ctx, recall.Config{Pool: c.Runtime, NoAccess: true})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return e, c.Close, nil
}
