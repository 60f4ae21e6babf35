package main

import (
	"errors"
	"math"
	"testing"

	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
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
