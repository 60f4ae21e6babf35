package main

import (
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/statement"
)

// TestBalance: each key's queries weigh together what every other key's do, and the weights
// add up to the number of queries; without --balance every query weighs 1; a field a query
// lacks is a usage error.
func TestBalance(t *testing.T) {
	t.Parallel()
	q := func(set, file string, meta map[string]any) orderQuery {
		var o orderQuery
		o.set, o.file, o.Query = set, file, eval.Query{ID: set + file, Meta: meta}
		return o
	}
	qs := []orderQuery{
		q("locomo", "turns", map[string]any{"conv": "a"}), q("locomo", "turns", map[string]any{"conv": "a"}),
		q("locomo", "messages", map[string]any{"conv": "b"}), q("locomo", "messages", map[string]any{"conv": "b"}),
		q("lme", "lme", map[string]any{"conv": "c"}), q("scifact", "scifact", map[string]any{"conv": "d"}),
	}
	for _, c := range []struct {
		by   string
		want []float64
	}{
		{"", []float64{1, 1, 1, 1, 1, 1}},
		// three sets, 6/3 = 2 each: locomo's four queries 0.5 each.
		{"set", []float64{0.5, 0.5, 0.5, 0.5, 2, 2}},
		// four files, 6/4 = 1.5 each.
		{"file", []float64{0.75, 0.75, 0.75, 0.75, 1.5, 1.5}},
		{"conv", []float64{0.75, 0.75, 0.75, 0.75, 1.5, 1.5}},
	} {
		keyed := append([]orderQuery(nil), qs...)
		if err := setBalance(keyed, c.by); err != nil {
			t.Fatal(err)
		}
		got, sum := balanced(keyed), 0.0
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("--balance %q: query %d weighs %v, want %v", c.by, i, got[i], c.want[i])
			}
		}
		if math.Abs(sum-float64(len(qs))) > 1e-9 {
			t.Errorf("--balance %q: the weights add up to %v, want %d", c.by, sum, len(qs))
		}
	}
	if err := setBalance(append([]orderQuery(nil), qs...), "speaker"); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("--balance speaker (no query has it): %v, want a usage error", err)
	}
}

// TestSessionTable: the held-out report's session measures, on two questions worked out by
// hand: each turn stands for its source; a judged turn outside the trace is never found.
func TestSessionTable(t *testing.T) {
	t.Parallel()
	turn := func(id, session string) recall.TraceCandidate {
		var c recall.TraceCandidate
		c.ExternalID, c.Source, c.Position = id, &statement.Source{ExternalID: session}, 1
		return c
	}
	cands := []recall.TraceCandidate{turn("a1", "A"), turn("a2", "A"), turn("b1", "B"), turn("c1", "C"), turn("d1", "D"), turn("e1", "E"), turn("f1", "F")}
	qs := []orderQuery{
		{tracedQuery: tracedQuery{Qrels: eval.Qrels{"a2": 1, "f1": 1}, Trace: &recall.Trace{Candidates: cands}}},
		{tracedQuery: tracedQuery{Qrels: eval.Qrels{"b1": 1, "gone": 1}, Trace: &recall.Trace{Candidates: cands}}},
	}
	arms := map[string]func(int) []string{
		// A, B, C, D, E name five sessions before f1: question 0 has one of two sessions in
		// its first five, question 1 one of two (gone is never found).
		"bm25 alone": func(int) []string { return []string{"a1", "b1", "a2", "c1", "d1", "e1", "f1"} },
		// f1 comes second: question 0 has both sessions in its first five.
		"learned": func(int) []string { return []string{"a1", "f1", "b1", "c1", "d1", "e1", "a2"} },
	}
	var b strings.Builder
	writeSessionMeasures(&b, qs, []int{0, 1}, []string{"bm25 alone", "learned"}, arms)
	for _, want := range []string{
		"| bm25 alone | 0.0000 | 1.0000 | 0.5000 |", // all@5 0, 0; any@5 1, 1; all@10 1, 0
		"| learned | 0.5000 | 1.0000 | 0.5000 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("want a row starting %q in:\n%s", want, b.String())
		}
	}
	// With the sessions the traces file gives, "gone" (not a candidate) is a turn of session
	// B, found with b1: question 1 has its one session in the first five in both arms.
	qs[1].Sessions = eval.Sessions{"gone": "B", "b1": "B", "a1": "A", "a2": "A", "c1": "C", "d1": "D", "e1": "E", "f1": "F"}
	b.Reset()
	writeSessionMeasures(&b, qs, []int{0, 1}, []string{"bm25 alone", "learned"}, arms)
	for _, want := range []string{
		"| bm25 alone | 0.5000 | 1.0000 | 1.0000 |", // all@5 0, 1; any@5 1, 1; all@10 1, 1
		"| learned | 1.0000 | 1.0000 | 1.0000 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("with the file's sessions, want a row starting %q in:\n%s", want, b.String())
		}
	}
	qs[1].Sessions = nil
	// Documents (no places in their sources) have no sessions: no table.
	docs := slices.Clone(cands)
	for i := range docs {
		docs[i].Position = 0
	}
	b.Reset()
	writeSessionMeasures(&b, []orderQuery{{tracedQuery: tracedQuery{Qrels: eval.Qrels{"a1": 1}, Trace: &recall.Trace{Candidates: docs}}}}, []int{0}, []string{"bm25 alone"}, arms)
	if b.Len() != 0 {
		t.Errorf("a session table for documents:\n%s", b.String())
	}
	// The messages form's judgments are its parents': no session table.
	qs[0].Parent = map[string]string{"a1": "x"}
	b.Reset()
	writeSessionMeasures(&b, qs, []int{0, 1}, []string{"bm25 alone"}, arms)
	if b.Len() != 0 {
		t.Errorf("a session table for the messages form:\n%s", b.String())
	}
}

// TestJudgedSessions: a traces line gives the session of each candidate and of every turn of
// a judged turn's session (the judged turn itself too, when it is not a candidate), and
// nothing of a session only an unjudged or irrelevant turn is in; no sessions, no map.
func TestJudgedSessions(t *testing.T) {
	t.Parallel()
	sessions := eval.Sessions{"a1": "c\x00A", "a2": "c\x00A", "b1": "c\x00B", "b2": "c\x00B", "z1": "c\x00Z", "y1": "c\x00Y"}
	turns := map[string][]string{}
	for id, s := range sessions {
		turns[s] = append(turns[s], id)
	}
	var c recall.TraceCandidate
	c.ExternalID = "z1"
	tr := &recall.Trace{Candidates: []recall.TraceCandidate{c}}
	got := judgedSessions(sessions, turns, eval.Qrels{"a2": 1, "y1": 0}, tr)
	want := eval.Sessions{"z1": "c\x00Z", "a1": "c\x00A", "a2": "c\x00A"}
	if !maps.Equal(got, want) {
		t.Errorf("judgedSessions: %q, want %q", got, want)
	}
	if got := judgedSessions(eval.Sessions{}, nil, eval.Qrels{"a2": 1}, tr); got != nil {
		t.Errorf("without sessions: %q, want nil", got)
	}
}
