package statement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Settings are the statement's tunables. Each is declared once, here, by its field and tags:
//
//	set:"name"      its name: the bind @name in sql/lanes/ and its key in a settings file
//	default:"v"     the default (DefaultSettings)
//	range:"[lo,hi]" the values allowed, ( ) for open ends, an empty bound for none
//	null:"0"        the value bound as NULL ("no limit")
//	bind:"-"        not a bind: applied with SET LOCAL (Session)
//
// Durations are written as Go durations ("168h") and bound as seconds. Weights are set per
// lane by name; their defaults are the lanes' (lanes.go). Every setting is a bind (or a SET
// LOCAL), so a changed value takes effect on the next call with no cache invalidation.
type Settings struct {
	RRFK    float64       `set:"rrf_k" default:"2" range:"(0,]"`              // RRF constant k in weight / (k + rank)
	Weights Weights       `set:"weights"`                                     // per-lane RRF weight
	K       int           `set:"k" default:"100" range:"[1,]"`                // rows returned
	Timeout time.Duration `set:"timeout" default:"10s" range:"[0,]" bind:"-"` // statement_timeout (0: the server's)

	VectorK           int     `set:"vector_k" default:"100" range:"[1,]"`               // vector lane depth
	VectorMaxDistance float64 `set:"vector_max_distance" default:"1" range:"[0,2]"`     // cosine distance floor: farther hits are dropped
	EfSearch          int     `set:"ef_search" default:"100" range:"[1,1000]" bind:"-"` // hnsw.ef_search (at least VectorK)
	VectorExactScale  float64 `set:"vector_exact_scale" default:"250" range:"[0,]"`     // exact search when visible^2 <= scale * all memories

	BM25K  int     `set:"bm25_k" default:"100" range:"[1,]"`  // BM25 lane depth
	BM25K1 float64 `set:"bm25_k1" default:"0.9" range:"[0,]"` // BM25 k1
	// ExpansionWeight scales the BM25 and context lanes' terms that come from the question's
	// expansion (Query.Expansion, package lexicon) against the question's own (weight 1);
	// 0 (the default) turns the expansion off.
	ExpansionWeight float64 `set:"expansion_weight" default:"0" range:"[0,1]"`
	BM25B           float64 `set:"bm25_b" default:"0.4" range:"[0,1]"`                // BM25 b
	BM25Postings    int     `set:"bm25_postings" default:"300" range:"[0,]" null:"0"` // postings read per query term and scope set (0: all)
	BM25Whole       int     `set:"bm25_whole" default:"10000" range:"[0,]"`           // a term in at most this many visible memories is read whole, not probed per candidate

	ContextK       int     `set:"context_k" default:"100" range:"[1,]"`        // context lane depth
	ContextWeight  float64 `set:"context_weight" default:"0.3" range:"[0,1]"`  // weight of a neighbour's words in a memory's context
	ContextHandoff float64 `set:"context_handoff" default:"0.8" range:"[0,2]"` // share of a question's score the answer after it scores at least
	ContextHits    int     `set:"context_hits" default:"3" range:"[0,]"`       // best candidates with a place whose needed neighbours come along
	ContextShort   int     `set:"context_short" default:"12" range:"[0,]"`     // a reply of at most this many words brings the turn before it
	ContextAnswer  int     `set:"context_answer" default:"80" range:"[0,]"`    // an answer of at most this many words comes along with its question

	MentionK         int     `set:"mention_k" default:"50" range:"[1,]"`                   // mention lane depth
	MentionEntitiesK int     `set:"mention_entities_k" default:"16" range:"[1,]"`          // entities matched by the fuzzy branch
	MentionFloor     float64 `set:"mention_floor" default:"0.7" range:"(0,1]"`             // trigram similarity floor for entity names
	MentionPostings  int     `set:"mention_postings" default:"1000" range:"[0,]" null:"0"` // newest memories read per named entity (0: all)

	TitleK           int     `set:"title_k" default:"20" range:"[1,]"`             // title lane depth
	TitleSourcesK    int     `set:"title_sources_k" default:"8" range:"[1,]"`      // sources matched by title
	TitleFloor       float64 `set:"title_floor" default:"0.6" range:"(0,1]"`       // trigram similarity floor for titles
	TitleExactWords  int     `set:"title_exact_words" default:"16" range:"[1,64]"` // longest query n-gram (in words) matched against title keys
	TitleDirectWords int     `set:"title_direct_words" default:"2" range:"[1,64]"` // fewest words of a title the query names exactly for its source to go first
	TitleFuzzyWords  int     `set:"title_fuzzy_words" default:"4" range:"[0,64]"`  // longest query n-gram matched by trigram similarity (at most TitleExactWords)

	GraphK          int     `set:"graph_k" default:"50" range:"[1,]"`              // graph lane depth
	GraphDamping    float64 `set:"graph_damping" default:"0.85" range:"[0,1)"`     // PageRank damping
	GraphIterations int     `set:"graph_iterations" default:"20" range:"[0,]"`     // power iterations
	GraphHops       int     `set:"graph_hops" default:"2" range:"[0,]"`            // walk radius around the seeds
	GraphFrontier   int     `set:"graph_frontier" default:"128" range:"[1,16000]"` // most entities in the walk (a pgvector vector holds a row of its matrix)
	GraphDegree     int     `set:"graph_degree" default:"16" range:"[1,]"`         // heaviest edges kept per entity
	GraphSeedHits   int     `set:"graph_seed_hits" default:"2" range:"[0,]"`       // best bm25 and vector hits whose entities seed the walk, besides those the query names
	GraphEntities   int     `set:"graph_entities" default:"20" range:"[1,]"`       // entities with the most mass that score memories
	GraphPool       int     `set:"graph_pool" default:"200" range:"[0,]"`          // best bm25 hits the lane may score (with the vector hits)
	GraphContextK   int     `set:"graph_context_k" default:"16" range:"[1,]"`      // relations of a candidate's graph context (Query.GraphContext)

	TemporalK      int     `set:"temporal_k" default:"50" range:"[1,]"`          // temporal lane depth
	TemporalScale  float64 `set:"temporal_scale" default:"86400" range:"(0,]"`   // seconds: score 1 / (1 + gap / scale)
	TemporalSlack  float64 `set:"temporal_slack" default:"2592000" range:"[0,]"` // seconds around the window that still count
	TemporalRefers int     `set:"temporal_refers" default:"50" range:"[0,]"`     // memories read per visible scope set by the time their text refers to (0: none)

	CutRatio float64 `set:"cut_ratio" default:"0" range:"[0,1]" bind:"-"` // drop a candidate under this share of the best fused score...
	CutRank  int     `set:"cut_rank" default:"10" range:"[0,]" bind:"-"`  // ...unless some lane ranks it this high

	WRecency        float64       `set:"w_recency" default:"0.002" range:"[0,]"`        // weight of the recency term
	RecencyHalfLife time.Duration `set:"recency_half_life" default:"168h" range:"(0,]"` // half-life of the recency term over last_accessed
	WFrequency      float64       `set:"w_frequency" default:"0.001" range:"[0,]"`      // weight of ln(1 + access_count)

	// On a Citus cluster: the most scope sets one text reads on a worker (docs/SCALING.md). A
	// caller of at most this many sets on one worker is read there by one text over the union
	// of their shards; of more, or of sets on several workers, in rounds, each worker's sets in
	// groups of this many. One a text measured 1.0x the single server for callers of two to
	// eight sets, the union 2.1-3.5x (BenchmarkCitusSets).
	SetsPerText int `set:"sets_per_text" default:"1" range:"[1,16]" bind:"-"`
}

