package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/statement"
)

// profile: aizk-eval profile "question" [--scope S] [--runs N] [--json]
// or, on a dataset: aizk-eval profile --dataset DIR --query-id ID
func (m *Main) profile(ctx context.Context, args []string) error {
	fs := m.Flags("profile")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	scopes := scopesFlag(fs)
	queryID := fs.String("query-id", "", "with --dataset: profile this judged query")
	runs := fs.Int("runs", 2, "run the statement this many times and show the last (the first on a connection also fills its caches)")
	asJSON := fs.Bool("json", false, "print the profile as JSON, EXPLAIN's plan included")
	planName := fs.String("plan", "maximal", "the lanes the statement runs: maximal, a lane, or maximal less lanes (-graph)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval profile \"question\" [flags]\n"+
			"       aizk-eval profile --dataset DIR --query-id ID [flags]\n\n"+
			"Runs the statement of one recall under EXPLAIN ANALYZE as the caller and shows where its\n"+
			"time goes: planning and execution, each WITH query Postgres kept as a step and each probe,\n"+
			"by lane, with its rows and buffers.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if *runs < 1 {
		return fmt.Errorf("%w: --runs %d: want at least 1", cli.ErrUsage, *runs)
	}
	plan, err := statement.ParsePlan(*planName)
	if err != nil {
		return fmt.Errorf("%w: --plan: %w", cli.ErrUsage, err)
	}
	d.visit(fs)
	sub, err := m.traceSubject(ctx, d, *queryID, pos, recall.User{ID: "aizk-eval", Read: *scopes})
	if err != nil {
		if errors.Is(err, cli.ErrUsage) {
			fs.Usage()
		}
		return err
	}
	defer sub.close()
	var ex *recall.Explain
	for range *runs {
		if ex, err = sub.engine.Explain(ctx, sub.user, sub.question, &recall.Options{Plan: plan}); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	renderProfile(m.Stdout, ex)
	return nil
}

// renderProfile prints a profile: the totals, the time by lane, then every step.
func renderProfile(w io.Writer, ex *recall.Explain) {
	p := ex.Profile
	fmt.Fprintf(w, "%q: plan %s (dim %d)\n", ex.Query, ex.Shape.Plan, ex.Shape.Dim)
	fmt.Fprintf(w, "before the statement: embed %s, entities %s\n", ex.Timings.Embed, ex.Timings.Entities)
	fmt.Fprintf(w, "statement: planning %.2f ms, execution %.2f ms\n\n", p.PlanningMS, p.ExecutionMS)
	byLane := map[string]float64{}
	for _, s := range p.Steps {
		byLane[laneLabel(s)] += s.MS
	}
	fmt.Fprintln(w, "by lane (ms, share of execution):")
	for _, l := range append(statement.Lanes(), statement.NumLanes) {
		name := "shared"
		if l < statement.NumLanes {
			name = l.String()
		}
		if ms, ok := byLane[name]; ok {
			fmt.Fprintf(w, "  %-18s %8.2f  %5.1f%%\n", name, ms, share(ms, p.ExecutionMS))
		}
	}
	fmt.Fprintln(w, "\nsteps (own time: less the steps each reads):")
	fmt.Fprintf(w, "  %-9s %-28s %-10s %8s %6s %8s %6s %9s %9s\n", "kind", "name", "lane", "ms", "share", "rows", "loops", "hit", "read")
	for _, s := range p.Steps {
		fmt.Fprintf(w, "  %-9s %-28s %-10s %8.2f %5.1f%% %8.0f %6d %9d %9d\n",
			s.Kind, s.Name, laneLabel(s), s.MS, share(s.MS, p.ExecutionMS), s.Rows, s.Loops, s.SharedHit, s.SharedRead)
	}
}

func laneLabel(s statement.Step) string {
	if s.Lane == "" {
		return "shared"
	}
	return s.Lane
}

func share(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * part / whole
}
