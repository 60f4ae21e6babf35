package statement_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall/statement"
)

func TestSettingsValidate(t *testing.T) {
	if err := statement.DefaultSettings().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	cases := []struct {
		field string
		edit  func(*statement.Settings)
	}{
		{"RRFK", func(s *statement.Settings) { s.RRFK = 0 }},
		{"Weights[2] (mention)", func(s *statement.Settings) { s.Weights[2] = -1 }},
		{"MentionFloor", func(s *statement.Settings) { s.MentionFloor = 0 }},
		{"TitleFloor", func(s *statement.Settings) { s.TitleFloor = 1.5 }},
		{"GraphDamping", func(s *statement.Settings) { s.GraphDamping = 1 }},
		{"TitleExactWords", func(s *statement.Settings) { s.TitleExactWords = 0 }},
		{"TitleFuzzyWords", func(s *statement.Settings) { s.TitleFuzzyWords = s.TitleExactWords + 1 }},
		{"K", func(s *statement.Settings) { s.K = 0 }},
		{"GraphFrontier", func(s *statement.Settings) { s.GraphFrontier = statement.MaxGraphFrontier + 1 }},
		{"GraphIterations", func(s *statement.Settings) { s.GraphIterations = -1 }},
		{"VectorExactScale", func(s *statement.Settings) { s.VectorExactScale = -1 }},
		{"RecencyHalfLife", func(s *statement.Settings) { s.RecencyHalfLife = 0 }},
		{"BM25B", func(s *statement.Settings) { s.BM25B = 1.5 }},
		{"TemporalSlack", func(s *statement.Settings) { s.TemporalSlack = -1 }},
		{"BM25Whole", func(s *statement.Settings) { s.BM25Whole = -1 }},
	}
	for _, c := range cases {
		s := statement.DefaultSettings()
		c.edit(&s)
		err := s.Validate()
		var se *statement.SettingError
		if !errors.As(err, &se) || se.Field != c.field {
			t.Errorf("%s: got %v, want a *SettingError for the field", c.field, err)
			continue
		}
		if !strings.Contains(err.Error(), "want") {
			t.Errorf("%s: %q does not say what is allowed", c.field, err)
		}
	}
}

// TestFiltersValidate: a filter the statement cannot apply is a *FilterError naming the
// field: an unknown tags mode, an empty range, a metadata number JSON cannot hold (named by
// its path), not a driver error from encoding the bind.
func TestFiltersValidate(t *testing.T) {
	t.Parallel()
	from := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		f     statement.Filters
		field string
	}{
		{statement.Filters{TagsMode: "most"}, "tags_mode"},
		{statement.Filters{From: from, To: from}, "to"},
		{statement.Filters{Metadata: map[string]any{"score": math.NaN()}}, "metadata.score"},
		{statement.Filters{Metadata: map[string]any{"a": []any{1.0, map[string]any{"b": math.Inf(1)}}}}, "metadata.a[1].b"},
		{statement.Filters{Metadata: map[string]any{"c": make(chan int)}}, "metadata"},
	} {
		var fe *statement.FilterError
		if err := c.f.Validate(); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%+v: %v, want a *FilterError for %s", c.f, err, c.field)
		}
	}
	if err := (statement.Filters{Metadata: map[string]any{"team": "x", "n": 2.5}}).Validate(); err != nil {
		t.Errorf("a plain metadata filter: %v", err)
	}
}

// TestSettingsRRF: a lane's fusion term is its weight over rrf_k plus the rank, 0 for a lane
// that did not find the candidate; Fuse sums exactly these.
func TestSettingsRRF(t *testing.T) {
	t.Parallel()
	s := statement.DefaultSettings()
	s.RRFK = 2
	w := 0.7
	s.Weights[statement.BM25] = w
	if got := s.RRF(statement.BM25, 3); got != w/5 {
		t.Fatalf("bm25 at rank 3: %v, want 0.7 / 5", got)
	}
	if got := s.RRF(statement.Vector, 0); got != 0 {
		t.Fatalf("not found: %v, want 0", got)
	}
	var c statement.Candidate
	c.Lanes[statement.BM25], c.Lanes[statement.Context] = statement.LaneHit{Rank: 3}, statement.LaneHit{Rank: 1}
	if got := statement.Fuse([]statement.Candidate{c}, s, time.Time{})[0].RRF; got != s.RRF(statement.BM25, 3)+s.RRF(statement.Context, 1) {
		t.Fatalf("Fuse's RRF %v, want the sum of the lanes' terms", got)
	}
}

// TestSettingsLanes: a lane of weight 0 is not run (Lanes, Narrow) unless it is all a plan
// asks for; the defaults leave the graph lane out; weights all 0 are refused.
func TestSettingsLanes(t *testing.T) {
	s := statement.DefaultSettings()
	if got := s.Narrow(statement.Maximal); got != statement.Without(statement.Graph) {
		t.Fatalf("defaults run %s, want -graph", got)
	}
	if got := s.Narrow(statement.Only(statement.Graph)); got != statement.Only(statement.Graph) {
		t.Fatalf("graph alone runs %s", got)
	}
	if got := s.Narrow(statement.Only(statement.Graph) | statement.Only(statement.BM25)); got != statement.Only(statement.BM25) {
		t.Fatalf("graph+bm25 runs %s, want bm25", got)
	}
	s.Weights[statement.Graph], s.Weights[statement.Title] = 0.05, 0
	if got := s.Narrow(statement.Maximal); got != statement.Without(statement.Title) {
		t.Fatalf("graph weighted, title not: runs %s, want -title", got)
	}
	s.Weights = statement.Weights{}
	var se *statement.SettingError
	if err := s.Validate(); !errors.As(err, &se) || se.Field != "Weights" {
		t.Fatalf("all weights 0: %v, want a SettingError on Weights", err)
	}
}
