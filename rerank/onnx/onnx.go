// Package onnx scores (query, document) pairs with an ONNX cross-encoder export (model.onnx
// with a [batch, 1] logit output, tokenizer.json, config.json) through hugot's cross-encoder
// pipeline on its pure-Go backend. Scores are sigmoid(logit). Pairs longer than the model's
// length are cut at token boundaries (the query to at most half, the document to the rest)
// and reported.
//
// Build with GOEXPERIMENT=simd where the toolchain has it: the backend's kernels are several
// times faster.
package onnx

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/internal/hf"
	"github.com/recall-engine/recall/rerank"
)

// ModelError is a model directory the cross-encoder cannot use.
type ModelError = hf.ModelError

// Config configures a CrossEncoder.
type Config struct {
	Dir       string // the model directory (required)
	BatchSize int    // pairs per forward pass (0: 32)
	MaxLen    int    // overrides the model's length in tokens, specials included (0: the model's)
}

// CrossEncoder runs one ONNX cross-encoder. Safe for concurrent use; forward passes are
// serialized.
type CrossEncoder struct {
	cfg     Config
	dir     *hf.Dir
	maxLen  int
	mu      sync.Mutex
	session *hugot.Session
	pipe    *pipelines.CrossEncoderPipeline
}

// Report says what a scoring call cut to fit the model.
type Report struct {
	QueryTruncated bool
	// Truncated lists the documents that were cut: index, tokens before, tokens kept.
	Truncated []Truncation
}

// Truncation is one text cut to the model's length.
type Truncation struct {
	Index  int
	Tokens int
	Kept   int
}

// New loads the model in cfg.Dir.
func New(ctx context.Context, cfg Config) (*CrossEncoder, error) {
	dir, err := hf.Open(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	c := &CrossEncoder{cfg: cfg, dir: dir, maxLen: dir.MaxLen}
	if cfg.MaxLen > 0 {
		c.maxLen = min(cfg.MaxLen, dir.MaxLen)
	}
	if c.maxLen < 5 {
		return nil, &ModelError{Dir: cfg.Dir, Problem: fmt.Sprintf("max length %d leaves no room for a pair", c.maxLen)}
	}
	s, err := hugot.NewGoSession(ctx)
	if err != nil {
		return nil, fmt.Errorf("rerank onnx: %w", err)
	}
	pipe, err := hugot.NewPipeline(s, hugot.CrossEncoderConfig{
		ModelPath: cfg.Dir, Name: "rerank:" + filepath.Clean(cfg.Dir),
		Options: []hugot.CrossEncoderOption{pipelines.WithBatchSize(cfg.BatchSize)},
	})
	if err != nil {
		_ = s.Destroy()
		return nil, &ModelError{Dir: cfg.Dir, File: "model.onnx", Problem: err.Error()}
	}
	c.session, c.pipe = s, pipe
	return c, nil
}

// Close releases the model.
func (c *CrossEncoder) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil
	}
	err := c.session.Destroy()
	c.session = nil
	return err
}

// Name implements rerank.Reranker.
func (c *CrossEncoder) Name() string {
	return fmt.Sprintf("onnx:%s:%d", filepath.Base(filepath.Clean(c.cfg.Dir)), c.maxLen)
}

// MaxLen is the longest pair in tokens, special tokens included.
func (c *CrossEncoder) MaxLen() int { return c.maxLen }

// Count counts text's tokens with the model's tokenizer (special tokens not counted).
func (c *CrossEncoder) Count(text string) int { return c.dir.Count(text) }

// Score implements rerank.Reranker.
func (c *CrossEncoder) Score(ctx context.Context, query string, docs []string) ([]float32, error) {
	s, _, err := c.ScoreReport(ctx, query, docs)
	return s, err
}

// ScoreReport is Score that also reports what was cut to fit the model.
func (c *CrossEncoder) ScoreReport(ctx context.Context, query string, docs []string) ([]float32, Report, error) {
	var rep Report
	if err := rerank.CheckInput(query, docs); err != nil {
		return nil, rep, err
	}
	if err := ctx.Err(); err != nil {
		return nil, rep, err
	}
	out := make([]float32, 0, len(docs))
	if len(docs) == 0 {
		return out, rep, nil
	}
	room := c.maxLen - 3 // [CLS] query [SEP] document [SEP]
	q, qKept, qn := c.dir.Fit(query, room/2)
	rep.QueryTruncated = qKept < qn
	in := make([]string, len(docs))
	for i, d := range docs {
		cut, kept, n := c.dir.Fit(d, room-qKept)
		if kept < n {
			rep.Truncated = append(rep.Truncated, Truncation{Index: i, Tokens: n, Kept: kept})
		}
		in[i] = cut
	}
	for lo := 0; lo < len(in); lo += c.cfg.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		s, err := c.run(ctx, q, in[lo:min(len(in), lo+c.cfg.BatchSize)])
		if err != nil {
			return nil, rep, err
		}
		out = append(out, s...)
	}
	return out, rep, nil
}

func (c *CrossEncoder) run(ctx context.Context, query string, docs []string) ([]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil, fmt.Errorf("rerank onnx: the cross-encoder is closed")
	}
	res, err := c.pipe.RunPipeline(ctx, query, docs)
	if err != nil {
		return nil, fmt.Errorf("rerank onnx: %w", err)
	}
	if len(res.Results) != len(docs) {
		return nil, fmt.Errorf("rerank onnx: %d scores for %d documents", len(res.Results), len(docs))
	}
	// The pipeline answers sorted by score; put the scores back in input order.
	out := make([]float32, len(docs))
	seen := make([]bool, len(docs))
	for _, r := range res.Results {
		if r.Index < 0 || r.Index >= len(docs) || seen[r.Index] {
			return nil, fmt.Errorf("rerank onnx: bad or repeated index %d", r.Index)
		}
		seen[r.Index] = true
		out[r.Index] = r.Score
	}
	return out, nil
}
