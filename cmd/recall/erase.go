package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
)

// erase: recall erase --scope S (--yes | --dry-run) [--json]
func (m *Main) erase(ctx context.Context, args []string) error {
	fs := m.Flags("erase")
	scope := fs.String("scope", "", "the scope set to erase: one scope, or several joined by commas (exactly that set: a set that shares a scope with it stays)")
	yes := fs.Bool("yes", false, "erase: without it (or --dry-run) nothing happens")
	dry := fs.Bool("dry-run", false, "count what would go, and erase nothing")
	asJSON := fs.Bool("json", false, "print the receipt as JSON")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall erase --scope S (--yes | --dry-run) [--json]\n\n"+
			"Removes everything of the scope set in one transaction: its sources, memories and\n"+
			"summaries, entities, relations, access counts, and the statistics and postings recall\n"+
			"keeps of it, in every table of the schema. Prints the receipt: each table with the rows\n"+
			"it held of the set, and the time. A recall meanwhile sees the set whole or not at all;\n"+
			"writes wait until the erase commits. Other scope sets, their statistics included, are\n"+
			"not touched. There is no undo.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		fs.Usage()
		return fmt.Errorf("%w: no positional arguments", cli.ErrUsage)
	case *scope == "":
		return fmt.Errorf("%w: --scope: name the scope set to erase", cli.ErrUsage)
	case *yes == *dry:
		return fmt.Errorf("%w: give --yes to erase, or --dry-run to count", cli.ErrUsage)
	}
	e, done, err := m.maintenance(ctx)
	if err != nil {
		return err
	}
	defer done()
	scopes := strings.Split(*scope, ",")
	r, err := e.Erase(ctx, recall.User{ID: "erase", Read: scopes, Write: scopes}, scopes, *dry)
	if err != nil {
		return flagError(err)
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	verb := "erased"
	if *dry {
		verb = "would erase (dry run)"
	}
	fmt.Fprintf(m.Stdout, "scope set %s: %s %d rows at %s\n", strings.Join(r.Scopes, ","), verb, r.Total(), r.At.UTC().Format("2006-01-02T15:04:05.000Z"))
	for _, t := range slices.Sorted(maps.Keys(r.Tables)) {
		fmt.Fprintf(m.Stdout, "  %-18s %d\n", t, r.Tables[t])
	}
	return nil
}
