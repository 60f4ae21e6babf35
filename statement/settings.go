package statement

import "fmt"

// SettingError is a setting outside its range: Field names it ("TitleFloor", "Weights[2]"),
// Problem says what is wrong and what is allowed.
type SettingError struct {
	Field   string
	Problem string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("statement: setting %s: %s", e.Field, e.Problem)
}

// MaxGraphFrontier is the largest GraphFrontier: the graph lane holds a row of the walk's
// transition matrix in a pgvector vector, whose dimension is at most 16,000.
const MaxGraphFrontier = 16000

// Validate reports the first setting outside its range as a *SettingError. Run and Args call
// it, so a bad setting fails before anything reaches the server.
func (s Settings) Validate() error {
	bad := func(field string, v any, want string) error {
		return &SettingError{Field: field, Problem: fmt.Sprintf("%v: want %s", v, want)}
	}
	if !(s.RRFK > 0) {
		return bad("RRFK", s.RRFK, "a value > 0")
	}
	for l, w := range s.Weights {
		if !(w >= 0) {
			return bad(fmt.Sprintf("Weights[%d] (%s)", l, Lane(l)), w, "a value >= 0")
		}
	}
	for _, f := range []struct {
		name string
		v    float64
		ok   bool
		want string
	}{
		{"MentionFloor", s.MentionFloor, s.MentionFloor > 0 && s.MentionFloor <= 1, "a value in (0, 1]"},
		{"TitleFloor", s.TitleFloor, s.TitleFloor > 0 && s.TitleFloor <= 1, "a value in (0, 1]"},
		{"BM25K1", s.BM25K1, s.BM25K1 >= 0, "a value >= 0"},
		{"BM25B", s.BM25B, s.BM25B >= 0 && s.BM25B <= 1, "a value in [0, 1]"},
		{"TemporalScale", s.TemporalScale, s.TemporalScale > 0, "seconds > 0"},
		{"TemporalSlack", s.TemporalSlack, s.TemporalSlack >= 0, "seconds >= 0"},
		{"VectorExactScale", s.VectorExactScale, s.VectorExactScale >= 0, "a value >= 0"},
	} {
		if !f.ok { // also false for NaN
			return bad(f.name, f.v, f.want)
		}
	}
	if !(s.GraphDamping >= 0 && s.GraphDamping < 1) {
		return bad("GraphDamping", s.GraphDamping, "a value in [0, 1)")
	}
	if s.GraphFrontier > MaxGraphFrontier {
		return bad("GraphFrontier", s.GraphFrontier, fmt.Sprintf("at most %d (pgvector's vector dimension limit: the walk is iterated as vectors)", MaxGraphFrontier))
	}
	if s.TitleExactWords < 1 || s.TitleExactWords > 64 {
		return bad("TitleExactWords", s.TitleExactWords, "1 to 64")
	}
	if s.TitleFuzzyWords < 0 || s.TitleFuzzyWords > s.TitleExactWords {
		return bad("TitleFuzzyWords", s.TitleFuzzyWords, fmt.Sprintf("0 to TitleExactWords (%d)", s.TitleExactWords))
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"K", s.K}, {"VectorK", s.VectorK}, {"BM25K", s.BM25K}, {"MentionK", s.MentionK},
		{"MentionEntitiesK", s.MentionEntitiesK}, {"TitleK", s.TitleK}, {"TitleSourcesK", s.TitleSourcesK},
		{"GraphK", s.GraphK}, {"GraphFrontier", s.GraphFrontier}, {"GraphDegree", s.GraphDegree},
		{"GraphEntities", s.GraphEntities}, {"TemporalK", s.TemporalK},
	} {
		if f.v < 1 {
			return bad(f.name, f.v, "at least 1")
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"GraphIterations", s.GraphIterations}, {"GraphHops", s.GraphHops}, {"GraphSeedHits", s.GraphSeedHits}, {"BM25Postings", s.BM25Postings}, {"BM25Whole", s.BM25Whole}, {"GraphMentions", s.GraphMentions}, {"MentionPostings", s.MentionPostings}} {
		if f.v < 0 {
			return bad(f.name, f.v, "at least 0")
		}
	}
	if s.RecencyHalfLife <= 0 {
		return bad("RecencyHalfLife", s.RecencyHalfLife, "a duration > 0")
	}
	return nil
}
