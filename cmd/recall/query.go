package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/sql"
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
	budget := fs.Int("budget", recall.DefaultBudget, "token budget")
	label := fs.String("label", "", "the asking speaker's name")
	asJSON := fs.Bool("json", false, "print the Pack as JSON")
	noAccess := fs.Bool("no-access", false, "do not record access")
	altitude := fs.String("altitude", "auto", "summaries or memories: auto (the budget decides), memories, summaries")
	passages := fs.String("passages", "auto", "long memories whole or their matching passage: auto, whole, passage")
	graph := fs.Bool("graph-context", false, "add the relations between the question's entities and the packed memories'")
	markStale := fs.Bool("mark-stale", false, "pack the memories that no longer hold too, each marked with why (superseded by, expired on)")
	asOf := fs.String("as-of", "", "answer with what held at this time (RFC 3339 or a date): memories not yet or no longer valid, or superseded, then are left out; default: now")
	replicaURL := fs.String("replica-url", m.Getenv("RECALL_REPLICA_URL"), "run the statement on this streaming replica (as recall_runtime); access is recorded on the primary (RECALL_REPLICA_URL)")
	var ef cli.EngineFlags
	ef.Register(fs)
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
	alt, err := recall.ParseAltitude(*altitude)
	if err != nil {
		return fmt.Errorf("%w: --altitude: %s", cli.ErrUsage, strings.TrimPrefix(err.Error(), "recall: altitude: "))
	}
	pass, err := recall.ParsePassages(*passages)
	if err != nil {
		return fmt.Errorf("%w: --passages: %s", cli.ErrUsage, strings.TrimPrefix(err.Error(), "recall: passages: "))
	}
	defaulted := len(scopes) == 0
	if defaulted {
		scopes = scopesFlag{"default"}
	}
	cfg, err := ef.Config(ctx, m.Getenv)
	if err != nil {
		return err
	}
	c, err := m.Connect(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()
	cfg.Pool, cfg.NoAccess = c.Runtime, *noAccess
	if *replicaURL != "" {
		pc, err := recall.PoolConfig(*replicaURL, recall.PoolOptions{MinConns: 1})
		if err != nil {
			return fmt.Errorf("%w: --replica-url: %v", cli.ErrUsage, err)
		}
		if cfg.Replica, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
			return fmt.Errorf("--replica-url: %w", err)
		}
		defer cfg.Replica.Close()
	}
	e, err := recall.New(ctx, cfg)
	if err != nil {
		return err
	}
	user := recall.User{ID: "cli", Read: scopes, Write: scopes, Label: *label}
	opts := &recall.Options{Altitude: alt, Passages: pass, GraphContext: *graph, MarkStale: *markStale}
	if *asOf != "" {
		if opts.AsOf, err = records.ParseTime(*asOf); err != nil {
			return fmt.Errorf("%w: --as-of: %v", cli.ErrUsage, err)
		}
	}
	p, err := e.Recall(ctx, user, pos[0], *budget, opts)
	if err != nil {
		return flagError(err)
	}
	if len(p.Items) == 0 {
		m.noteEmptyScopes(ctx, c, scopes, defaulted)
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
	fmt.Fprintf(w, "%q: %s in %d of %d tokens", p.Query, plural(len(p.Items), "item"), p.Used, p.Budget)
	if len(p.Omitted) > 0 {
		fmt.Fprintf(w, "; %s did not fit (%d tokens more)", plural(len(p.Omitted), "more candidate"), p.OmittedTokens)
	}
	fmt.Fprintln(w)
	best := 0.0
	for _, it := range p.Items {
		best = max(best, it.Score)
	}
	if p.Empty != "" {
		fmt.Fprintf(w, "  (empty: %s)\n", p.Empty)
	}
	replaced := map[int64]int{} // summary -> memories it replaced
	for _, c := range p.Climbs {
		replaced[c.Summary] = len(c.Replaced)
	}
	for i, it := range p.Items {
		text := it.Text
		if it.Truncated {
			text += " [truncated]"
		}
		fmt.Fprintf(w, "%2d. %s\n", i+1, text)
		var meta []string
		if it.Kind == "summary" {
			s := fmt.Sprintf("summary of %d memories", len(it.Covers))
			if n, ok := replaced[it.ID]; ok {
				s += fmt.Sprintf(", in place of %d that did not fit", n)
			}
			meta = append(meta, s)
		}
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
		if it.Passage != nil {
			meta = append(meta, fmt.Sprintf("the passage at characters %d-%d of it", it.Passage.Start, it.Passage.End))
		}
		if it.Stale != "" {
			meta = append(meta, "no longer holds: "+it.Stale)
		}
		rel := 0.0
		if best > 0 {
			rel = it.Score / best
		}
		if a := p.Attachment(i); a != "" {
			fmt.Fprintf(w, "    %s\n    attached: %s\n", strings.Join(meta, " · "), a)
			continue
		}
		fmt.Fprintf(w, "    %s\n    found by %s (score %.2f of the best)\n", strings.Join(meta, " · "), it.Provenance(), rel)
	}
	if len(p.GraphContext) > 0 {
		fmt.Fprintf(w, "  graph context (%d tokens):\n", p.GraphTokens)
		for _, t := range p.GraphContext {
			ev := ""
			if t.Evidence != "" {
				ev = " (from " + t.Evidence + ")"
			}
			fmt.Fprintf(w, "    %s -%s-> %s%s\n", t.Subject, t.Predicate, t.Object, ev)
		}
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
	fmt.Fprintf(w, "  time %s: embed %s, statement %s (on the %s), order %s, rerank %s, pack %s, access %s\n",
		ms(t.Total), ms(t.Embed), ms(t.Statement), p.ServedBy, ms(t.Order), ms(t.Rerank), ms(t.Pack), ms(t.Access))
}

// flagError names the flag the user typed in an input error about what the flag set: a bad
// --scope is the user's read scopes to the library, a bad --label its label.
func flagError(err error) error {
	var ie *recall.InputError
	if !errors.As(err, &ie) {
		return err
	}
	for prefix, flag := range map[string]string{"user.read_scopes": "--scope", "user.write_scopes": "--scope", "user.label": "--label", "budget": "--budget"} {
		if strings.HasPrefix(ie.Field, prefix) {
			return fmt.Errorf("%w: %s: %s", cli.ErrUsage, flag, strings.TrimPrefix(ie.Error(), "recall: "+ie.Field+": "))
		}
	}
	return err
}

// noteEmptyScopes tells the user, on stderr, when the scopes read hold no memories at all
// (a mistyped scope, or no --scope and nothing in "default"), with the scopes that do. The
// command runs as the owner, who sees every scope; the pack itself stays as it is.
func (m *Main) noteEmptyScopes(ctx context.Context, c *cli.Conn, scopes []string, defaulted bool) {
	var some bool
	if err := c.Owner.QueryRow(ctx, sqltext.ScopeHasMemories, pgx.StrictNamedArgs{"scopes": scopes}).Scan(&some); err != nil || some {
		return
	}
	rows, err := c.Owner.Query(ctx, sqltext.ScopesWithMemories)
	if err != nil {
		return
	}
	known, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	which := fmt.Sprintf("scope %s holds", strings.Join(scopes, ", "))
	if len(scopes) > 1 {
		which = fmt.Sprintf("scopes %s hold", strings.Join(scopes, ", "))
	}
	if defaulted {
		which = `no --scope given, so scope "default" was read; it holds`
	}
	switch {
	case len(known) == 0:
		fmt.Fprintf(m.Stderr, "note: %s no memories, and the database holds none (recall ingest writes some)\n", which)
	case len(known) > 20:
		fmt.Fprintf(m.Stderr, "note: %s no memories; scopes with memories include %s, ...\n", which, strings.Join(known[:20], ", "))
	default:
		fmt.Fprintf(m.Stderr, "note: %s no memories; scopes with memories: %s\n", which, strings.Join(known, ", "))
	}
}

// plural is "1 item", "2 items".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
