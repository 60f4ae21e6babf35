package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
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
	key    string
	client *http.Client
}

// HTTPError is a response the server refused or garbled: the status (0 when the body was
// malformed) and what it said.
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	if e.Status == 0 {
		return "embed: malformed response: " + e.Body
	}
	return fmt.Sprintf("embed: server answered %d: %s", e.Status, e.Body)
}

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
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	}
	h := &HTTP{cfg: cfg, client: cfg.Client}
	if h.client == nil {
		h.client = &http.Client{Timeout: cfg.Timeout}
	}
	if cfg.APIKeyEnv != "" {
		h.key = os.Getenv(cfg.APIKeyEnv)
		if h.key == "" {
			return nil, fmt.Errorf("embed: http: the API key variable %s is empty", cfg.APIKeyEnv)
		}
	}
	return h, nil
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
	body, err := json.Marshal(embeddingsRequest{Model: h.cfg.Model, Input: in})
	if err != nil {
		return nil, err
	}
	url := strings.TrimRight(h.cfg.BaseURL, "/") + "/embeddings"
	var resp []byte
	err = retry(ctx, h.cfg.MaxRetries, func() (time.Duration, error) {
		return h.post(ctx, url, body, &resp)
	})
	if err != nil {
		return nil, err
	}
	var r embeddingsResponse
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, &HTTPError{Body: err.Error()}
	}
	if len(r.Data) != len(in) {
		return nil, &HTTPError{Body: fmt.Sprintf("%d embeddings for %d texts", len(r.Data), len(in))}
	}
	out := make([][]float32, len(in))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(in) || out[d.Index] != nil {
			return nil, &HTTPError{Body: fmt.Sprintf("bad or repeated index %d", d.Index)}
		}
		if len(d.Embedding) != h.cfg.Dim {
			return nil, &HTTPError{Body: fmt.Sprintf("embedding of length %d, configured Dim %d", len(d.Embedding), h.cfg.Dim)}
		}
		out[d.Index] = Normalize(d.Embedding)
	}
	return out, nil
}

// post sends one request; it returns how long to wait before a retry (from Retry-After), and
// a retryable error for 429, 5xx and transport failures.
func (h *HTTP) post(ctx context.Context, url string, body []byte, out *[]byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if h.key != "" {
		req.Header.Set("Authorization", "Bearer "+h.key)
	}
	res, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, retryable{err}
	}
	defer res.Body.Close() //nolint:errcheck // the body is read in full; a close error changes nothing
	b, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return 0, retryable{err}
	}
	if res.StatusCode == http.StatusOK {
		*out = b
		return 0, nil
	}
	e := &HTTPError{Status: res.StatusCode, Body: truncate(string(b), 300)}
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
		wait := time.Duration(0)
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = time.Duration(s) * time.Second
		}
		return wait, retryable{e}
	}
	return 0, e
}

type retryable struct{ err error }

func (r retryable) Error() string { return r.err.Error() }
func (r retryable) Unwrap() error { return r.err }

// retry calls fn until it succeeds, fails for good, or has been retried max times; between
// tries it waits max(the server's Retry-After, 100ms * 2^try with jitter), up to 10s.
func retry(ctx context.Context, maxRetries int, fn func() (time.Duration, error)) error {
	for try := 0; ; try++ {
		wait, err := fn()
		var r retryable
		if err == nil || !errors.As(err, &r) {
			return err
		}
		if try >= maxRetries {
			return fmt.Errorf("after %d tries: %w", try+1, r.err)
		}
		backoff := time.Duration(float64(100*time.Millisecond<<try) * (0.5 + rand.Float64()))
		wait = min(max(wait, backoff), 10*time.Second)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
