package summarize_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/recall-engine/recall/summarize"
)

func TestSentences(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{[]string{"One. Two! Three?"}, []string{"One.", "Two!", "Three?"}},
		{[]string{"Dr.Who stays whole. Next"}, []string{"Dr.Who stays whole.", "Next"}},
		{[]string{"line one\nline two."}, []string{"line one", "line two."}},
		{[]string{"Same.", "Same.", " "}, []string{"Same."}},
		{[]string{"3.5 is a number. Yes..."}, []string{"3.5 is a number.", "Yes..."}},
		{nil, nil},
	} {
		if got := summarize.Sentences(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Sentences(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// referenceRank is TextRank as a dense matrix power iteration: M[i][j] is the share of j's
// mass that goes to i (its edge weight over j's total; 1/n for a j without edges), and
// s = (1-d)/n + d M s.
func referenceRank(sents []string) []float64 {
	n := len(sents)
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	sim := func(a, b []string) float64 {
		shared := 0
		for _, x := range a {
			if slices.Contains(b, x) {
				shared++
			}
		}
		den := math.Log(float64(len(a))) + math.Log(float64(len(b)))
		if shared == 0 || den <= 0 {
			return 0
		}
		return float64(shared) / den
	}
	for j := range n {
		total := 0.0
		for i := range n {
			if i != j {
				total += sim(summarize.Words(sents[i]), summarize.Words(sents[j]))
			}
		}
		for i := range n {
			switch {
			case total == 0:
				m[i][j] = 1 / float64(n)
			case i != j:
				m[i][j] = sim(summarize.Words(sents[i]), summarize.Words(sents[j])) / total
			}
		}
	}
	s := make([]float64, n)
	for i := range s {
		s[i] = 1 / float64(n)
	}
	for range summarize.Iterations {
		next := make([]float64, n)
		for i := range n {
			next[i] = (1 - summarize.Damping) / float64(n)
			for j := range n {
				next[i] += summarize.Damping * m[i][j] * s[j]
			}
		}
		s = next
	}
	return s
}

func TestTextRankMatchesReference(t *testing.T) {
	words := strings.Fields("glacier lantern violin orchard compass falcon meadow copper ember river castle harbor")
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		sents := make([]string, 3+r.IntN(12))
		for i := range sents {
			ws := make([]string, 1+r.IntN(6))
			for k := range ws {
				ws[k] = words[r.IntN(len(words))]
			}
			sents[i] = strings.Join(ws, " ") + "."
		}
		got, want := summarize.TextRank(sents), referenceRank(sents)
		sum := 0.0
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("trial %d, sentence %d: %v, reference %v", trial, i, got[i], want[i])
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("trial %d: scores sum to %v", trial, sum)
		}
	}
}

func TestExtractive(t *testing.T) {
	texts := []string{
		"Ana adopted a beagle named Rex. The weather was grey.",
		"Rex the beagle loves the park. Bo bought bread.",
		"Ana walks Rex the beagle every morning in the park.",
	}
	x := summarize.Extractive{}
	s, err := x.Summarize(context.Background(), texts, 30)
	if err != nil {
		t.Fatal(err)
	}
	own := summarize.Sentences(texts)
	got := summarize.Sentences([]string{s})
	last := -1
	for _, g := range got {
		i := slices.Index(own, g)
		if i < 0 {
			t.Fatalf("sentence %q is not the group's", g)
		}
		if i <= last {
			t.Fatalf("sentences out of the group's order: %q", s)
		}
		last = i
	}
	if n := (len(s) + 3) / 4; n > 30 {
		t.Fatalf("%d tokens over the cap of 30: %q", n, s)
	}
	if !strings.Contains(s, "beagle") || strings.Contains(s, "grey") {
		t.Errorf("the summary %q misses the group's centre (the beagle) or keeps its margin (the weather)", s)
	}
	again, _ := x.Summarize(context.Background(), texts, 30)
	if again != s {
		t.Errorf("not deterministic: %q then %q", s, again)
	}
	if _, err := x.Summarize(context.Background(), texts, 2); err == nil {
		t.Error("a cap no sentence fits: no error")
	}
}

func TestChat(t *testing.T) {
	var calls atomic.Int32
	var answer atomic.Value
	answer.Store("Ana has a beagle.")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k3y" {
			http.Error(w, "wrong path or key", http.StatusBadRequest)
			return
		}
		var in struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Model != "m" || len(in.Messages) != 1 || !strings.Contains(in.Messages[0].Content, "Rex") {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		if n == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer.Load()}}}})
	}))
	defer srv.Close()
	t.Setenv("CHAT_KEY", "k3y")
	c, err := summarize.NewChat(summarize.ChatConfig{BaseURL: srv.URL + "/v1", Model: "m", APIKeyEnv: "CHAT_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Summarize(context.Background(), []string{"Ana adopted Rex."}, 50)
	if err != nil || s != "Ana has a beagle." || calls.Load() != 2 {
		t.Fatalf("got %q, %v after %d calls; want the answer after one retry", s, err, calls.Load())
	}
	answer.Store(strings.Repeat("long ", 100))
	_, err = c.Summarize(context.Background(), []string{"Ana adopted Rex."}, 50)
	var he *summarize.HTTPError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "cap") {
		t.Errorf("an answer over the cap: %v, want a typed error naming the cap", err)
	}
	bad, _ := summarize.NewChat(summarize.ChatConfig{BaseURL: srv.URL + "/wrong", Model: "m", APIKeyEnv: "CHAT_KEY"})
	if _, err := bad.Summarize(context.Background(), []string{"x"}, 50); !errors.As(err, &he) || he.Status != http.StatusBadRequest {
		t.Errorf("a refused request: %v, want an HTTPError with status 400", err)
	}
	if _, err := summarize.NewChat(summarize.ChatConfig{Model: "m"}); err == nil {
		t.Error("no BaseURL: no error")
	}
}
