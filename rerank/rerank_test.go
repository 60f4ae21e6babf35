package rerank_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testkit/modeltest"
	"github.com/recall-engine/recall/rerank"
)

func TestNoneConformance(t *testing.T) {
	t.Parallel()
	modeltest.Reranker(t, rerank.None{}, 0)
	s, _ := rerank.None{}.Score(context.Background(), "q", []string{"a", "b", "c"})
	if got := rerank.Order([]int{0, 1, 2}, s, nil); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("None changed the order: %v", got)
	}
}

func TestOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		n      int
		scores []float32
		direct []bool
		want   []int
	}{
		{"no rerank keeps order", 4, nil, nil, []int{0, 1, 2, 3}},
		{"head by score, tail kept", 5, []float32{0.1, 0.9, 0.5}, nil, []int{1, 2, 0, 3, 4}},
		{"ties keep statement order", 4, []float32{0.5, 0.7, 0.5, 0.7}, nil, []int{1, 3, 0, 2}},
		{"direct sources first", 5, []float32{0.9, 0.1, 0.5}, []bool{false, false, false, true, false}, []int{3, 0, 2, 1, 4}},
		{"reranked direct before unreranked direct", 5, []float32{0.1, 0.2}, []bool{false, false, true, false, true}, []int{2, 4, 1, 0, 3}},
		{"reranked direct by score", 4, []float32{0.2, 0.8, 0.5, 0.1}, []bool{true, true, false, false}, []int{1, 0, 2, 3}},
		{"more scores than candidates", 2, []float32{0.1, 0.2, 0.3}, nil, []int{1, 0}},
		{"empty", 0, nil, nil, []int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items := make([]int, tc.n) // candidates are their statement places
			for i := range items {
				items[i] = i
			}
			var direct func(int) bool
			if tc.direct != nil {
				direct = func(i int) bool { return tc.direct[i] }
			}
			got := rerank.Order(items, tc.scores, direct)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMMR(t *testing.T) {
	t.Parallel()
	texts := []string{
		"aspirin lowers heart attack risk",
		"aspirin lowers heart attack risk in adults", // near-duplicate of 0
		"statins reduce cholesterol",
		"exercise improves sleep",
	}
	if got := mmr(texts, 1); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Fatalf("lambda 1 changed the order: %v", got)
	}
	// At lambda 0.5: after 0, the duplicate scores 0.5*0.667 - 0.5*0.714 < 0 while 2 scores
	// 0.5*0.333 - 0 > 0, so 2 comes next, then 3 (0), then the duplicate.
	if got := mmr(texts, 0.5); !slices.Equal(got, []int{0, 2, 3, 1}) {
		t.Fatalf("lambda 0.5: %v, want [0 2 3 1]", got)
	}
	if got := mmr(nil, 0.5); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
}

// fakeReranker serves /rerank in the TEI or Cohere shape. A document's score is the share
// of query words it contains, so results are checkable; answers come sorted by score, as
// real servers send them.
type fakeReranker struct {
	protocol rerank.Protocol
	calls    atomic.Int32
	failN    int32
	failCode int
	reply    func(w http.ResponseWriter) bool
	maxBatch atomic.Int32
}

func overlap(q, d string) float32 {
	qw := strings.Fields(strings.ToLower(q))
	dw := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(d)) {
		dw[w] = true
	}
	n := 0
	for _, w := range qw {
		if dw[w] {
			n++
		}
	}
	return float32(n) / float32(len(qw))
}

