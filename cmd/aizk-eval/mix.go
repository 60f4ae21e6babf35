package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/statement"
)

// mixFlags say how a mix is scored and reported.
type mixFlags struct {
	metric string
	plans  string
	report string
	limit  int
}

// mix: aizk-eval mix --dataset A [A's mapping flags] --with B [--with-split train] ...
func (m *Main) mix(ctx context.Context, args []string) error {
	fs := m.Flags("mix")
	var d datasetFlags
	m.datasetFlags(fs, &d)
	var x mixFlags
	metric := fs.String("metric", "recall@10", "--dataset's headline metric ("+eval.MetricNames()+")")
	fs.StringVar(&x.metric, "with-metric", "ndcg@10", "--with's headline metric")
	fs.StringVar(&x.plans, "plans", "maximal", `arms, comma-separated, as bench takes them`)
	fs.StringVar(&x.report, "report", "", "write the markdown report to FILE too")
	fs.IntVar(&x.limit, "limit", 0, "run only the first N judged queries of each set (0: all)")
	run := addRunFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval mix --dataset A --scope-field F --with B [flags]\n\n"+
			"Kinds of memory in one scope: spreads B's documents over A's scopes (the documents one\n"+
			"query judges stay together; each B query is asked in its documents' scope) and runs\n"+
			"each set's judged queries three ways: A alone, B spread alone over the same scopes, and\n"+
			"both in the same scopes. Each query is judged on its own set's qrels. Prints each set's\n"+
			"headline metric alone and in the mix, with a paired randomization test.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	d.visit(fs)
	switch {
	case len(pos) > 0 || d.dir == "" || d.with == "":
		fs.Usage()
		return fmt.Errorf("%w: --dataset and --with are required, and there are no positional arguments", cli.ErrUsage)
	case d.scopeField == "":
		return fmt.Errorf("%w: --scope-field is required: B's documents are spread over the scopes it names", cli.ErrUsage)
	case eval.MetricByName(*metric) == nil || eval.MetricByName(x.metric) == nil:
		return fmt.Errorf("%w: --metric and --with-metric: want one of %s", cli.ErrUsage, eval.MetricNames())
	}
	arms, err := parsePlans(x.plans)
	if err != nil {
		return fmt.Errorf("%w: --plans: %v", cli.ErrUsage, err)
	}
	a, err := eval.Load(d.dir, d.split)
	if err != nil {
		return err
	}
	b, err := eval.Load(d.with, d.withSplit)
	if err != nil {
		return err
	}
	aName, bName := setName(d.dir), setName(d.with)
	mixed, err := d.load()
	if err != nil {
		return err
	}
	if d.messages { // A alone as the mix holds it
		if a, err = eval.Messages(a, d.sessionField, d.answerField); err != nil {
			return err
		}
	}
	var scopes []string
	for _, doc := range a.Corpus {
		if sc, err := d.docScope(doc.Metadata); err == nil && !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	slices.Sort(scopes)
	spread := eval.Spread(b, bName, d.scopeField, scopes, d.mapped())
	o := eval.Options{Metric: *metric, GroupField: eval.SetField}
	if err := run.apply(&o, m.Stderr); err != nil {
		return err
	}
	runs := []struct {
		name string
		ds   *eval.Dataset
	}{{aName + " alone", a}, {bName + " spread alone", spread}, {"mixed", mixed}}
	var reps []*eval.Report
	for _, r := range runs {
		rep, err := m.mixStudy(ctx, d, r.name, r.ds, arms, x.limit, o)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		reps = append(reps, rep)
	}
	command := "aizk-eval mix " + strings.Join(args, " ")
	out := []io.Writer{m.Stdout}
	if x.report != "" {
		f, err := os.Create(x.report)
		if err != nil {
			return err
		}
		defer f.Close() //nolint:errcheck // closed below on success
		out = append(out, f)
	}
	w := io.MultiWriter(out...)
	writeMix(w, command, []setMetric{{aName, *metric, reps[0]}, {bName, x.metric, reps[1]}}, reps[2])
	return nil
}

// mixStudy runs the arms over ds's judged queries (at most limit of each set) in ds's own
// database.
func (m *Main) mixStudy(ctx context.Context, d datasetFlags, name string, ds *eval.Dataset, arms []statement.Plan, limit int, o eval.Options) (*eval.Report, error) {
	ds, c, e, err := m.openLoaded(ctx, d, ds)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var queries []eval.Query
	perSet := map[string]int{}
	for _, q := range ds.Judged() {
		set := fmt.Sprint(q.Meta[eval.SetField])
		if limit > 0 && perSet[set] >= limit {
			continue
		}
		perSet[set]++
		queries = append(queries, q)
	}
	bar := progress.New(m.Stderr, name, int64(len(queries)*len(arms)), false)
	o.Progress = func(done, _ int) { bar.Set(int64(done)) }
	rep, err := eval.Study(ctx, name, queries, ds.Qrels, arms, ds.Search(d.search(e, c.Owner, nil)), o)
	bar.Finish()
	return rep, err
}

// setMetric is one set's headline metric and its run alone.
type setMetric struct {
	set, metric string
	alone       *eval.Report
}

// writeMix prints each set's headline metric per arm, alone and in the mix, with the paired
// randomization test's p over the set's queries.
func writeMix(w io.Writer, command string, sets []setMetric, mixed *eval.Report) {
	fmt.Fprintf(w, "# Mixed memory: %s\n\nMade by:\n\n    %s\n\n", strings.Join([]string{sets[0].set, sets[1].set}, " + "), command)
	fmt.Fprintf(w, "Each set's queries are judged on its own qrels; p is a paired randomization test (%d\n", eval.Trials)
	fmt.Fprintf(w, "trials) of the set's queries alone against the same queries in the mix.\n\n")
	fmt.Fprintf(w, "| set | metric | plan | queries | alone | in the mix | mix - alone | p |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, s := range sets {
		for i, alone := range s.alone.Plans {
			in := &mixed.Plans[i]
			var a, b []float64
			at := map[string]float64{}
			for _, q := range alone.Queries {
				at[q.ID] = q.Metrics[s.metric]
			}
			for _, q := range in.Queries {
				if v, ok := at[q.ID]; ok && q.Group == s.set {
					a, b = append(a, v), append(b, q.Metrics[s.metric])
				}
			}
			ma, mb := mean(a), mean(b)
			p := eval.PairedRandomization(b, a, eval.Trials, uint64(i+1))
			fmt.Fprintf(w, "| %s | %s | %s | %d | %.4f | %.4f | %+.4f | %.4f |\n", s.set, s.metric, alone.Plan, len(a), ma, mb, mb-ma, p)
		}
	}
	for _, r := range []*eval.Report{sets[0].alone, sets[1].alone, mixed} {
		if f := r.Failures(); f != "" {
			fmt.Fprintf(w, "\n%s: %s\n", r.Dataset, f)
		}
	}
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
