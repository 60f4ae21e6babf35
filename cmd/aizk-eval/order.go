package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// orderQuery is one traced query as the order's fit reads it.
type orderQuery struct {
	tracedQuery
	set  string
	file string // the traces file's name: a set alone, or mixed with another
	// balance is the key its weight in a fit is shared by (--balance; "": weight 1).
	balance string
	metric  eval.Metric
	x       [][]float64 // the head's features
	rel     []bool
	ids     []string // the head's external ids, in fused order
}

// order: aizk-eval order --traces FILE[,FILE...] [--folds-by conv,set] --out FILE
func (m *Main) order(ctx context.Context, args []string) error {
	fs := m.Flags("order")
	files := fs.String("traces", "", "traces files (aizk-eval traces), comma-separated: the queries fitted on")
	score := fs.String("score", "", "traces files, comma-separated, scored with the fitted model and never fitted on (a test split)")
	metric := fs.String("metric", "recall@10", "the metric of every set ("+eval.MetricNames()+")")
	metricFor := fs.String("metric-for", "", "other metrics by set, e.g. scifact=ndcg@10 (a query's set: its metadata field set, else its file's name)")
	folds := fs.String("folds-by", "", `query metadata fields, comma-separated: for each, fit on all but each of its values and score the one left out ("conv/5": its values dealt into five folds; "set": the data set; "id/5": the queries themselves in five folds)`)
	curve := fs.String("curve", "", "query metadata field: fit on each of its values alone and score every value, beside the fit on all the others (how the held-out metric grows with the data fitted on)")
	group := fs.String("group-field", "", "query metadata field: the held-out headline metric per its value too, against the bm25 lane alone")
	rrf := fs.Bool("compare-rrf", false, "with --folds-by: also fit the fusion (rrf_k and lane weights) by the same folds, the baseline the order must beat")
	out := fs.String("out", "", "write the model fitted on every --traces query to FILE (ranker's JSON)")
	name := fs.String("name", "", "the model's name (default: from --out)")
	k := fs.Int("k", 0, "the head the order ranks: the first K fused candidates of each trace (0: the trace's own settings' k; a trace holds every lane's candidates)")
	var fo ranker.FitOptions
	fs.Float64Var(&fo.L2, "l2", 0.01, "L2 penalty on the standardized weights")
	fs.IntVar(&fo.Iterations, "iterations", 300, "gradient steps")
	fs.IntVar(&fo.Trees.Trees, "trees", 0, "boosted trees fitted on top of the linear order (LambdaMART; 0: a linear order)")
	fs.IntVar(&fo.Trees.Depth, "depth", 3, "levels of splits per tree")
	fs.Float64Var(&fo.Trees.Shrink, "shrink", 0.1, "the trees' learning rate")
	fs.Float64Var(&fo.Trees.MinHess, "min-hessian", 1, "least hessian (pair weight) in a tree's leaf")
	treeFeatures := fs.String("tree-features", "", `"place": the trees split only on what a memory's place and speaker say (ranker.PlaceFeatures), so a memory without them is ordered by the weights alone; "": on every feature`)
	prior := fs.String("prior", "", `"fused": the fit starts from the fused order's lane weights (the traces' settings) and its penalty draws it back there, so what the data does not support leaves the fused order; "": from zero`)
	fs.BoolVar(&fo.Kinds, "kinds", false, "fit the turns' and the documents' blocks of features apart (ranker.FitKinds): the turns on every query, the documents on documents only")
	balance := fs.String("balance", "", `"file": the queries of each traces file weigh together what another file's do in the fit (so does "set" per data set, or any metadata field); "": each query weighs 1`)
	bags := fs.Int("bags", 1, "fit this many orders on bootstrap samples of the queries and write their average (ranker.FitBagged; 1: one fit on every query)")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval order --traces FILE[,FILE...] --out FILE [flags]\n\n"+
			"Fits the learned order (package ranker: a linear model over each candidate's features,\n"+
			"and --trees boosted trees on top) to traced queries by pairwise logistic regression\n"+
			"(and LambdaMART), reports it against the fused order\n"+
			"per set, held out by each --folds-by field, and writes the model fitted on all of them.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *files == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("%w: --traces and --out are required", cli.ErrUsage)
	}
	metrics, err := parseMetrics(*metric, *metricFor)
	if err != nil {
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	train, err := loadOrderQueries(*files, metrics, *k)
	if err != nil {
		return err
	}
	if err := fitChoices(&fo, train, *treeFeatures, *prior, *balance, *bags); err != nil {
		return err
	}
	if *curve != "" {
		if n := len(curveValues(train, *curve)); n < 3 {
			return fmt.Errorf("%w: --curve %s: the traces hold %d values of it: a curve needs three at least (one, and more than one, to fit on besides the value scored)", cli.ErrUsage, *curve, n)
		}
	}
	var test []orderQuery
	if *score != "" {
		if test, err = loadOrderQueries(*score, metrics, *k); err != nil {
			return err
		}
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	}
	command := "aizk-eval order " + strings.Join(args, " ")
	model, err := fitOrder(train, *name, command, fo, *bags)
	if err != nil {
		return err
	}
	w := m.Stdout
	fmt.Fprintf(w, "# Learned order: %s\n\nMade by:\n\n    %s\n\n", *name, command)
	fmt.Fprintf(w, "%d queries fitted on (%s); weights:\n\n", len(train), setCounts(train))
	for _, f := range ranker.Features {
		fmt.Fprintf(w, "    %-14s %+.4f\n", f, model.Weights[f])
	}
	fmt.Fprintln(w)
	writeOrderTable(w, "In-sample (fitted on every query above)", train, map[string]*ranker.Model{"learned": model}, nil)
	for _, field := range splitList(*folds) {
		if err := writeHeldOut(w, train, field, *name, fo, *bags, *rrf, *group); err != nil {
			return err
		}
	}
	if *curve != "" {
		if err := writeCurve(w, train, *curve, *name, fo, *bags); err != nil {
			return err
		}
	}
	if len(test) > 0 {
		writeOrderTable(w, "Scored on --score (never fitted on)", test, map[string]*ranker.Model{"learned": model}, nil)
	}
	b, err := model.Marshal()
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}