// Weights are the lanes' RRF weights, indexed by lane; in JSON, an object keyed by lane name.
type Weights [NumLanes]float64

// MarshalJSON writes the weights by lane name.
func (w Weights) MarshalJSON() ([]byte, error) {
	m := make(map[string]float64, NumLanes)
	for l, v := range w {
		m[Lane(l).String()] = v
	}
	return json.Marshal(m)
}

// UnmarshalJSON sets the weights it names and keeps the others; an unknown lane is an error.
func (w *Weights) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for name, v := range m {
		l, err := ParseLane(name)
		if err != nil {
			return err
		}
		w[l] = v
	}
	return nil
}

// SettingError is a setting outside its range: Field names its Settings field ("TitleFloor",
// "Weights[2] (mention)"), Problem says what is wrong and what is allowed, under the
// setting's name in a settings file.
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

// tunable is one Settings field as its tags declare it.
type tunable struct {
	index          int
	field, name    string
	def            string
	lo, hi         float64
	loOpen, hiOpen bool
	rangeText      string
	null0, noBind  bool
}

var tunables = sync.OnceValue(func() []tunable {
	var out []tunable
	t := reflect.TypeFor[Settings]()
	for i := range t.NumField() {
		f := t.Field(i)
		tu := tunable{index: i, field: f.Name, name: f.Tag.Get("set"), def: f.Tag.Get("default"), lo: math.Inf(-1), hi: math.Inf(1),
			null0: f.Tag.Get("null") == "0", noBind: f.Tag.Get("bind") == "-"}
		if tu.name == "" {
			panic("statement: Settings." + f.Name + " has no set tag")
		}
		if r := f.Tag.Get("range"); r != "" {
			tu.rangeText = r
			tu.loOpen, tu.hiOpen = r[0] == '(', r[len(r)-1] == ')'
			lo, hi, _ := strings.Cut(r[1:len(r)-1], ",")
			if lo != "" {
				tu.lo = mustFloat(lo)
			}
			if hi != "" {
				tu.hi = mustFloat(hi)
			}
		}
		out = append(out, tu)
	}
	return out
})

