// Package onnx embeds text with a sentence-transformers ONNX export (model.onnx,
// tokenizer.json, config.json) run by hugot's pure-Go backend: WordPiece tokenization,
// mean pooling over the attention mask, L2 normalization. Texts longer than the model's
// max_seq_length are cut at a token boundary and reported, never passed through to crash the
// position embeddings.
//
// Two backends run the model: hugot's pure-Go backend (BackendGo, the default; build with
// GOEXPERIMENT=simd where the toolchain has it, its kernels are several times faster), and
// ONNX Runtime (BackendORT, in binaries built with -tags ort; see scripts/ort-install.sh).
package onnx

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/pipelines"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/hf"
	"github.com/recall-engine/recall/internal/ortrun"
)

// Backend names what runs the model.
type Backend = hf.Backend

// Backends.
const (
	BackendGo  = hf.BackendGo  // hugot's pure-Go backend
	BackendORT = hf.BackendORT // ONNX Runtime: build with -tags ort, library from ONNXRUNTIME_LIB
)

// ModelError is a model directory the embedder cannot use (missing file, malformed config,
// output of the wrong shape).
type ModelError = hf.ModelError

// Config configures an Embedder.
type Config struct {
	Dir         string // the model directory (required)
	QueryPrefix string // prepended to queries (e.g. "query: " for E5 models)
	DocPrefix   string // prepended to documents
	BatchSize   int    // texts per forward pass (0: 32)
	// MaxLen overrides the model's length in tokens, special tokens included (0: the
	// model's, see hf.Dir.MaxLen).
	MaxLen int
	// Backend runs the model (default BackendGo).
	Backend Backend
	// ORTLibrary is libonnxruntime.so for BackendORT ("": $ONNXRUNTIME_LIB).
	ORTLibrary string
}

// Embedder runs one ONNX embedding model. Safe for concurrent use: forward passes are
// serialized (the backend already uses every core).
type Embedder struct {
	cfg    Config
	dir    *hf.Dir
	dim    int
	maxLen int
	mu     sync.Mutex
	closed bool
	run    func(ctx context.Context, texts []string) ([][]float32, error)
	close  func() error
}

// New loads the model in cfg.Dir.
func New(ctx context.Context, cfg Config) (*Embedder, error) {
	dir, err := hf.Open(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	e := &Embedder{cfg: cfg, dir: dir, maxLen: dir.MaxLen}
	if cfg.MaxLen > 0 {
		e.maxLen = min(cfg.MaxLen, dir.MaxLen)
	}
	if e.maxLen < 3 {
		return nil, &ModelError{Dir: cfg.Dir, Problem: fmt.Sprintf("max length %d leaves no room for text", e.maxLen)}
	}
	var dims []int64
	var name string
	switch cfg.Backend {
	case "", BackendGo:
		dims, name, err = e.openGo(ctx)
	case BackendORT:
		dims, name, err = e.openORT()
	default:
		return nil, fmt.Errorf("embed onnx: backend %q: want %q or %q", cfg.Backend, BackendGo, BackendORT)
	}
	if err != nil {
		return nil, err
	}
	// Token embeddings [batch, sequence, hidden] (mean pooled here) or a pooled sentence
	// embedding [batch, hidden].
	if len(dims) != 3 && len(dims) != 2 || dims[len(dims)-1] < 8 {
		_ = e.close()
		return nil, &ModelError{Dir: cfg.Dir, File: "model.onnx", Problem: fmt.Sprintf(
			"output %s has shape %v; an embedder outputs [batch, sequence, hidden] or [batch, hidden]", name, dims)}
	}
	e.dim = int(dims[len(dims)-1])
	if e.dim > 2000 {
		_ = e.close()
		return nil, &ModelError{Dir: cfg.Dir, Problem: fmt.Sprintf("%d dimensions; the vector index takes at most 2000", e.dim)}
	}
	return e, nil
}

func (e *Embedder) openGo(ctx context.Context) ([]int64, string, error) {
	s, err := hugot.NewGoSession(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("embed onnx: %w", err)
	}
	pipe, err := hugot.NewPipeline(s, hugot.FeatureExtractionConfig{
		ModelPath: e.cfg.Dir, Name: "embed:" + filepath.Clean(e.cfg.Dir),
		Options: []hugot.FeatureExtractionOption{pipelines.WithNormalization()},
	})
	if err != nil {
		_ = s.Destroy()
		return nil, "", &ModelError{Dir: e.cfg.Dir, File: "model.onnx", Problem: err.Error()}
	}
	e.close = s.Destroy
	e.run = func(ctx context.Context, texts []string) ([][]float32, error) {
		res, err := pipe.RunPipeline(ctx, texts)
		if err != nil {
			return nil, err
		}
		return res.Embeddings, nil
	}
	out := pipe.GetMetadata().OutputsInfo
	if len(out) == 0 {
		_ = s.Destroy()
		return nil, "", &ModelError{Dir: e.cfg.Dir, File: "model.onnx", Problem: "no output"}
	}
	return out[0].Dimensions, out[0].Name, nil
}

func (e *Embedder) openORT() ([]int64, string, error) {
	s, err := ortrun.Open(e.dir, e.cfg.ORTLibrary)
	if err != nil {
		return nil, "", err
	}
	e.close = s.Close
	e.run = func(_ context.Context, texts []string) ([][]float32, error) {
		b, err := e.dir.Single(texts)
		if err != nil {
			return nil, err
		}
		data, shape, err := s.Run(b)
		if err != nil {
			return nil, err
		}
		if len(shape) == 2 { // pooled by the model
			return b.Rows(data, int(shape[1]))
		}
		return b.MeanPool(data, int(shape[len(shape)-1]))
	}
	return s.OutDims, s.Output, nil
}

// Close releases the model.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.close()
}

