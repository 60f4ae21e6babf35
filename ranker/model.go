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

// FormatVersion is the model file format this code reads and writes.
const FormatVersion = 1

// Model is a linear order: a candidate's score is the sum over the features of weight times
// value. Its file is JSON: the format version, a name, what it was fitted on, and the weights
// by feature name (a feature the file does not name weighs 0; a name this code does not know
// is an error, so a model never silently loses a feature).
type Model struct {
	Version int                `json:"version"`
	Name    string             `json:"name"`
	Fitted  string             `json:"fitted,omitempty"` // what it was fitted on, and how
	Weights map[string]float64 `json:"weights"`

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
	if f.Version != FormatVersion {
		return fmt.Errorf("%w: format version %d, this code reads %d", ErrModel, f.Version, FormatVersion)
	}
	v, err := New(f.Name, f.Fitted, f.Weights)
	if err != nil {
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

// Marshal writes the model file.
func (m *Model) Marshal() ([]byte, error) {
	type file Model // without UnmarshalJSON's checks, for the encoder
	b, err := json.MarshalIndent((*file)(m), "", "  ")
	return append(b, '\n'), err
}

// Score is the model's score of a candidate's features.
func (m *Model) Score(x []float64) float64 {
	var s float64
	for i, w := range m.w {
		s += w * x[i]
	}
	return s
}

// Contributions are weight times value per feature: what each adds to Score.
func (m *Model) Contributions(x []float64) []float64 {
	out := make([]float64, NumFeatures)
	for i, w := range m.w {
		out[i] = w * x[i]
	}
	return out
}

// Order returns the indexes of xs by score, highest first; equal scores keep their order.
func (m *Model) Order(xs [][]float64) []int {
	scores := make([]float64, len(xs))
	for i, x := range xs {
		scores[i] = m.Score(x)
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx
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

// Names lists the features a model weighs (non-zero), in Features order.
func (m *Model) Names() []string {
	var out []string
	for _, f := range Features {
		if m.Weights[f] != 0 {
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
