package statement_test

import (
	"errors"
	"strings"
	"testing"

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
