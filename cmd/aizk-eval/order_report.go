package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// writeOrderTable prints, per set, the mean metric of the fused order (the traces' own
// settings), the fitted fusion when given, and the learned order: models by query index
// (the key "learned" for every query).
func writeOrderTable(w io.Writer, title string, qs []orderQuery, models map[string]*ranker.Model, fitted map[int]statement.Settings) {
	fmt.Fprintf(w, "## %s\n\n| set | traces | queries | metric | fused | ", title)
	if fitted != nil {
		fmt.Fprint(w, "fitted fusion | ")
	}
	fmt.Fprint(w, "learned order | learned - fused |\n| --- | --- | --- | --- | --- | ")
	if fitted != nil {
		fmt.Fprint(w, "--- | ")
	}
	fmt.Fprint(w, "--- | --- |\n")
	keys, groups := bySetAndFile(qs)
	for _, key := range keys {
		var fused, fit, learned []float64
		for _, i := range groups[key] {
			q := qs[i]
			s := q.Trace.Settings
			fused = append(fused, q.score(q.metric, q.Trace.ReorderWith(s, nil)))
			if fitted != nil {
				fit = append(fit, q.score(q.metric, q.Trace.ReorderWith(fitted[i], nil)))
			}
			m := models["learned"]
			if m == nil {
				m = models[fmt.Sprint(i)]
			}
			learned = append(learned, q.score(q.metric, q.Trace.ReorderWith(s, m)))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %.4f | ", key[0], key[1], len(groups[key]), qs[groups[key][0]].metric.Name, mean(fused))
		if fitted != nil {
			fmt.Fprintf(w, "%.4f | ", mean(fit))
		}
		p := eval.PairedRandomization(learned, fused, eval.Trials, 1)
		fmt.Fprintf(w, "%.4f | %+.4f (p %.4f) |\n", mean(learned), mean(learned)-mean(fused), p)
	}
	fmt.Fprintln(w)
}

// setCounts says how many queries each set has.
func setCounts(qs []orderQuery) string {
	names, groups := groupsBy(qs, eval.SetField)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, len(groups[n]))
	}
	return strings.Join(parts, ", ")
}