// Dim implements embed.Embedder.
func (e *Embedder) Dim() int { return e.dim }

// Name implements embed.Embedder.
func (e *Embedder) Name() string {
	return fmt.Sprintf("onnx:%s:%d:%d", filepath.Base(filepath.Clean(e.cfg.Dir)), e.dim, e.maxLen)
}

// MaxLen is the longest input in tokens, special tokens included.
func (e *Embedder) MaxLen() int { return e.maxLen }

// Tokens counts text's tokens with the model's tokenizer (special tokens not counted); it
// makes the embedder a budget.TokenCounter.
func (e *Embedder) Count(text string) int { return e.dir.Count(text) }

// Embed implements embed.Embedder.
func (e *Embedder) Embed(ctx context.Context, texts []string, mode embed.Mode) ([][]float32, error) {
	v, _, err := e.EmbedReport(ctx, texts, mode)
	return v, err
}

// EmbedReport is Embed that also reports which texts were cut to the model's length
// (token counts without the special tokens). It implements embed.Reporter.
func (e *Embedder) EmbedReport(ctx context.Context, texts []string, mode embed.Mode) ([][]float32, []embed.Truncation, error) {
	var rep []embed.Truncation
	if err := embed.CheckTexts(texts); err != nil {
		return nil, rep, err
	}
	prefix := e.cfg.DocPrefix
	if mode == embed.Query {
		prefix = e.cfg.QueryPrefix
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		cut, kept, n := e.dir.Fit(prefix+t, e.maxLen-2) // [CLS] and [SEP]
		if kept < n {
			rep = append(rep, embed.Truncation{Index: i, Tokens: n, Kept: kept})
		}
		in[i] = cut
	}
	out := make([][]float32, 0, len(in))
	for lo := 0; lo < len(in); lo += e.cfg.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		vs, err := e.forward(ctx, in[lo:min(len(in), lo+e.cfg.BatchSize)])
		if err != nil {
			return nil, rep, err
		}
		out = append(out, vs...)
	}
	return out, rep, nil
}

func (e *Embedder) forward(ctx context.Context, batch []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("embed onnx: the embedder is closed")
	}
	vs, err := e.run(ctx, batch)
	if err != nil {
		return nil, fmt.Errorf("embed onnx: %w", err)
	}
	if len(vs) != len(batch) {
		return nil, fmt.Errorf("embed onnx: %d embeddings for %d texts", len(vs), len(batch))
	}
	for i, v := range vs {
		if len(v) != e.dim {
			return nil, &ModelError{Dir: e.cfg.Dir, File: "model.onnx", Problem: fmt.Sprintf("embedding of length %d, the output declares %d", len(v), e.dim)}
		}
		vs[i] = embed.Normalize(v)
	}
	return vs, nil
}
