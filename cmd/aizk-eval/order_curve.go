package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/ranker"
)

// writeCurve writes how the learned order held out by field grows with what it is fitted on:
// for each value of field, the order fitted on that value's queries alone (and on every query
// without the field, such as another set's) scored on each value, then the order fitted on all
// the other values (heldOutOrder) scored on each, and a perfect order of the same heads (what
// any order of them could reach). The diagonal is in sample; every other cell is held out. The
// last line compares, over every held-out query, one value against all the others: how much
// a value more to fit on is worth.
func writeCurve(w io.Writer, qs []orderQuery, field, name string, o ranker.FitOptions, bags int) error {
	_, groups := groupsBy(qs, field)
	names := curveValues(qs, field)
	score := func(m *ranker.Model, v string) []float64 {
		var out []float64
		for _, i := range groups[v] {
			q := qs[i]
			out = append(out, q.score(q.metric, q.Trace.ReorderWith(q.Trace.Settings, m)))
		}
		return out
	}
	fmt.Fprintf(w, "## Learning curve by %s (fitted on one value, and on every query without the field)\n\n| fitted on |", field)
	for _, v := range names {
		fmt.Fprintf(w, " %s (%d) |", v, len(groups[v]))
	}
	fmt.Fprintf(w, "\n| --- |%s\n", strings.Repeat(" --- |", len(names)))
	var one, rest []float64 // every held-out query's metric: fitted on one other value; on all the others
	for _, f := range names {
		var fit []orderQuery
		for i, q := range qs {
			if v := groupOf(q, field); v == f || v == "<nil>" {
				fit = append(fit, qs[i])
			}
		}
		m, err := fitOrder(fit, name, "", o, bags)
		if err != nil {
			return fmt.Errorf("the fit on %s=%q: %w", field, f, err)
		}
		fmt.Fprintf(w, "| %s |", f)
		for _, v := range names {
			s := score(m, v)
			mark := ""
			if v == f {
				mark = " (in sample)"
			} else {
				one = append(one, s...)
			}
			fmt.Fprintf(w, " %.4f%s |", mean(s), mark)
		}
		fmt.Fprintln(w)
	}
	held, err := heldOutOrder(qs, field, name, o, bags)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| every other value |")
	for _, v := range names {
		m := held[fmt.Sprint(groups[v][0])]
		s := score(m, v)
		for range len(names) - 1 { // weighted as the fits on one value are: once per other value
			rest = append(rest, s...)
		}
		fmt.Fprintf(w, " %.4f |", mean(s))
	}
	fmt.Fprintf(w, "\n| a perfect order of the same heads |")
	var perfect []float64
	for _, v := range names {
		var s []float64
		for _, i := range groups[v] {
			s = append(s, qs[i].score(qs[i].metric, judgedFirst(qs[i])))
		}
		perfect = append(perfect, s...)
		fmt.Fprintf(w, " %.4f |", mean(s))
	}
	fmt.Fprintf(w, "\n\nHeld out, every value's queries once per other value: fitted on one value %.4f, on the other %d together %.4f (%+.4f); a perfect order of the heads %.4f.\n\n",
		mean(one), len(names)-1, mean(rest), mean(rest)-mean(one), mean(perfect))
	return nil
}

// judgedFirst is q's head with its judged candidates first: the best any order of it can do.
func judgedFirst(q orderQuery) []string {
	var out, rest []string
	for i, id := range q.ids {
		if q.rel[i] {
			out = append(out, id)
		} else {
			rest = append(rest, id)
		}
	}
	return append(out, rest...)
}

// curveValues are field's values among qs, sorted, without "<nil>" (the queries without it).
func curveValues(qs []orderQuery, field string) []string {
	names, _ := groupsBy(qs, field)
	return slices.DeleteFunc(names, func(v string) bool { return v == "<nil>" })
}

// idField groups by the query's own id: "--folds-by id/5" deals the queries themselves into
// five folds (a set whose queries share no field, as SciFact's).
const idField = "id"

// groupOf is q's value of field as groupsBy names it (the query's set for "set", its id for
// "id", else its metadata field).
func groupOf(q orderQuery, field string) string {
	switch field {
	case eval.SetField:
		return q.set
	case idField:
		return q.Query.ID
	}
	return fmt.Sprint(q.Query.Meta[field])
}
