// Package embed turns text into vectors for the vector lane. An Embedder embeds a batch of
// texts as queries or as documents; every provider returns unit-length vectors of Dim()
// floats, one per input text, in input order.
//
// Providers: Hashing (built in: no model file, no network; the default), HTTP (an
// OpenAI-compatible /v1/embeddings server: Ollama, TEI, vLLM, hosted APIs).
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// Mode says what the texts are: some models embed questions and passages differently.
type Mode int

// Modes.
const (
	Document Mode = iota
	Query
)

func (m Mode) String() string {
	if m == Query {
		return "query"
	}
	return "document"
}

// Embedder embeds texts. Implementations are safe for concurrent use.
type Embedder interface {
	// Embed returns one unit vector per text, in order. A bad text fails the whole batch
	// with an *InputError naming it.
	Embed(ctx context.Context, texts []string, mode Mode) ([][]float32, error)
	// Dim is the length of every vector.
	Dim() int
	// Name identifies the model and its settings; vectors of different names do not mix.
	Name() string
}

// Truncation is a text an embedder cut to its model's length: which one, its length in the
// model's tokens before cutting, and the tokens kept.
type Truncation struct {
	Index  int
	Tokens int
	Kept   int
}

// Reporter is implemented by embedders that cut texts longer than their model takes; the
// engine turns a cut query into a warning.
type Reporter interface {
	EmbedReport(ctx context.Context, texts []string, mode Mode) ([][]float32, []Truncation, error)
}

// Report embeds texts with e, and says what it cut when e is a Reporter (nil otherwise).
func Report(ctx context.Context, e Embedder, texts []string, mode Mode) ([][]float32, []Truncation, error) {
	if r, ok := e.(Reporter); ok {
		return r.EmbedReport(ctx, texts, mode)
	}
	vs, err := e.Embed(ctx, texts, mode)
	return vs, nil, err
}

// ErrEmptyText is the problem of a text with nothing to embed.
var ErrEmptyText = errors.New("empty text")

// InputError is a text an embedder refuses: which one (Index into the batch) and why.
type InputError struct {
	Index   int
	Problem error
}

func (e *InputError) Error() string { return fmt.Sprintf("embed: text %d: %v", e.Index, e.Problem) }
func (e *InputError) Unwrap() error { return e.Problem }

// CheckTexts validates a batch the way every provider does: non-empty, valid UTF-8, no NUL.
func CheckTexts(texts []string) error {
	for i, t := range texts {
		switch {
		case !utf8.ValidString(t):
			return &InputError{Index: i, Problem: errors.New("invalid UTF-8")}
		case containsNUL(t):
			return &InputError{Index: i, Problem: errors.New("contains a NUL byte")}
		case isBlank(t):
			return &InputError{Index: i, Problem: ErrEmptyText}
		}
	}
	return nil
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

func isBlank(s string) bool {
	for _, r := range s {
		if r != ' ' && r != '\t' && r != '\n' && r != '\r' && r != '\v' && r != '\f' && r != 0x85 && r != 0xA0 {
			return false
		}
	}
	return true
}

// Normalize scales v to unit length in place and returns it; a zero vector stays zero.
func Normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	inv := 1 / math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}
