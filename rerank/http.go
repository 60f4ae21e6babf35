package rerank

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/recall-engine/recall/internal/httpx"
)

// Protocol is the request and response shape of a /rerank server.
type Protocol string

// Protocols.
const (
	// TEI is Hugging Face text-embeddings-inference: {"query", "texts"} answered with
	// [{"index", "score"}].
	TEI Protocol = "tei"
	// Cohere is Cohere's (also Jina's and Voyage's) shape: {"model", "query", "documents",
	// "top_n"} answered with {"results": [{"index", "relevance_score"}]}.
	Cohere Protocol = "cohere"
)

// HTTPConfig configures a /rerank server. The request goes to {BaseURL}/rerank, so BaseURL
// carries any version prefix (e.g. https://api.cohere.com/v2).
type HTTPConfig struct {
	BaseURL    string        // required
	Protocol   Protocol      // TEI (default) or Cohere
	Model      string        // model name (required for Cohere; TEI serves one model)
	APIKeyEnv  string        // environment variable holding the bearer token ("" for none)
	BatchSize  int           // documents per request (0: 32)
	Timeout    time.Duration // per request (0: 30s)
	MaxRetries int           // retries on 429, 5xx and network errors (0: 4; <0: none)
	Client     *http.Client  // nil: a client with Timeout
}

// HTTPError is a response the server refused (Status is the HTTP status) or garbled
// (Status 0), with what it said.
type HTTPError = httpx.Error

// HTTP scores through a /rerank server.
type HTTP struct {
	cfg    HTTPConfig
	client *httpx.Client
}

// NewHTTP checks cfg and returns the provider; the API key is read from the environment now.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	if cfg.Protocol == "" {
		cfg.Protocol = TEI
	}
	switch {
	case cfg.BaseURL == "":
		return nil, errors.New("rerank: http: BaseURL is required")
	case cfg.Protocol != TEI && cfg.Protocol != Cohere:
		return nil, fmt.Errorf("rerank: http: Protocol %q: want %q or %q", cfg.Protocol, TEI, Cohere)
	case cfg.Protocol == Cohere && cfg.Model == "":
		return nil, errors.New("rerank: http: Model is required for the cohere protocol")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 32
	}
	c, err := httpx.New("rerank", httpx.Options{APIKeyEnv: cfg.APIKeyEnv, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, Client: cfg.Client})
	if err != nil {
		return nil, err
	}
	return &HTTP{cfg: cfg, client: c}, nil
}

// Name implements Reranker.
func (h *HTTP) Name() string { return fmt.Sprintf("http:%s:%s", h.cfg.Protocol, h.cfg.Model) }

type teiRequest struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

type teiResult struct {
	Index int      `json:"index"`
	Score *float32 `json:"score"`
}

type cohereRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type cohereResponse struct {
	Results []struct {
		Index int      `json:"index"`
		Score *float32 `json:"relevance_score"`
	} `json:"results"`
}

// Score implements Reranker: batches of BatchSize documents, each retried on 429/5xx.
func (h *HTTP) Score(ctx context.Context, query string, docs []string) ([]float32, error) {
	if err := CheckInput(query, docs); err != nil {
		return nil, err
	}
	out := make([]float32, 0, len(docs))
	for lo := 0; lo < len(docs); lo += h.cfg.BatchSize {
		s, err := h.batch(ctx, query, docs[lo:min(len(docs), lo+h.cfg.BatchSize)])
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

func (h *HTTP) batch(ctx context.Context, query string, docs []string) ([]float32, error) {
	url := strings.TrimRight(h.cfg.BaseURL, "/") + "/rerank"
	type pair struct {
		index int
		score *float32
	}
	var got []pair
	switch h.cfg.Protocol {
	case Cohere:
		var r cohereResponse
		req := cohereRequest{Model: h.cfg.Model, Query: query, Documents: docs, TopN: len(docs)}
		if err := h.client.PostJSON(ctx, url, req, &r); err != nil {
			return nil, err
		}
		for _, x := range r.Results {
			got = append(got, pair{x.Index, x.Score})
		}
	default:
		var r []teiResult
		if err := h.client.PostJSON(ctx, url, teiRequest{Query: query, Texts: docs, Truncate: true}, &r); err != nil {
			return nil, err
		}
		for _, x := range r {
			got = append(got, pair{x.Index, x.Score})
		}
	}
	// Servers answer sorted by score; put the scores back in input order.
	if len(got) != len(docs) {
		return nil, h.client.Malformed("%d scores for %d documents", len(got), len(docs))
	}
	out := make([]float32, len(docs))
	seen := make([]bool, len(docs))
	for _, p := range got {
		if p.index < 0 || p.index >= len(docs) || seen[p.index] {
			return nil, h.client.Malformed("bad or repeated index %d", p.index)
		}
		if p.score == nil {
			return nil, h.client.Malformed("no score for index %d", p.index)
		}
		seen[p.index] = true
		out[p.index] = *p.score
	}
	return out, nil
}
