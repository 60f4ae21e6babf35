package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/statement"
)

// bench: aizk-eval bench --dataset DIR [--plans maximal,bm25,...] [--json FILE] [--report FILE.md]
func (m *Main) bench(ctx context.Context, args []string) error {
	fs := m.Flags("bench")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	plans := fs.String("plans", "maximal,vector,bm25", `arms, comma-separated: "maximal", a lane ("bm25"), "-lane" (maximal minus it), or "study" (every arm)`)
	jsonOut := fs.String("json", "", "write the results as JSON to FILE")
	perQuery := fs.Bool("per-query", false, "with --json: include every query's metrics and top ten ids")
	report := fs.String("report", "", "write a markdown report (and FILE.svg, its plot) to FILE.md")
	limit := fs.Int("limit", 0, "run only the first N judged queries (0: all)")
	var o eval.Options
	fs.StringVar(&o.Metric, "metric", "ndcg@10", "metric the arms are compared on ("+eval.MetricNames()+")")
	fs.StringVar(&o.GroupField, "group-field", "", "query metadata field: report every metric per its value too")
	baselines := fs.String("baselines", baselineExactVector, `arms outside the engine, compared with maximal as the plans are: "exact-vector" (the caller's memories nearest the question by exact cosine distance, one SQL query, the same embedder), or "" for none`)
	budgets := fs.String("pack-budgets", "", "token budgets, comma-separated, at which to measure the real pack's evidence recall (e.g. 500,1000,2000)")
	run := addRunFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval bench --dataset DIR [flags]\n\n"+
			"Ingests the corpus into a database of its own (reused while the corpus and mapping flags\n"+
			"are unchanged), runs the judged queries of the split once per arm, and prints nDCG@10,\n"+
			"Recall@5/10/25/50/100, MRR@10, p50/p95 latency, and each arm's difference with maximal\n"+
			"on --metric (paired randomization test, Holm-adjusted); per --group-field value too.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	d.visit(fs)
	if len(pos) > 0 || d.dir == "" {
		fs.Usage()
		return fmt.Errorf("%w: --dataset is required, and there are no positional arguments", cli.ErrUsage)
	}
	arms, err := parsePlans(*plans)
	if err != nil {
		return fmt.Errorf("%w: --plans: %v", cli.ErrUsage, err)
	}
	if eval.MetricByName(o.Metric) == nil && !(d.sessionField != "" && eval.IsSessionMetric(o.Metric)) {
		return fmt.Errorf("%w: --metric %q: want one of %s (with --session-field, LongMemEval's measures too)", cli.ErrUsage, o.Metric, eval.MetricNames())
	}
	if o.PackBudgets, err = parseBudgets(*budgets); err != nil {
		return fmt.Errorf("%w: --pack-budgets: %v", cli.ErrUsage, err)
	}
	if err := run.apply(&o, m.Stderr); err != nil {
		return err
	}
	switch *baselines {
	case "":
	case baselineExactVector:
		d.exactBaseline = true
	default:
		return fmt.Errorf("%w: --baselines %q: want %q or \"\"", cli.ErrUsage, *baselines, baselineExactVector)
	}
	out := output{json: *jsonOut, perQuery: *perQuery, report: *report}
	return m.study(ctx, d, arms, *limit, o, out, "aizk-eval bench "+strings.Join(args, " "))
}

