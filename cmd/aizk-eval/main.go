// Command aizk-eval diagnoses and measures recall: trace renders one recall laid open,
// bench runs the plan study on a BEIR-format dataset, plans prints the ablation table, tune
// fits the fusion to a split and writes a settings file. Each
// subcommand lives in its own file; this package parses flags, prints and exits.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/recall-engine/recall/internal/command/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := (&Main{cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}}).Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Main is the command with its outputs and environment, so tests can run it in-process.
type Main struct{ cli.Env }

// Run runs one subcommand and returns the exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	return cli.Run(ctx, m.Env, "aizk-eval", map[string]cli.Command{
		"trace":   {Summary: "one recall laid open: every lane, the fused order, the pack decisions, timings", Run: m.trace},
		"profile": {Summary: "where one recall's statement spends its time: EXPLAIN ANALYZE by WITH query, probe and lane", Run: m.profile},
		"bench":   {Summary: "the plan study on a BEIR-format dataset: metrics, latency, significance", Run: m.bench},
		"plans":   {Summary: "the ablation table (maximal, each lane alone, maximal minus each lane)", Run: m.plans},
		"tune":    {Summary: "fit the fusion (rrf_k, lane weights) to a split's judged queries; writes a settings file", Run: m.tune},
		"mix":     {Summary: "kinds of memory in one scope: each set's headline metric alone and in the mix", Run: m.mix},
		"order":   {Summary: "fit the learned order (weights and boosted trees over each candidate's features) to traces, by folds; writes a model file", Run: m.order},
		"traces":  {Summary: "write every judged query's trace to a file, for tune --traces", Run: m.tracesCmd},
		"updates": {Summary: "write the knowledge-update data set (people who move and change jobs; current and past questions)", Run: m.updates},
	}, args)
}
