// Package rerank orders the head of a recall by merit. A Reranker scores (query, document)
// pairs; Order applies the engine's merit rule (direct sources first, then the reranked
// head, then the rest in statement order); MMR optionally diversifies.
//
// Providers: HTTP (TEI- and Cohere-style /rerank servers), None (keeps the order), and the
// ONNX cross-encoder in rerank/onnx, the only package that imports hugot.
package rerank

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Reranker scores documents against a query. Implementations are safe for concurrent use.
type Reranker interface {
	// Score returns one score per document, in input order; higher is more relevant. Scores
	// of one call are comparable with each other, not across calls or models.
	Score(ctx context.Context, query string, docs []string) ([]float32, error)
	// Name identifies the model and its settings.
	Name() string
}

// InputError is a text a reranker refuses: Index is the document's place in the batch, or
// -1 for the query.
type InputError struct {
	Index   int
	Problem string
}

func (e *InputError) Error() string {
	if e.Index < 0 {
		return "rerank: query: " + e.Problem
	}
	return fmt.Sprintf("rerank: document %d: %s", e.Index, e.Problem)
}

// Truncation is a document a reranker cut to its model's length: which one, its length in the
// model's tokens before cutting, and the tokens kept.
type Truncation struct {
	Index  int
	Tokens int
	Kept   int
}

// Report says what a scoring call cut to fit the model.
type Report struct {
	QueryTruncated bool
	Truncated      []Truncation
}

// Reporter is implemented by rerankers that cut pairs longer than their model takes.
type Reporter interface {
	ScoreReport(ctx context.Context, query string, docs []string) ([]float32, Report, error)
}

// ScoreReport scores docs with r, and says what it cut when r is a Reporter.
func ScoreReport(ctx context.Context, r Reranker, query string, docs []string) ([]float32, Report, error) {
	if rr, ok := r.(Reporter); ok {
		return rr.ScoreReport(ctx, query, docs)
	}
	scores, err := r.Score(ctx, query, docs)
	return scores, Report{}, err
}

// ErrEmptyQuery is the problem of a blank query.
var ErrEmptyQuery = errors.New("rerank: empty query")

// CheckInput validates a call the way every provider does: a non-blank query, and valid
// UTF-8 without NUL bytes everywhere. Blank documents are allowed (they score low).
func CheckInput(query string, docs []string) error {
	if strings.TrimSpace(query) == "" {
		return ErrEmptyQuery
	}
	if p := textProblem(query); p != "" {
		return &InputError{Index: -1, Problem: p}
	}
	for i, d := range docs {
		if p := textProblem(d); p != "" {
			return &InputError{Index: i, Problem: p}
		}
	}
	return nil
}

func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "contains a NUL byte"
	}
	return ""
}

// None is the reranker that changes nothing: scores fall with input position, so sorting by
// score keeps the statement's order. The engine skips the rerank stage when it is configured.
type None struct{}

// Score implements Reranker.
func (None) Score(ctx context.Context, query string, docs []string) ([]float32, error) {
	if err := CheckInput(query, docs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]float32, len(docs))
	for i := range out {
		out[i] = -float32(i)
	}
	return out, nil
}

// Name implements Reranker.
func (None) Name() string { return "none" }
