// Package onnx scores (query, document) pairs with an ONNX cross-encoder export (model.onnx
// with a [batch, 1] logit output, tokenizer.json, config.json) through hugot's cross-encoder
// pipeline on its pure-Go backend. Scores are sigmoid(logit). Pairs longer than the model's
// length are cut at token boundaries (the query to at most half, the document to the rest)
// and reported.
//
// Two backends run the model: hugot's cross-encoder pipeline on its pure-Go backend
// (BackendGo, the default; build with GOEXPERIMENT=simd where the toolchain has it), and
// ONNX Runtime (BackendORT, in binaries built with -tags ort; see scripts/ort-install.sh),
// about five times faster on these machines (BENCHMARKS.md).
package onnx

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/internal/hf"
	"github.com/recall-engine/recall/internal/ortrun"
	"github.com/recall-engine/recall/rerank"
)

// Backend names what runs the model.
type Backend = hf.Backend

// Backends.
const (
	BackendGo  = hf.BackendGo  // hugot's pure-Go backend
	BackendORT = hf.BackendORT // ONNX Runtime: build with -tags ort, library from ONNXRUNTIME_LIB
)

// ModelError is a model directory the cross-encoder cannot use.
type ModelError = hf.ModelError

// Config configures a CrossEncoder.
type Config struct {
	Dir       string // the model directory (required)
	BatchSize int    // pairs per forward pass (0: 32)
	MaxLen    int    // overrides the model's length in tokens, specials included (0: the model's)
	Backend   Backend
	// ORTLibrary is libonnxruntime.so for BackendORT ("": $ONNXRUNTIME_LIB).
	ORTLibrary string
}

// CrossEncoder runs one ONNX cross-encoder. Safe for concurrent use; forward passes are
// serialized.
type CrossEncoder struct {
	cfg    Config
	dir    *hf.Dir
	maxLen int
	mu     sync.Mutex
	closed bool
	run    func(ctx context.Context, query string, docs []string) ([]float32, error)
	close  func() error
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
	switch cfg.Backend {
	case "", BackendGo:
		err = c.openGo(ctx)
	case BackendORT:
		err = c.openORT()
	default:
		err = fmt.Errorf("rerank onnx: backend %q: want %q or %q", cfg.Backend, BackendGo, BackendORT)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *CrossEncoder) openGo(ctx context.Context) error {
	s, err := hugot.NewGoSession(ctx)
	if err != nil {
		return fmt.Errorf("rerank onnx: %w", err)
	}
	pipe, err := hugot.NewPipeline(s, hugot.CrossEncoderConfig{
		ModelPath: c.cfg.Dir, Name: "rerank:" + filepath.Clean(c.cfg.Dir),
		Options: []hugot.CrossEncoderOption{pipelines.WithBatchSize(c.cfg.BatchSize)},
	})
	if err != nil {
		_ = s.Destroy()
		return &ModelError{Dir: c.cfg.Dir, File: "model.onnx", Problem: err.Error()}
	}
	c.close = s.Destroy
	c.run = func(ctx context.Context, query string, docs []string) ([]float32, error) {
		res, err := pipe.RunPipeline(ctx, query, docs)
		if err != nil {
			return nil, err
		}
		if len(res.Results) != len(docs) {
			return nil, fmt.Errorf("%d scores for %d documents", len(res.Results), len(docs))
		}
		// The pipeline answers sorted by score; put the scores back in input order.
		out := make([]float32, len(docs))
		seen := make([]bool, len(docs))
		for _, r := range res.Results {
			if r.Index < 0 || r.Index >= len(docs) || seen[r.Index] {
				return nil, fmt.Errorf("bad or repeated index %d", r.Index)
			}
			seen[r.Index] = true
			out[r.Index] = r.Score
		}
		return out, nil
	}
	return nil
}

func (c *CrossEncoder) openORT() error {
	s, err := ortrun.Open(c.dir, c.cfg.ORTLibrary)
	if err != nil {
		return err
	}
	if d := s.OutDims; len(d) != 2 || d[1] != 1 {
		_ = s.Close()
		return &ModelError{Dir: c.cfg.Dir, File: "model.onnx", Problem: fmt.Sprintf(
			"output %s has shape %v; a cross-encoder outputs one logit per pair, [batch, 1] (2 dimensional output)", s.Output, d)}
	}
	c.close = s.Close
	c.run = func(_ context.Context, query string, docs []string) ([]float32, error) {
		b, err := c.dir.Pairs(query, docs)
		if err != nil {
			return nil, err
		}
		data, _, err := s.Run(b)
		if err != nil {
			return nil, err
		}
		if len(data) != len(docs) {
			return nil, fmt.Errorf("%d logits for %d documents", len(data), len(docs))
		}
		out := make([]float32, len(data))
		for i, x := range data {
			out[i] = float32(1 / (1 + math.Exp(-float64(x))))
		}
		return out, nil
	}
	return nil
}

// Close releases the model.
func (c *CrossEncoder) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.close()
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

// ScoreReport is Score that also reports what was cut to fit the model. It implements
// rerank.Reporter.
func (c *CrossEncoder) ScoreReport(ctx context.Context, query string, docs []string) ([]float32, rerank.Report, error) {
	var rep rerank.Report
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
			rep.Truncated = append(rep.Truncated, rerank.Truncation{Index: i, Tokens: n, Kept: kept})
		}
		in[i] = cut
	}
	for lo := 0; lo < len(in); lo += c.cfg.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		s, err := c.forward(ctx, q, in[lo:min(len(in), lo+c.cfg.BatchSize)])
		if err != nil {
			return nil, rep, err
		}
		out = append(out, s...)
	}
	return out, rep, nil
}

func (c *CrossEncoder) forward(ctx context.Context, query string, docs []string) ([]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmt.Errorf("rerank onnx: the cross-encoder is closed")
	}
	out, err := c.run(ctx, query, docs)
	if err != nil {
		return nil, fmt.Errorf("rerank onnx: %w", err)
	}
	return out, nil
}