// parseMetrics reads --metric and --metric-for into a metric per set ("" for the rest).
func parseMetrics(def, per string) (map[string]eval.Metric, error) {
	out := map[string]eval.Metric{}
	m := eval.MetricByName(def)
	if m == nil {
		return nil, fmt.Errorf("--metric %q: want one of %s", def, eval.MetricNames())
	}
	out[""] = *m
	for _, kv := range splitList(per) {
		set, name, ok := strings.Cut(kv, "=")
		mm := eval.MetricByName(name)
		if !ok || mm == nil {
			return nil, fmt.Errorf("--metric-for %q: want set=metric, metrics %s", kv, eval.MetricNames())
		}
		out[set] = *mm
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// writeHeldOut writes the learned order held out by field (fitted on the other values), beside
// the fitted fusion held out alike when rrf, and every metric by arm and group.
func writeHeldOut(w io.Writer, train []orderQuery, field, name string, fo ranker.FitOptions, bags int, rrf bool, group string) error {
	held, err := heldOutOrder(train, field, name, fo, bags)
	if err != nil {
		return err
	}
	var fitted map[int]statement.Settings
	if rrf {
		fitted = heldOutRRF(train, field)
	}
	writeOrderTable(w, "Held out by "+field+" (fitted on the other values)", train, held, fitted)
	arms := map[string]func(int) []string{
		"bm25 alone": func(i int) []string { return train[i].Trace.ReorderWith(bm25Alone(train[i].Trace.Settings), nil) },
		"fused":      func(i int) []string { return train[i].Trace.ReorderWith(train[i].Trace.Settings, nil) },
		"learned order, held out": func(i int) []string {
			return train[i].Trace.ReorderWith(train[i].Trace.Settings, held[fmt.Sprint(i)])
		},
	}
	names := []string{"bm25 alone", "fused", "learned order, held out"}
	if fitted != nil {
		arms["fitted fusion, held out"] = func(i int) []string { return train[i].Trace.ReorderWith(fitted[i], nil) }
		names = []string{"bm25 alone", "fused", "fitted fusion, held out", "learned order, held out"}
	}
	writeOrderDetail(w, "Every metric, held out by "+field, train, names, arms, group)
	return nil
}

// loadOrderQueries reads traces files and computes each query's head features with the
// trace's own settings, the head being its first k fused candidates when k > 0.
func loadOrderQueries(files string, metrics map[string]eval.Metric, k int) ([]orderQuery, error) {
	var out []orderQuery
	for _, f := range splitList(files) {
		tqs, err := readTraces(f)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".jsonl")
		for _, tq := range tqs {
			q := orderQuery{tracedQuery: tq, set: base, file: base}
			if s, ok := tq.Query.Meta[eval.SetField].(string); ok {
				q.set = s
			}
			mm, ok := metrics[q.set]
			if !ok {
				mm = metrics[""]
			}
			q.metric = mm
			s := tq.Trace.Settings
			if k > 0 {
				s.K = k
			}
			head := tq.Trace.Head(s)
			cands := make([]statement.Candidate, len(head))
			for i, c := range head {
				cands[i] = c.Candidate
				q.rel = append(q.rel, tq.judged(c.ExternalID) > 0)
				q.ids = append(q.ids, c.ExternalID)
			}
			q.x = ranker.Extract(tq.Trace.Pack.Query, cands, s.RRFK)
			out = append(out, q)
		}
	}
	return out, nil
}

// groupsBy splits qs by a metadata field's value, in sorted order.
// A field written "F/N" deals F's values, in sorted order, into N folds ("F 1/N", ...): what
// many small values (LongMemEval's questions, each its own scope) need to be fitted on in
// fewer rounds; a value's queries stay together.
func groupsBy(qs []orderQuery, field string) ([]string, map[string][]int) {
	folds := 0
	if base, n, ok := strings.Cut(field, "/"); ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			field, folds = base, v
		}
	}
	groups := map[string][]int{}
	for i, q := range qs {
		g := groupOf(q, field)
		groups[g] = append(groups[g], i)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names)
	if folds == 0 {
		return names, groups
	}
	dealt := map[string][]int{}
	for i, g := range names {
		f := fmt.Sprintf("%s %d/%d", field, i%folds+1, folds)
		dealt[f] = append(dealt[f], groups[g]...)
	}
	names = names[:0]
	for f := range dealt {
		names = append(names, f)
	}
	slices.Sort(names)
	return names, dealt
}

