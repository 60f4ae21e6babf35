package ranker

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"sync"
)

// FormatVersion is the model file format this code writes. It reads 1 (weights alone) and 2
// (weights and trees).
const FormatVersion = 2

// Model is a learned order: a candidate's score is the sum over the features of weight times
// value, plus the values of its leaves in the boosted trees (none in a linear model). Its file
// is JSON: the format version, a name, what it was fitted on, the weights by feature name (a
// feature the file does not name weighs 0; a name this code does not know is an error, so a
// model never silently loses a feature) and the trees.
type Model struct {
	Version int                `json:"version"`
	Name    string             `json:"name"`
	Fitted  string             `json:"fitted,omitempty"` // what it was fitted on, and how
	Weights map[string]float64 `json:"weights"`
	Trees   []Tree             `json:"trees,omitempty"`

	w []float64 // Weights in Features order
}

// ErrModel is wrapped by every error of a model file.
var ErrModel = errors.New("ranker: model")

// Parse reads a model file's bytes.
func Parse(b []byte) (*Model, error) {
	var m Model
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

// UnmarshalJSON reads a model file's JSON and checks it (New's rules, and the format
// version).
func (m *Model) UnmarshalJSON(b []byte) error {
	type file Model
	var f file
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return fmt.Errorf("%w: %v", ErrModel, err)
	}
	if f.Version < 1 || f.Version > FormatVersion || f.Version == 1 && len(f.Trees) > 0 {
		return fmt.Errorf("%w: format version %d with %d trees: this code reads 1 (no trees) to %d", ErrModel, f.Version, len(f.Trees), FormatVersion)
	}
	v, err := New(f.Name, f.Fitted, f.Weights)
	if err != nil {
		return err
	}
	if v, err = v.WithTrees(f.Trees); err != nil {
		return err
	}
	*m = *v
	return nil
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrModel, err)
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// New returns a model of the weights by feature name; every weight must be finite and name a
// feature.
func New(name, fitted string, weights map[string]float64) (*Model, error) {
	m := &Model{Version: FormatVersion, Name: name, Fitted: fitted, Weights: map[string]float64{}, w: make([]float64, NumFeatures)}
	for f, v := range weights {
		i, ok := index[f]
		if !ok {
			return nil, fmt.Errorf("%w: unknown feature %q (features: %v)", ErrModel, f, Features)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: weight of %s is %v: want a finite number", ErrModel, f, v)
		}
		m.w[i], m.Weights[f] = v, v
	}
	return m, nil
}

// WithTrees returns the model with trees added to its score; each is checked (known
// features, children inside the tree, finite numbers).
func (m *Model) WithTrees(trees []Tree) (*Model, error) {
	out := *m
	out.Trees = nil
	for i, t := range trees {
		t.Nodes = slices.Clone(t.Nodes)
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("tree %d: %w", i, err)
		}
		out.Trees = append(out.Trees, t)
	}
	return &out, nil
}

// Marshal writes the model file: indented, with each tree on a line of its own.
func (m *Model) Marshal() ([]byte, error) {
	type file Model // without UnmarshalJSON's checks, for the encoder
	head := *m
	head.Trees = nil
	b, err := json.MarshalIndent((*file)(&head), "", "  ")
	if err != nil || len(m.Trees) == 0 {
		return append(b, '\n'), err
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-2]) // up to the weights' closing brace, without the object's
	out.WriteString(",\n  \"trees\": [")
	for i, t := range m.Trees {
		tb, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n    ")
		out.Write(tb)
	}
	out.WriteString("\n  ]\n}\n")
	return out.Bytes(), nil
}

// Score is the model's score of a candidate's features.
func (m *Model) Score(x []float64) float64 {
	var s float64
	for i, w := range m.w {
		s += w * x[i]
	}
	k := kindOf(x)
	for i := range m.Trees {
		if m.Trees[i].scores(k) {
			s += m.Trees[i].eval(x, nil)
		}
	}
	return s
}

// Contributions are what each feature adds to Score: weight times value, plus, in each tree,
// how much the splits on it moved the value along the candidate's path. They sum to Score less
// the root values of the trees that score it, which every candidate of its kind gets alike.
func (m *Model) Contributions(x []float64) []float64 {
	out := make([]float64, NumFeatures)
	for i, w := range m.w {
		out[i] = w * x[i]
	}
	k := kindOf(x)
	for i := range m.Trees {
		if m.Trees[i].scores(k) {
			m.Trees[i].eval(x, out)
		}
	}
	return out
}

// Order returns the indexes of xs by score, highest first; equal scores keep their order.
func (m *Model) Order(xs [][]float64) []int {
	idx, _ := m.Ranked(xs)
	return idx
}

// Ranked is Order with the scores it ordered by (scores[i] is xs[i]'s), each computed once.
func (m *Model) Ranked(xs [][]float64) (idx []int, scores []float64) {
	scores = make([]float64, len(xs))
	for i, x := range xs {
		scores[i] = m.Score(x)
	}
	idx = make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx, scores
}

//go:embed models/default.json
var defaultModel []byte

// DefaultModel is the order the engine applies with the built-in embedder's profile: the model
// file models/default.json, fitted on the development data (eval/results/ says how).
var DefaultModel = sync.OnceValue(func() *Model {
	m, err := Parse(defaultModel)
	if err != nil {
		panic("ranker: the embedded model: " + err.Error()) // a test parses it
	}
	return m
})

// Names lists the features a model weighs (non-zero) or splits on, in Features order.
func (m *Model) Names() []string {
	var out []string
	split := map[string]bool{}
	for _, t := range m.Trees {
		for _, n := range t.Nodes {
			split[n.Feature] = true
		}
	}
	for _, f := range Features {
		if m.Weights[f] != 0 || split[f] {
			out = append(out, f)
		}
	}
	return slices.Clip(out)
}

// Off is the order that keeps the statement's fused order: a model that weighs nothing.
func Off() *Model {
	m, _ := New("off", "", nil)
	return m
}