func parsePlans(s string) ([]statement.Plan, error) {
	if s == "study" {
		return statement.StudyPlans(), nil
	}
	var out []statement.Plan
	seen := map[statement.Plan]bool{}
	for _, part := range strings.Split(s, ",") {
		p, err := statement.ParsePlan(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func parseBudgets(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want token budgets >= 1", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// output says where a study's results go besides stdout.
type output struct {
	json     string // the report as JSON
	perQuery bool   // the JSON keeps every query's result
	report   string // markdown, with its SVG plot
}

func (m *Main) study(ctx context.Context, d datasetFlags, arms []statement.Plan, limit int, o eval.Options, out output, command string) error {
	ds, c, e, err := m.openDataset(ctx, d)
	if err != nil {
		return err
	}
	defer c.Close()
	queries := ds.Judged()
	if limit > 0 && limit < len(queries) {
		queries = queries[:limit]
	}
	if len(queries) == 0 {
		return fmt.Errorf("no judged queries in %s (split %s)", d.dir, d.split)
	}
	if d.sessionField != "" {
		o.Sessions = sessionsOf(ds, d)
	}
	if d.exactBaseline {
		o.Baselines = append(o.Baselines, d.exactVector(e, c.Runtime))
	}
	bar := progress.New(m.Stderr, "recalls", int64(len(queries)*(len(arms)+len(o.Baselines))*(1+len(o.PackBudgets))), false)
	o.Progress = func(done, _ int) { bar.Set(int64(done)) }
	var stages eval.StageLog
	rep, err := eval.Study(ctx, filepath.Base(filepath.Clean(d.dir)), queries, ds.Qrels, arms, ds.Search(d.search(e, c.Owner, &stages)), o)
	bar.Finish()
	if err != nil {
		return err
	}
	rep.Stages = stages.Medians()
	if err := rep.Markdown(m.Stdout, command, ""); err != nil {
		return err
	}
	if out.json != "" {
		js := *rep
		if !out.perQuery {
			js.Plans = append([]eval.PlanResult(nil), rep.Plans...)
			for i := range js.Plans {
				js.Plans[i].Queries = nil
			}
		}
		b, err := json.MarshalIndent(&js, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(out.json, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if report := out.report; report != "" {
		svg := strings.TrimSuffix(report, filepath.Ext(report)) + ".svg"
		f, err := os.Create(svg)
		if err != nil {
			return err
		}
		if err := rep.SVG(f); err != nil {
			_ = f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		g, err := os.Create(report)
		if err != nil {
			return err
		}
		if err := rep.Markdown(g, command, filepath.Base(svg)); err != nil {
			_ = g.Close()
			return err
		}
		if err := g.Close(); err != nil {
			return err
		}
	}
	return nil
}

// sessionsOf says each document's session (--session-field, within its scope), for
// LongMemEval's session measures.
func sessionsOf(ds *eval.Dataset, d datasetFlags) eval.Sessions {
	out := eval.Sessions{}
	for _, doc := range ds.Corpus {
		if v, ok := doc.Metadata[d.sessionField].(string); ok && v != "" {
			sc, _ := d.docScope(doc.Metadata) // a document without a scope was refused at ingest
			out[doc.ID] = sc + "\x00" + v
		}
	}
	return out
}

// runFlags say how a long run meets a failing recall (bench and mix take them): it is tried
// again, and one that fails every try is scored as finding nothing and counted in the
// report, up to a bound past which the run stops.
type runFlags struct{ retries, maxFailed int }

func addRunFlags(fs *flag.FlagSet) *runFlags {
	r := &runFlags{}
	fs.IntVar(&r.retries, "retries", 2, "try a failed recall this many more times (after 250 ms, then 500 ms, ...)")
	fs.IntVar(&r.maxFailed, "max-failed", 10, "recalls per arm that may fail every try, each scored as finding nothing and counted in the report; one more stops the run")
	return r
}

// apply sets o's retry policy, and reports each failed try on stderr.
func (r *runFlags) apply(o *eval.Options, stderr io.Writer) error {
	if r.retries < 0 || r.maxFailed < 0 {
		return fmt.Errorf("%w: --retries %d, --max-failed %d: neither may be negative", cli.ErrUsage, r.retries, r.maxFailed)
	}
	o.Retries, o.MaxFailed = r.retries, r.maxFailed
	o.Failed = func(arm string, q eval.Query, budget int, err error, again bool) {
		what := "counted as failed"
		if again {
			what = "trying again"
		}
		fmt.Fprintf(stderr, "\naizk-eval: plan %s, query %s: %v (%s)\n", arm, q.ID, err, what)
	}
	return nil
}