func mustFloat(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic("statement: Settings tag: " + err.Error())
	}
	return v
}

// number is a tunable's value as a float64, durations in seconds.
func (tu tunable) number(s *Settings) float64 {
	v := reflect.ValueOf(s).Elem().Field(tu.index)
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		if d, ok := v.Interface().(time.Duration); ok {
			return d.Seconds()
		}
		return float64(v.Int())
	case reflect.Float64:
		return v.Float()
	}
	panic("statement: Settings." + reflect.TypeFor[Settings]().Field(tu.index).Name + ": unsupported type")
}

// bind is the tunable's bind value: an int, a float64 (durations in seconds), or nil.
func (tu tunable) bind(s *Settings) any {
	v := reflect.ValueOf(s).Elem().Field(tu.index)
	if _, ok := v.Interface().(time.Duration); ok {
		return tu.number(s)
	}
	if tu.null0 && v.Int() == 0 {
		return nil
	}
	return v.Interface()
}

// DefaultSettings returns the defaults the tags declare.
func DefaultSettings() Settings {
	var s Settings
	v := reflect.ValueOf(&s).Elem()
	for _, tu := range tunables() {
		if tu.def == "" {
			continue
		}
		f := v.Field(tu.index)
		if _, ok := f.Interface().(time.Duration); ok {
			d, err := time.ParseDuration(tu.def)
			if err != nil {
				panic("statement: Settings." + tu.name + " default: " + err.Error())
			}
			f.SetInt(int64(d))
			continue
		}
		switch f.Kind() {
		case reflect.Int:
			n, err := strconv.Atoi(tu.def)
			if err != nil {
				panic("statement: Settings." + tu.name + " default: " + err.Error())
			}
			f.SetInt(int64(n))
		case reflect.Float64:
			f.SetFloat(mustFloat(tu.def))
		}
	}
	for l, d := range lanes {
		s.Weights[l] = d.weight
	}
	return s
}

