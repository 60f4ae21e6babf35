package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/records"
)

// supersede: recall supersede --scope S [--at TIME] NEW OLD [OLD...]
func (m *Main) supersede(ctx context.Context, args []string) error {
	fs := m.Flags("supersede")
	scope := fs.String("scope", "default", "the scope set of the memories: one scope, or several joined by commas")
	at := fs.String("at", "", "when the older memories stopped being true (RFC 3339 or a date); default: the newer one's valid_from, else its occurred_start, else now")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall supersede --scope S [--at TIME] NEW OLD [OLD...]\n\n"+
			"Marks the stored memories OLD as superseded by the stored memory NEW of the same scope set\n"+
			"(ids as written). Recall then answers with NEW where it answered with them; query --as-of\n"+
			"asks about a time before.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		fs.Usage()
		return fmt.Errorf("%w: want the newer memory's id and at least one older one", cli.ErrUsage)
	}
	var when *time.Time
	if *at != "" {
		t, err := records.ParseTime(*at)
		if err != nil {
			return fmt.Errorf("%w: --at: %v", cli.ErrUsage, err)
		}
		when = &t
	}
	e, done, err := m.maintenance(ctx)
	if err != nil {
		return err
	}
	defer done()
	scopes := strings.Split(*scope, ",")
	user := recall.User{ID: "supersede", Read: scopes, Write: scopes}
	n, err := e.Supersede(ctx, user, scopes, pos[0], pos[1:], when)
	var we *recall.WriteError
	if errors.As(err, &we) { // an id that is not the scope set's: the arguments are wrong
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	if err != nil {
		return flagError(err)
	}
	fmt.Fprintf(m.Stdout, "scope set %s: %d memories superseded by %s\n", *scope, n, pos[0])
	return nil
}
