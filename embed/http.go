package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/recall-engine/recall/internal/httpx"
)

// HTTPConfig configures an OpenAI-compatible embeddings server (POST {BaseURL}/embeddings
// with {"model", "input": [...]}, answered with {"data": [{"index", "embedding"}]}).
type HTTPConfig struct {
	BaseURL     string        // e.g. http://localhost:11434/v1 (required)
	Model       string        // model name sent to the server (required)
	Dim         int           // expected vector length (required): a mismatch is an error
	APIKeyEnv   string        // environment variable holding the bearer token ("" for none)
	QueryPrefix string        // prepended to query texts (e.g. "query: " for E5 models)
	DocPrefix   string        // prepended to document texts
	BatchSize   int           // texts per request (0: 64)
	Timeout     time.Duration // per request (0: 30s)
	MaxRetries  int           // retries on 429, 5xx and network errors (0: 4; <0: none)
	Client      *http.Client  // nil: a client with Timeout
}

// HTTP embeds through an OpenAI-compatible /v1/embeddings server.
type HTTP struct {
	cfg    HTTPConfig
	client *httpx.Client
}

// HTTPError is a response the server refused (Status is the HTTP status) or garbled
// (Status 0), with what it said.
type HTTPError = httpx.Error

// NewHTTP checks cfg and returns the provider; the API key is read from the environment now.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	switch {
	case cfg.BaseURL == "":
		return nil, errors.New("embed: http: BaseURL is required")
	case cfg.Model == "":
		return nil, errors.New("embed: http: Model is required")
	case cfg.Dim < 1 || cfg.Dim > 2000:
		return nil, fmt.Errorf("embed: http: Dim %d: want 1..2000 (the vector index's limit)", cfg.Dim)
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 64
	}
	c, err := httpx.New("embed", httpx.Options{APIKeyEnv: cfg.APIKeyEnv, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, Client: cfg.Client})
	if err != nil {
		return nil, err
	}
	return &HTTP{cfg: cfg, client: c}, nil
}

// Dim implements Embedder.
func (h *HTTP) Dim() int { return h.cfg.Dim }

// Name implements Embedder.
func (h *HTTP) Name() string { return fmt.Sprintf("http:%s:%d", h.cfg.Model, h.cfg.Dim) }

// Embed implements Embedder: batches of BatchSize, each retried on 429/5xx with exponential
// backoff and jitter (honouring Retry-After), vectors normalized to unit length.
func (h *HTTP) Embed(ctx context.Context, texts []string, mode Mode) ([][]float32, error) {
	if err := CheckTexts(texts); err != nil {
		return nil, err
	}
	prefix := h.cfg.DocPrefix
	if mode == Query {
		prefix = h.cfg.QueryPrefix
	}
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += h.cfg.BatchSize {
		batch := texts[lo:min(len(texts), lo+h.cfg.BatchSize)]
		in := make([]string, len(batch))
		for i, t := range batch {
			in[i] = prefix + t
		}
		vs, err := h.batch(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

type embeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

func (h *HTTP) batch(ctx context.Context, in []string) ([][]float32, error) {
	url := strings.TrimRight(h.cfg.BaseURL, "/") + "/embeddings"
	var r embeddingsResponse
	if err := h.client.PostJSON(ctx, url, embeddingsRequest{Model: h.cfg.Model, Input: in}, &r); err != nil {
		return nil, err
	}
	if len(r.Data) != len(in) {
		return nil, h.client.Malformed("%d embeddings for %d texts", len(r.Data), len(in))
	}
	out := make([][]float32, len(in))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(in) || out[d.Index] != nil {
			return nil, h.client.Malformed("bad or repeated index %d", d.Index)
		}
		if len(d.Embedding) != h.cfg.Dim {
			return nil, h.client.Malformed("embedding of length %d, configured Dim %d", len(d.Embedding), h.cfg.Dim)
		}
		out[d.Index] = Normalize(d.Embedding)
	}
	return out, nil
}