// heldOutOrder fits on all but each value of field and returns the model each query is
// scored with (key: the query's index, as a string, under "learned"). A fit that fails fails
// it: a fold left unscored would change every held-out figure without a word.
func heldOutOrder(qs []orderQuery, field, name string, o ranker.FitOptions, bags int) (map[string]*ranker.Model, error) {
	names, groups := groupsBy(qs, field)
	out := map[string]*ranker.Model{}
	for _, g := range names {
		var rest []orderQuery
		for _, h := range names {
			if h != g {
				for _, i := range groups[h] {
					rest = append(rest, qs[i])
				}
			}
		}
		m, err := fitOrder(rest, name, "", o, bags)
		if err != nil {
			return nil, fmt.Errorf("the fit without %s=%q: %w", field, g, err)
		}
		for _, i := range groups[g] {
			out[fmt.Sprint(i)] = m
		}
	}
	return out, nil
}

// heldOutRRF fits the fusion on all but each value of field by coordinate ascent on the
// queries' metrics, and returns the settings each query is scored with.
func heldOutRRF(qs []orderQuery, field string) map[int]statement.Settings {
	names, groups := groupsBy(qs, field)
	out := map[int]statement.Settings{}
	for _, g := range names {
		var rest []int
		for _, h := range names {
			if h != g {
				rest = append(rest, groups[h]...)
			}
		}
		objective := func(s statement.Settings) float64 {
			var sum float64
			for _, i := range rest {
				sum += qs[i].score(qs[i].metric, qs[i].Trace.ReorderWith(s, nil))
			}
			return sum / float64(max(1, len(rest)))
		}
		fit, _, _ := eval.CoordinateAscent(qs[0].Trace.Settings, eval.FusionParams(), objective, 3)
		for _, i := range groups[g] {
			out[i] = fit
		}
	}
	return out
}

// bm25Alone are settings under which the fusion is the bm25 lane's order alone.
func bm25Alone(s statement.Settings) statement.Settings {
	s.Weights = statement.Weights{}
	s.Weights[statement.BM25] = 1
	s.WRecency, s.WFrequency = 0, 0
	return s
}

// bySetAndFile groups the queries by data set and traces file: the keys sorted, and each
// key's query indexes in order.
func bySetAndFile(qs []orderQuery) ([][2]string, map[[2]string][]int) {
	groups := map[[2]string][]int{}
	var keys [][2]string
	for i, q := range qs {
		k := [2]string{q.set, q.file}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	return keys, groups
}