// Validate reports the first setting outside its range as a *SettingError. New, SetSettings
// and LoadSettings call it, so a bad setting fails before anything reaches the server; Run
// and Args take settings as valid and do not check them again on every call.
func (s Settings) Validate() error {
	for _, tu := range tunables() {
		if tu.rangeText == "" {
			continue
		}
		x := tu.number(&s)
		ok := !math.IsNaN(x) && (x > tu.lo || (!tu.loOpen && x == tu.lo)) && (x < tu.hi || (!tu.hiOpen && x == tu.hi))
		if !ok {
			return &SettingError{Field: tu.field, Problem: fmt.Sprintf("%s %v: want a value in %s", tu.name, reflect.ValueOf(s).Field(tu.index).Interface(), tu.rangeText)}
		}
	}
	for l, w := range s.Weights {
		if !(w >= 0) || math.IsInf(w, 1) {
			return &SettingError{Field: fmt.Sprintf("Weights[%d] (%s)", l, Lane(l)), Problem: fmt.Sprintf("weights.%s %v: want a finite value >= 0", Lane(l), w)}
		}
	}
	if s.Lanes() == 0 {
		return &SettingError{Field: "Weights", Problem: "every lane's weight is 0: want at least one above 0"}
	}
	if s.TitleFuzzyWords > s.TitleExactWords {
		return &SettingError{Field: "TitleFuzzyWords", Problem: fmt.Sprintf("title_fuzzy_words %d: want at most title_exact_words (%d)", s.TitleFuzzyWords, s.TitleExactWords)}
	}
	if s.Timeout > 0 && s.Timeout < time.Millisecond {
		return &SettingError{Field: "Timeout", Problem: fmt.Sprintf("%v: want 0 (the server's) or at least 1ms", s.Timeout)}
	}
	return nil
}

// binds returns every bind of the settings by name, the weights as w_<lane>.
func (s Settings) binds() map[string]any {
	out := map[string]any{}
	for _, tu := range tunables() {
		if !tu.noBind && tu.name != "weights" {
			out[tu.name] = tu.bind(&s)
		}
	}
	for l, w := range s.Weights {
		out["w_"+Lane(l).String()] = w
	}
	return out
}

// MarshalJSON writes the settings by name, durations as Go durations.
func (s Settings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	v := reflect.ValueOf(s)
	for i, tu := range tunables() {
		if i > 0 {
			b.WriteByte(',')
		}
		x := v.Field(tu.index).Interface()
		if d, ok := x.(time.Duration); ok {
			x = d.String()
		}
		val, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%q:%s", tu.name, val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON sets the settings the object names and keeps the others (unmarshal into
// DefaultSettings() for a file that names a few); an unknown name is an error.
func (s *Settings) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	v := reflect.ValueOf(s).Elem()
	byName := map[string]tunable{}
	names := make([]string, 0, len(tunables()))
	for _, tu := range tunables() {
		byName[tu.name] = tu
		names = append(names, tu.name)
	}
	for name, raw := range m {
		tu, ok := byName[name]
		if !ok {
			slices.Sort(names)
			return &SettingError{Field: name, Problem: "unknown setting (settings: " + strings.Join(names, ", ") + ")"}
		}
		f := v.Field(tu.index)
		if _, isDur := f.Interface().(time.Duration); isDur {
			var text string
			if err := json.Unmarshal(raw, &text); err != nil {
				return &SettingError{Field: name, Problem: `want a duration such as "10s"`}
			}
			d, err := time.ParseDuration(text)
			if err != nil {
				return &SettingError{Field: name, Problem: err.Error()}
			}
			f.SetInt(int64(d))
			continue
		}
		if err := json.Unmarshal(raw, f.Addr().Interface()); err != nil {
			return &SettingError{Field: name, Problem: err.Error()}
		}
	}
	return nil
}

// LoadSettings reads a settings file (JSON: an object of settings by name, e.g.
// {"rrf_k": 30, "weights": {"vector": 0.2}}) over the defaults and validates the result.
func LoadSettings(path string) (Settings, error) { return LoadSettingsOver(DefaultSettings(), path) }

// LoadSettingsOver reads a settings file over base (a profile's settings) and validates the
// result: what the file does not name keeps base's value.
func LoadSettingsOver(base Settings, path string) (Settings, error) {
	s := base
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("statement: settings file: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(&s); err != nil {
		return s, fmt.Errorf("statement: settings file %s: %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("statement: settings file %s: %w", path, err)
	}
	return s, nil
}
