package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/statement"
)

// tune: aizk-eval tune --dataset DIR [--split train] [--metric M] --out FILE
func (m *Main) tune(ctx context.Context, args []string) error {
	fs := m.Flags("tune")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	metric := fs.String("metric", "ndcg@10", "metric to maximize ("+eval.MetricNames()+")")
	out := fs.String("out", "", "write the fitted settings (JSON, for --settings and the engine) to FILE")
	rounds := fs.Int("rounds", 5, "most rounds of coordinate ascent")
	folds := fs.String("folds-by", "", "query metadata field: also fit on all but each of its values and score the one left out")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval tune --dataset DIR --out FILE [flags]\n\n"+
			"Fits the fusion (rrf_k and each lane's weight) to the judged queries of --split by\n"+
			"coordinate ascent on --metric: every lane's candidates are read once per query (a\n"+
			"trace), and each setting tried fuses them again as the statement would. Starts from\n"+
			"--settings (or the defaults) and writes the fitted settings to --out.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	d.visit(fs)
	if len(pos) > 0 || d.dir == "" || *out == "" || eval.MetricByName(*metric) == nil {
		fs.Usage()
		return fmt.Errorf("%w: --dataset and --out are required, --metric one of %s", cli.ErrUsage, eval.MetricNames())
	}
	ds, c, e, err := m.openDataset(ctx, d)
	if err != nil {
		return err
	}
	defer c.Close()
	traces, queries, err := m.traces(ctx, d, e, ds)
	if err != nil {
		return err
	}
	start := e.Settings()
	score := func(qs []int) func(statement.Settings) float64 {
		return func(s statement.Settings) float64 {
			var sum float64
			for _, i := range qs {
				sum += eval.MetricByName(*metric).Fn(eval.ToParents(traces[i].Reorder(s), ds.Parent), ds.Qrels[queries[i].ID])
			}
			return sum / float64(max(1, len(qs)))
		}
	}
	all := make([]int, len(queries))
	for i := range all {
		all[i] = i
	}
	before := score(all)(start)
	best, after, steps := eval.CoordinateAscent(start, eval.FusionParams(), score(all), *rounds)
	fmt.Fprintf(m.Stdout, "%s on %d queries of %s (%s): %.4f with the starting settings, %.4f fitted\n", *metric, len(queries), d.dir, d.split, before, after)
	for _, s := range steps {
		fmt.Fprintln(m.Stdout, "  "+s.String())
	}
	fmt.Fprintf(m.Stdout, "fitted: rrf_k %g, weights %s\n", best.RRFK, weightsText(best.Weights))
	if *folds != "" {
		m.crossValidate(*folds, queries, start, score, *rounds)
	}
	b, err := json.MarshalIndent(best, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, append(b, '\n'), 0o644)
}

// traces reads every judged query's trace: each lane's candidates, once.
func (m *Main) traces(ctx context.Context, d datasetFlags, e *recall.Engine, ds *eval.Dataset) ([]*recall.Trace, []eval.Query, error) {
	queries := ds.Judged()
	bar := progress.New(m.Stderr, "traces", int64(len(queries)), false)
	defer bar.Finish()
	out := make([]*recall.Trace, len(queries))
	for i, q := range queries {
		u, err := d.queryUser(q)
		if err != nil {
			return nil, nil, err
		}
		opts, err := d.options(q)
		if err != nil {
			return nil, nil, err
		}
		if out[i], err = e.Trace(ctx, u, q.Text, 1_000_000, opts); err != nil {
			return nil, nil, fmt.Errorf("query %s: %w", q.ID, err)
		}
		bar.Set(int64(i + 1))
	}
	return out, queries, nil
}

// crossValidate fits on the queries of all values of field but one and scores the one left
// out, for each value, and prints the held-out scores with and without fitting.
func (m *Main) crossValidate(field string, queries []eval.Query, start statement.Settings, score func([]int) func(statement.Settings) float64, rounds int) {
	groups := map[string][]int{}
	var names []string
	for i, q := range queries {
		g := fmt.Sprint(q.Meta[field])
		if _, ok := groups[g]; !ok {
			names = append(names, g)
		}
		groups[g] = append(groups[g], i)
	}
	slices.Sort(names)
	fmt.Fprintf(m.Stdout, "left out by %s (fitted on the others): held-out score with the starting settings, then fitted\n", field)
	var sumStart, sumFit float64
	for _, g := range names {
		var rest []int
		for _, h := range names {
			if h != g {
				rest = append(rest, groups[h]...)
			}
		}
		fit, _, _ := eval.CoordinateAscent(start, eval.FusionParams(), score(rest), rounds)
		a, b := score(groups[g])(start), score(groups[g])(fit)
		sumStart += a * float64(len(groups[g]))
		sumFit += b * float64(len(groups[g]))
		fmt.Fprintf(m.Stdout, "  %s (%d queries): %.4f -> %.4f (rrf_k %g, weights %s)\n", g, len(groups[g]), a, b, fit.RRFK, weightsText(fit.Weights))
	}
	fmt.Fprintf(m.Stdout, "  all held out: %.4f -> %.4f\n", sumStart/float64(len(queries)), sumFit/float64(len(queries)))
}

func weightsText(w statement.Weights) string {
	parts := make([]string, 0, len(w))
	for _, l := range statement.Lanes() {
		parts = append(parts, fmt.Sprintf("%s=%g", l, w[l]))
	}
	return strings.Join(parts, ",")
}
