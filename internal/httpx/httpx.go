// Package httpx is the JSON-over-HTTP client the model providers share: one POST with a
// bearer key, retried with backoff on 429, 5xx and transport errors, and a typed error for
// what the server refused or garbled.
package httpx

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
	"time"
)

// Error is a response the server refused (Status is the HTTP status) or garbled (Status 0).
// Service names the calling package ("embed", "rerank").
type Error struct {
	Service string
	Status  int
	Body    string
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return e.Service + ": malformed response: " + e.Body
	}
	return fmt.Sprintf("%s: server answered %d: %s", e.Service, e.Status, e.Body)
}

// Client posts JSON to one server.
type Client struct {
	Service    string // names the caller in errors
	Key        string // bearer token ("" for none)
	MaxRetries int    // retries after the first try (<0: none)
	HTTP       *http.Client
}

// Options are the settings every HTTP provider shares; zero values take the defaults.
type Options struct {
	APIKeyEnv  string        // environment variable holding the bearer token ("" for none)
	Timeout    time.Duration // per request (0: 30s)
	MaxRetries int           // retries on 429, 5xx and network errors (0: 4; <0: none)
	Client     *http.Client  // nil: a client with Timeout
}

// New returns the client of service for o, reading the API key from the environment now.
func New(service string, o Options) (*Client, error) {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = 4
	}
	c := &Client{Service: service, MaxRetries: o.MaxRetries, HTTP: o.Client}
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: o.Timeout}
	}
	if o.APIKeyEnv != "" {
		c.Key = os.Getenv(o.APIKeyEnv)
		if c.Key == "" {
			return nil, fmt.Errorf("%s: http: the API key variable %s is empty", service, o.APIKeyEnv)
		}
	}
	return c, nil
}

// PostJSON sends in as JSON to url and decodes the 200 answer into out. A non-200 answer is an
// *Error; 429 and 5xx answers and transport failures are retried.
func (c *Client) PostJSON(ctx context.Context, url string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var resp []byte
	err = c.retry(ctx, func() (time.Duration, error) { return c.post(ctx, url, body, &resp) })
	if err != nil {
		return err
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return &Error{Service: c.Service, Body: err.Error()}
	}
	return nil
}

// Malformed returns the error for a decoded answer that breaks the protocol.
func (c *Client) Malformed(format string, args ...any) error {
	return &Error{Service: c.Service, Body: fmt.Sprintf(format, args...)}
}

// post sends one request; it returns how long to wait before a retry (from Retry-After), and
// a retryable error for 429, 5xx and transport failures.
func (c *Client) post(ctx context.Context, url string, body []byte, out *[]byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	res, err := c.HTTP.Do(req)
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
	e := &Error{Service: c.Service, Status: res.StatusCode, Body: truncate(string(b), 300)}
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

// retry calls fn until it succeeds, fails for good, or has been retried MaxRetries times;
// between tries it waits max(the server's Retry-After, 100ms * 2^try with jitter), up to 10s.
func (c *Client) retry(ctx context.Context, fn func() (time.Duration, error)) error {
	for try := 0; ; try++ {
		wait, err := fn()
		var r retryable
		if err == nil || !errors.As(err, &r) {
			return err
		}
		if try >= c.MaxRetries {
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