// writeOrderDetail prints, per set and traces file, every metric of each arm, then the
// headline metric per value of group with the learned order against the bm25 lane alone.
// arms are ranked ids by query index, in the order to print.
func writeOrderDetail(w io.Writer, title string, qs []orderQuery, names []string, arms map[string]func(i int) []string, group string) {
	metrics := []string{"ndcg@10", "recall@5", "recall@10", "recall@25", "recall@50", "mrr@10"}
	tested := []string{"ndcg@10", "mrr@10", "recall@10"} // each against bm25 alone
	fmt.Fprintf(w, "## %s\n\n", title)
	keys, groups := bySetAndFile(qs)
	for _, key := range keys {
		idx := groups[key]
		headline := qs[idx[0]].metric.Name
		fmt.Fprintf(w, "### %s (%s, %d queries)\n\n| arm | %s | p (%s, against bm25 alone) | p (%s) |\n|%s --- | --- |\n", key[0], key[1], len(idx),
			strings.Join(metrics, " | "), headline, strings.Join(tested, " / "), strings.Repeat(" --- |", len(metrics)+1))
		per := map[string]map[string][]float64{} // arm -> metric -> per query
		for _, a := range names {
			per[a] = map[string][]float64{}
			scored := metrics
			if !slices.Contains(scored, headline) {
				scored = append(slices.Clone(metrics), headline)
			}
			for _, i := range idx {
				ranked := arms[a](i)
				for _, mn := range scored {
					per[a][mn] = append(per[a][mn], qs[i].score(*eval.MetricByName(mn), ranked))
				}
			}
		}
		for _, a := range names {
			fmt.Fprintf(w, "| %s |", a)
			for _, mn := range metrics {
				fmt.Fprintf(w, " %.4f |", mean(per[a][mn]))
			}
			if a == "bm25 alone" {
				fmt.Fprint(w, " | |\n")
				continue
			}
			ps := make([]string, len(tested))
			for j, mn := range tested {
				ps[j] = fmt.Sprintf("%.4f", eval.PairedRandomization(per[a][mn], per["bm25 alone"][mn], eval.Trials, 1))
			}
			fmt.Fprintf(w, " %.4f | %s |\n", eval.PairedRandomization(per[a][headline], per["bm25 alone"][headline], eval.Trials, 1), strings.Join(ps, " / "))
		}
		writeSessionMeasures(w, qs, idx, names, arms)
		if group == "" {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintf(w, "\n| %s | queries | bm25 alone | %s | difference | p |\n| --- | --- | --- | --- | --- | --- |\n", group, names[len(names)-1])
		byGroup := map[string][]int{}
		for k, i := range idx {
			g := fmt.Sprint(qs[i].Query.Meta[group])
			byGroup[g] = append(byGroup[g], k)
		}
		gs := make([]string, 0, len(byGroup))
		for g := range byGroup {
			gs = append(gs, g)
		}
		slices.Sort(gs)
		last := names[len(names)-1]
		for _, g := range gs {
			var a, b []float64
			for _, k := range byGroup[g] {
				a, b = append(a, per["bm25 alone"][headline][k]), append(b, per[last][headline][k])
			}
			fmt.Fprintf(w, "| %s | %d | %.4f | %.4f | %+.4f | %.4f |\n", g, len(a), mean(a), mean(b), mean(b)-mean(a), eval.PairedRandomization(b, a, eval.Trials, 1))
		}
		fmt.Fprintln(w)
	}
}

// sessionMeasures are LongMemEval's session measures (eval.Sessions) the order reports, the
// first tested against bm25 alone.
var sessionMeasures = []string{"session_recall_all@5", "session_recall_any@5", "session_recall_all@10", "session_ndcg_any@10"}

// writeSessionMeasures prints LongMemEval's session measures of each arm over the queries
// idx, when their candidates are turns of sources (a conversation's sessions) and are judged
// themselves (not the messages form's parents). A turn's session is the one the traces file
// gives (tracedQuery.Sessions), so the figures are the engine's; in a file written before it
// gave them, a turn's session is its source, as the trace holds it, and a judged turn the
// trace does not hold counts as a session of its own, never found: a lower bound.
func writeSessionMeasures(w io.Writer, qs []orderQuery, idx []int, names []string, arms map[string]func(i int) []string) {
	sessions := make([]eval.Sessions, len(idx))
	for k, i := range idx {
		if len(qs[i].Parent) > 0 {
			return
		}
		sessions[k] = qs[i].Sessions
		if len(sessions[k]) > 0 {
			continue
		}
		sessions[k] = eval.Sessions{}
		for _, c := range qs[i].Trace.Candidates {
			if c.Source != nil && c.Position > 0 {
				sessions[k][c.ExternalID] = c.Source.ExternalID
			}
		}
		if len(sessions[k]) == 0 {
			return
		}
	}
	fmt.Fprintf(w, "\n| arm (sessions: LongMemEval's measures) | %s | p (%s, against bm25 alone) |\n|%s\n",
		strings.Join(sessionMeasures, " | "), sessionMeasures[0], strings.Repeat(" --- |", len(sessionMeasures)+2))
	per := map[string]map[string][]float64{}
	for _, a := range names {
		per[a] = map[string][]float64{}
		for k, i := range idx {
			got := sessions[k].Score(arms[a](i), qs[i].Qrels)
			for _, mn := range sessionMeasures {
				per[a][mn] = append(per[a][mn], got[mn])
			}
		}
		fmt.Fprintf(w, "| %s |", a)
		for _, mn := range sessionMeasures {
			fmt.Fprintf(w, " %.4f |", mean(per[a][mn]))
		}
		if a == "bm25 alone" {
			fmt.Fprint(w, " |\n")
			continue
		}
		fmt.Fprintf(w, " %.4f |\n", eval.PairedRandomization(per[a][sessionMeasures[0]], per["bm25 alone"][sessionMeasures[0]], eval.Trials, 1))
	}
}
