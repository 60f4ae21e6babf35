// Package hf reads a Hugging Face style model directory (model.onnx, tokenizer.json,
// config.json, and the sentence-transformers files) and fits texts to the model's length
// with the model's own tokenizer. The ONNX embedder and cross-encoder share it.
package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gomlx/go-huggingface/tokenizers/api"
	"github.com/gomlx/go-huggingface/tokenizers/hftokenizer"
)

// Backend names what runs a model.
type Backend string

// Backends.
const (
	BackendGo  Backend = "go"  // hugot's pure-Go backend
	BackendORT Backend = "ort" // ONNX Runtime: build with -tags ort, library from ONNXRUNTIME_LIB
)

// ModelError is a model directory recall cannot use: which directory, which file (when one
// is at fault), and why.
type ModelError struct {
	Dir     string
	File    string
	Problem string
}

func (e *ModelError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("model %s: %s", e.Dir, e.Problem)
	}
	return fmt.Sprintf("model %s: %s: %s", e.Dir, e.File, e.Problem)
}

// Dir is an opened model directory.
type Dir struct {
	Path string
	// MaxLen is the longest input, in tokens with the special tokens, the model takes: the
	// sentence-transformers max_seq_length, else the tokenizer's model_max_length, each
	// capped by the position embeddings (default 512).
	MaxLen int
	// Hidden is config.json's hidden_size (0 when absent).
	Hidden int
	tok    *hftokenizer.Tokenizer
}

// Open checks that dir holds model.onnx and tokenizer.json, loads the tokenizer, and reads
// the length limits.
func Open(dir string) (*Dir, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, &ModelError{Dir: dir, Problem: "not a directory"}
	}
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); errors.Is(err, fs.ErrNotExist) {
			return nil, &ModelError{Dir: dir, File: f, Problem: "missing (a sentence-transformers ONNX export has model.onnx and tokenizer.json)"}
		} else if err != nil {
			return nil, &ModelError{Dir: dir, File: f, Problem: err.Error()}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, &ModelError{Dir: dir, File: "tokenizer.json", Problem: err.Error()}
	}
	tok, err := hftokenizer.NewFromContent(nil, b)
	if err != nil {
		return nil, &ModelError{Dir: dir, File: "tokenizer.json", Problem: err.Error()}
	}
	d := &Dir{Path: dir, tok: tok}
	var cfg struct {
		MaxPos int `json:"max_position_embeddings"`
		Hidden int `json:"hidden_size"`
	}
	var st1 struct {
		MaxSeq int `json:"max_seq_length"`
	}
	var tk struct {
		MaxLen float64 `json:"model_max_length"`
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"config.json", &cfg}, {"sentence_bert_config.json", &st1}, {"tokenizer_config.json", &tk}} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &ModelError{Dir: dir, File: f.name, Problem: err.Error()}
		}
		if err := json.Unmarshal(b, f.v); err != nil {
			return nil, &ModelError{Dir: dir, File: f.name, Problem: "malformed JSON: " + err.Error()}
		}
	}
	limit := 512
	if cfg.MaxPos > 0 {
		limit = cfg.MaxPos
	}
	d.MaxLen = limit
	switch {
	case st1.MaxSeq > 0:
		d.MaxLen = min(st1.MaxSeq, limit)
	case tk.MaxLen > 0 && tk.MaxLen < 1e6: // tokenizers write 1e30 for "no limit"
		d.MaxLen = min(int(tk.MaxLen), limit)
	}
	d.Hidden = cfg.Hidden
	return d, nil
}

// Count returns the tokens of text without the special tokens.
func (d *Dir) Count(text string) int {
	return len(d.encode(text).IDs)
}

func (d *Dir) encode(text string) api.AnnotatedEncoding {
	// The tokenizer keeps its options on itself; set them on every call through a private
	// copy so concurrent callers and the pipeline's own use do not interfere.
	t := *d.tok
	_ = t.With(api.EncodeOptions{IncludeSpans: true})
	return t.EncodeWithAnnotations(text)
}

// Fit cuts text to at most limit tokens (special tokens not counted), at a token boundary.
// It returns the text, its token count, and the count before cutting.
func (d *Dir) Fit(text string, limit int) (string, int, int) {
	enc := d.encode(text)
	n := len(enc.IDs)
	if n <= limit {
		return text, n, n
	}
	if limit <= 0 {
		return "", 0, n
	}
	cut := text[:enc.Spans[limit-1].End]
	// WordPiece can tokenize a cut word differently; shorten until the cut fits.
	for k := limit - 1; d.Count(cut) > limit && k > 0; k-- {
		cut = text[:enc.Spans[k-1].End]
	}
	return cut, d.Count(cut), n
}