func (f *fakeReranker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	if r.URL.Path != "/v2/rerank" && r.URL.Path != "/rerank" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if n <= f.failN {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "busy", f.failCode)
		return
	}
	if f.reply != nil && f.reply(w) {
		return
	}
	var in struct {
		Query     string   `json:"query"`
		Texts     []string `json:"texts"`
		Documents []string `json:"documents"`
		Model     string   `json:"model"`
		TopN      int      `json:"top_n"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	docs := in.Texts
	if f.protocol == rerank.Cohere {
		if in.Model == "" || in.TopN != len(in.Documents) {
			http.Error(w, "model and top_n required", http.StatusBadRequest)
			return
		}
		docs = in.Documents
	}
	if int32(len(docs)) > f.maxBatch.Load() {
		f.maxBatch.Store(int32(len(docs)))
	}
	idx := make([]int, len(docs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return overlap(in.Query, docs[idx[a]]) > overlap(in.Query, docs[idx[b]]) })
	if f.protocol == rerank.Cohere {
		type res struct {
			Index int     `json:"index"`
			Score float32 `json:"relevance_score"`
		}
		out := struct {
			Results []res `json:"results"`
		}{}
		for _, i := range idx {
			out.Results = append(out.Results, res{i, overlap(in.Query, docs[i])})
		}
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	type res struct {
		Index int     `json:"index"`
		Score float32 `json:"score"`
	}
	out := []res{}
	for _, i := range idx {
		out = append(out, res{i, overlap(in.Query, docs[i])})
	}
	_ = json.NewEncoder(w).Encode(out)
}

func newFake(t *testing.T, p rerank.Protocol) (*fakeReranker, *httptest.Server, rerank.HTTPConfig) {
	f := &fakeReranker{protocol: p}
	s := httptest.NewServer(f)
	t.Cleanup(s.Close)
	cfg := rerank.HTTPConfig{BaseURL: s.URL, Protocol: p, MaxRetries: 3, BatchSize: 4}
	if p == rerank.Cohere {
		cfg.BaseURL, cfg.Model = s.URL+"/v2", "rerank-v3.5"
	}
	return f, s, cfg
}

func TestHTTPConformance(t *testing.T) {
	t.Parallel()
	for _, p := range []rerank.Protocol{rerank.TEI, rerank.Cohere} {
		t.Run(string(p), func(t *testing.T) {
			f, _, cfg := newFake(t, p)
			r, err := rerank.NewHTTP(cfg)
			if err != nil {
				t.Fatal(err)
			}
			modeltest.Reranker(t, r, 0)
			if f.maxBatch.Load() != 4 {
				t.Fatalf("largest request had %d documents, BatchSize 4", f.maxBatch.Load())
			}
			docs := []string{"nothing here", "aspirin heart", "does aspirin lower heart risk", "x", "lower"}
			got, err := r.Score(context.Background(), "does aspirin lower heart risk", docs)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range docs {
				if want := overlap("does aspirin lower heart risk", d); got[i] != want {
					t.Fatalf("document %d: %v, want %v", i, got[i], want)
				}
			}
		})
	}
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	docs := []string{"a", "b"}
	t.Run("retries 429 and 503 then succeeds", func(t *testing.T) {
		for _, code := range []int{429, 503} {
			f, _, cfg := newFake(t, rerank.TEI)
			f.failN, f.failCode = 2, code
			r, _ := rerank.NewHTTP(cfg)
			if _, err := r.Score(ctx, "q", docs); err != nil || f.calls.Load() != 3 {
				t.Fatalf("%d: %v after %d calls", code, err, f.calls.Load())
			}
		}
	})
	t.Run("4xx is not retried", func(t *testing.T) {
		f, _, cfg := newFake(t, rerank.Cohere)
		f.failN, f.failCode = 100, 400
		r, _ := rerank.NewHTTP(cfg)
		_, err := r.Score(ctx, "q", docs)
		var he *rerank.HTTPError
		if !errors.As(err, &he) || he.Status != 400 || f.calls.Load() != 1 || !strings.HasPrefix(err.Error(), "rerank:") {
			t.Fatalf("err %v after %d calls", err, f.calls.Load())
		}
	})
	t.Run("gives up after MaxRetries", func(t *testing.T) {
		f, _, cfg := newFake(t, rerank.TEI)
		f.failN, f.failCode = 100, 502
		r, _ := rerank.NewHTTP(cfg)
		_, err := r.Score(ctx, "q", docs)
		var he *rerank.HTTPError
		if !errors.As(err, &he) || he.Status != 502 || f.calls.Load() != 4 {
			t.Fatalf("err %v after %d calls", err, f.calls.Load())
		}
	})
	for name, c := range map[string]struct {
		p    rerank.Protocol
		body string
	}{
		"malformed JSON":  {rerank.TEI, `[{"index": 0,`},
		"too few":         {rerank.TEI, `[{"index": 0, "score": 1}]`},
		"repeated index":  {rerank.TEI, `[{"index": 0, "score": 1}, {"index": 0, "score": 2}]`},
		"index too large": {rerank.Cohere, `{"results": [{"index": 0, "relevance_score": 1}, {"index": 2, "relevance_score": 1}]}`},
		"missing score":   {rerank.Cohere, `{"results": [{"index": 0, "relevance_score": 1}, {"index": 1}]}`},
		"wrong shape":     {rerank.Cohere, `[{"index": 0, "score": 1}, {"index": 1, "score": 1}]`},
	} {
		t.Run(name, func(t *testing.T) {
			f, _, cfg := newFake(t, c.p)
			f.reply = func(w http.ResponseWriter) bool { _, _ = w.Write([]byte(c.body)); return true }
			r, _ := rerank.NewHTTP(cfg)
			_, err := r.Score(ctx, "q", docs)
			var he *rerank.HTTPError
			if !errors.As(err, &he) || he.Status != 0 {
				t.Fatalf("err %v, want a malformed-response HTTPError", err)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		f, _, cfg := newFake(t, rerank.TEI)
		f.reply = func(http.ResponseWriter) bool { time.Sleep(300 * time.Millisecond); return false }
		cfg.Timeout, cfg.MaxRetries = 50*time.Millisecond, -1
		r, _ := rerank.NewHTTP(cfg)
		if _, err := r.Score(ctx, "q", docs); err == nil || !strings.Contains(err.Error(), "Timeout") {
			t.Fatalf("err %v, want a timeout", err)
		}
	})
	t.Run("config", func(t *testing.T) {
		for _, c := range []rerank.HTTPConfig{{}, {BaseURL: "http://x", Protocol: "grpc"}, {BaseURL: "http://x", Protocol: rerank.Cohere},
			{BaseURL: "http://x", APIKeyEnv: "RECALL_SURELY_UNSET_VAR"}} {
			if _, err := rerank.NewHTTP(c); err == nil {
				t.Fatalf("%+v accepted", c)
			}
		}
	})
}

// mmr runs rerank.MMR over texts and returns the picks as indexes into texts.
func mmr(texts []string, lambda float64) []int {
	idx := make([]int, len(texts))
	for i := range idx {
		idx[i] = i
	}
	return rerank.MMR(idx, func(i int) string { return texts[i] }, lambda)
}
