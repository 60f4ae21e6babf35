package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"

	"github.com/recall-engine/recall"
)

// scopesFlag collects --scope values, repeated or comma-separated.
type scopesFlag []string

func (s *scopesFlag) String() string { return strings.Join(*s, ",") }

// Set refuses an empty name ("--scope ”", "--scope a,,b"): left out silently, the empty list
// would mean scope default.
func (s *scopesFlag) Set(v string) error {
	for x := range strings.SplitSeq(v, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return fmt.Errorf("%q holds an empty scope name", v)
		}
		*s = append(*s, x)
	}
	return nil
}

// query: recall query "text" [--budget N] [--scope S] [--label L] [--json]
func (m *Main) query(ctx context.Context, args []string) error {
	fs := m.Flags("query")
	var scopes scopesFlag
	fs.Var(&scopes, "scope", "scope to read (repeat or comma-separate; default: default)")
	budget := fs.Int("budget", 1000, "token budget")
	label := fs.String("label", "", "the asking speaker's name")
	asJSON := fs.Bool("json", false, "print the Pack as JSON")
	noAccess := fs.Bool("no-access", false, "do not record access")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall query \"question\" [flags]\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one quoted question", cli.ErrUsage)
	}
	if len(scopes) == 0 {
		scopes = scopesFlag{"default"}
	}
	c, err := m.Connect(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()
	e, err := recall.New(ctx, recall.Config{Pool: c.Runtime, NoAccess: *noAccess})
	if err != nil {
		return err
	}
	user := recall.User{ID: "cli", Read: scopes, Write: scopes, Label: *label}
	p, err := e.Recall(ctx, user, pos[0], *budget, nil)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	printPack(m.Stdout, p)
	return nil
}

// printPack writes a pack for a person: items with where they come from and which lanes
// found them, then what was left out, warnings and timings.
func printPack(w io.Writer, p *recall.Pack) {
	fmt.Fprintf(w, "%q: %d items, %d of %d tokens", p.Query, len(p.Items), p.Used, p.Budget)
	if len(p.Omitted) > 0 {
		fmt.Fprintf(w, ", %d more over budget (%d tokens)", len(p.Omitted), p.OmittedTokens)
	}
	fmt.Fprintln(w)
	if p.Empty != "" {
		fmt.Fprintf(w, "  (empty: %s)\n", p.Empty)
	}
	for i, it := range p.Items {
		text := it.Text
		if it.Truncated {
			text += " [truncated]"
		}
		fmt.Fprintf(w, "%2d. %s\n", i+1, text)
		var meta []string
		if it.SourceTitle != "" {
			meta = append(meta, it.SourceTitle)
		}
		if it.OccurredStart != nil {
			meta = append(meta, it.OccurredStart.Format(time.DateOnly))
		}
		if len(it.Entities) > 0 {
			meta = append(meta, strings.Join(it.Entities, ", "))
		}
		meta = append(meta, "id "+it.ExternalID)
		fmt.Fprintf(w, "    %s\n    found by %s (score %.4f)\n", strings.Join(meta, " · "), it.Provenance(), it.Score)
	}
	a := p.Abstain
	if a.Any() {
		fmt.Fprintf(w, "  abstain? no match %v, low similarity %v (top %.2f), too few %v\n", a.NoMatch, a.LowSimilarity, a.TopSimilarity, a.TooFew)
	}
	for _, x := range p.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", x)
	}
	t := p.Timings
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Fprintf(w, "  time %s: embed %s, statement %s, rerank %s, pack %s, access %s\n",
		ms(t.Total), ms(t.Embed), ms(t.Statement), ms(t.Rerank), ms(t.Pack), ms(t.Access))
}
