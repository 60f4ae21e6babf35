package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/modeltest"
)

func TestHashingConformance(t *testing.T) {
	h, err := embed.NewHashing(0)
	if err != nil {
		t.Fatal(err)
	}
	modeltest.Embedder(t, h, 0)
	if _, err := embed.NewHashing(5000); err == nil {
		t.Fatal("dimension 5000 accepted")
	}
}

// TestHashingSimilarity: inflected forms and shared words bring texts closer.
func TestHashingSimilarity(t *testing.T) {
	h, _ := embed.NewHashing(0)
	q, err := h.Embed(context.Background(), []string{"treating infected cells"}, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	v, err := h.Embed(context.Background(), []string{
		"treating infected cells", "the treatment of an infection in a cell", "stock markets fell sharply",
	}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	v[0] = q[0] // a query against documents, the engine's use
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if !(dot(v[0], v[1]) > 0.2 && dot(v[0], v[1]) > 3*dot(v[0], v[2])) {
		t.Fatalf("related %v, unrelated %v", dot(v[0], v[1]), dot(v[0], v[2]))
	}
}

// fakeOpenAI speaks /v1/embeddings: each vector is the hashing embedder's, so results are
// checkable; fail makes the first n requests answer with status code.
type fakeOpenAI struct {
	h        *embed.Hashing
	calls    atomic.Int32
	failN    int32
	failCode int
	reply    func(w http.ResponseWriter, in []string) bool // custom reply; true if handled
	gotKey   atomic.Value
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	f.gotKey.Store(r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", 404)
		return
	}
	if n <= f.failN {
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":"busy"}`, f.failCode)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
		http.Error(w, "bad request", 400)
		return
	}
	if f.reply != nil && f.reply(w, req.Input) {
		return
	}
	vs, _ := f.h.Embed(r.Context(), req.Input, embed.Document)
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
		Object    string    `json:"object"`
	}
	out := struct {
		Data []item `json:"data"`
	}{}
	// Answer in reverse order: clients must use index.
	for i := len(vs) - 1; i >= 0; i-- {
		v := make([]float32, len(vs[i]))
		for j := range v {
			v[j] = 3 * vs[i][j] // not unit length: the client normalizes
		}
		out.Data = append(out.Data, item{i, v, "embedding"})
	}
	_ = json.NewEncoder(w).Encode(out)
}

func newFake(t *testing.T) (*fakeOpenAI, *httptest.Server) {
	h, _ := embed.NewHashing(64)
	f := &fakeOpenAI{h: h}
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	return f, s
}

func TestHTTPConformance(t *testing.T) {
	f, s := newFake(t)
	t.Setenv("TEST_EMBED_KEY", "sekret")
	e, err := embed.NewHTTP(embed.HTTPConfig{BaseURL: s.URL + "/v1", Model: "m", Dim: 64, APIKeyEnv: "TEST_EMBED_KEY", BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	modeltest.Embedder(t, e, 1e-6)
	if got := f.gotKey.Load(); got != "Bearer sekret" {
		t.Fatalf("Authorization %q", got)
	}
	// Equal to the hashing vectors the server computed, in input order across batches.
	texts := []string{"one text", "another text", "a third", "fourth"}
	got, err := e.Embed(context.Background(), texts, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := f.h.Embed(context.Background(), texts, embed.Document)
	for i := range want {
		for j := range want[i] {
			if d := got[i][j] - want[i][j]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("text %d differs at %d", i, j)
			}
		}
	}
}

func TestHTTPErrors(t *testing.T) {
	ctx := context.Background()
	cfg := func(url string) embed.HTTPConfig {
		return embed.HTTPConfig{BaseURL: url + "/v1", Model: "m", Dim: 64, MaxRetries: 3}
	}
	t.Run("retries 429 and 503 then succeeds", func(t *testing.T) {
		for _, code := range []int{429, 503} {
			f, s := newFake(t)
			f.failN, f.failCode = 2, code
			e, _ := embed.NewHTTP(cfg(s.URL))
			if _, err := e.Embed(ctx, []string{"hello"}, embed.Query); err != nil {
				t.Fatalf("%d: %v", code, err)
			}
			if f.calls.Load() != 3 {
				t.Fatalf("%d: %d calls, want 3", code, f.calls.Load())
			}
		}
	})
	t.Run("gives up after MaxRetries", func(t *testing.T) {
		f, s := newFake(t)
		f.failN, f.failCode = 100, 500
		e, _ := embed.NewHTTP(cfg(s.URL))
		_, err := e.Embed(ctx, []string{"hello"}, embed.Query)
		var he *embed.HTTPError
		if !errors.As(err, &he) || he.Status != 500 || f.calls.Load() != 4 {
			t.Fatalf("err %v after %d calls", err, f.calls.Load())
		}
	})
	t.Run("4xx is not retried", func(t *testing.T) {
		f, s := newFake(t)
		f.failN, f.failCode = 100, 401
		e, _ := embed.NewHTTP(cfg(s.URL))
		_, err := e.Embed(ctx, []string{"hello"}, embed.Query)
		var he *embed.HTTPError
		if !errors.As(err, &he) || he.Status != 401 || f.calls.Load() != 1 {
			t.Fatalf("err %v after %d calls", err, f.calls.Load())
		}
	})
	for name, body := range map[string]string{
		"malformed JSON": `{"data": [`,
		"too few":        `{"data": []}`,
		"wrong length":   `{"data": [{"index": 0, "embedding": [1, 2, 3]}]}`,
		"bad index":      `{"data": [{"index": 7, "embedding": [` + strings.Repeat("1,", 63) + `1]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			f, s := newFake(t)
			f.reply = func(w http.ResponseWriter, _ []string) bool { _, _ = w.Write([]byte(body)); return true }
			e, _ := embed.NewHTTP(cfg(s.URL))
			_, err := e.Embed(ctx, []string{"hello"}, embed.Query)
			var he *embed.HTTPError
			if !errors.As(err, &he) || he.Status != 0 {
				t.Fatalf("err %v, want a malformed-response HTTPError", err)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		f, s := newFake(t)
		f.reply = func(w http.ResponseWriter, _ []string) bool { time.Sleep(300 * time.Millisecond); return false }
		c := cfg(s.URL)
		c.Timeout, c.MaxRetries = 50*time.Millisecond, -1
		e, _ := embed.NewHTTP(c)
		if _, err := e.Embed(ctx, []string{"hello"}, embed.Query); err == nil || !strings.Contains(err.Error(), "Timeout") {
			t.Fatalf("err %v, want a timeout", err)
		}
	})
	t.Run("config", func(t *testing.T) {
		for _, c := range []embed.HTTPConfig{{Model: "m", Dim: 8}, {BaseURL: "http://x", Dim: 8}, {BaseURL: "http://x", Model: "m"},
			{BaseURL: "http://x", Model: "m", Dim: 8, APIKeyEnv: "RECALL_SURELY_UNSET_VAR"}} {
			if _, err := embed.NewHTTP(c); err == nil {
				t.Fatalf("%+v accepted", c)
			}
		}
	})
}

// TestHashingPivot: with the pivot a document's similarity is plain cosine times
// |d| / sqrt(|d|^2 + pivot^2), so of two documents that hold the query's words equally, the
// one with many other words loses far less to the short one than under plain cosine (whose
// ratio is the ratio of their norms); a query's vector has no pivot.
func TestHashingPivot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	plain := h.WithPivot(0)
	q := "harbor lighthouse storm"
	short := "The harbor lighthouse in the storm."
	var filler []string
	for i := range 80 {
		filler = append(filler, fmt.Sprintf("cargo%dx", i))
	}
	long := "The harbor lighthouse in the storm. " + strings.Join(filler, " ")
	sim := func(e *embed.Hashing, doc string) float64 {
		v, err := e.Embed(ctx, []string{q, doc}, embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		d, err := e.Embed(ctx, []string{doc}, embed.Document)
		if err != nil {
			t.Fatal(err)
		}
		var s float64
		for i := range v[0] {
			s += float64(v[0][i]) * float64(d[0][i])
		}
		return s
	}
	plainRatio, pivotRatio := sim(plain, short)/sim(plain, long), sim(h, short)/sim(h, long)
	if !(plainRatio > 3 && pivotRatio < 1.5 && pivotRatio > 1) {
		t.Fatalf("short over long: plain cosine %.3f, with the pivot %.3f; want over 3 and in (1, 1.5)", plainRatio, pivotRatio)
	}
	// The exact relation, through a text's pivot-free vector: the last component of a
	// document vector is pivot / sqrt(|d|^2 + pivot^2).
	for _, doc := range []string{short, long} {
		d, _ := h.Embed(ctx, []string{doc}, embed.Document)
		last := float64(d[0][len(d[0])-1])
		norm := embed.DefaultHashingPivot * math.Sqrt(1-last*last) / last // |d| from the pivot's share
		want := sim(plain, doc) * norm / math.Sqrt(norm*norm+embed.DefaultHashingPivot*embed.DefaultHashingPivot)
		if got := sim(h, doc); math.Abs(got-want) > 1e-5 {
			t.Fatalf("%q: similarity %.6f, plain cosine scaled %.6f", doc, got, want)
		}
		qv, _ := h.Embed(ctx, []string{doc}, embed.Query)
		if qv[0][len(qv[0])-1] != 0 {
			t.Fatal("a query vector has a pivot")
		}
	}
}
