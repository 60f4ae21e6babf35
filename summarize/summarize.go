// Package summarize groups a scope set's memories and writes the summary of each group.
// Groups are sessions (a source's memories in their places' order) and entity communities
// (label propagation over the relation graph), read as the caller under row security
// (ReadInput). A summary is written extractively, the group's most central sentences by a
// TextRank score within a token cap (no model), or through an OpenAI-compatible chat
// completions server. Storing the summaries is the engine's (Engine.Summarize, one batch).
package summarize

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/internal/httpx"
)

// Summarizer writes one summary of texts (a group's memories, in order) in at most
// maxTokens tokens as counted by the engine's counter.
type Summarizer interface {
	Summarize(ctx context.Context, texts []string, maxTokens int) (string, error)
	// Name identifies the summarizer in the summaries' metadata.
	Name() string
}

// Extractive is the built-in summarizer: TextRank over the group's sentences.
type Extractive struct {
	Tokens budget.TokenCounter // nil: budget.Bytes4
}

// Name implements Summarizer.
func (Extractive) Name() string { return "textrank" }

// Summarize implements Summarizer: the sentences with the most TextRank mass, taken best
// first while they fit maxTokens (each that fits is taken), skipping one that repeats a
// sentence taken (Redundant) and one that shares no word with any other sentence of the
// group (it is not about what the group is about; when no sentence shares one, all are
// candidates), given in the group's order and joined by a space. A sentence
// longer than the cap is never cut: the summary is made only of whole sentences of the group.
func (x Extractive) Summarize(_ context.Context, texts []string, maxTokens int) (string, error) {
	c := x.Tokens
	if c == nil {
		c = budget.Bytes4{}
	}
	sents := Sentences(texts)
	if len(sents) == 0 {
		return "", errors.New("summarize: the group has no sentence")
	}
	score := TextRank(sents)
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	var keep []int
	left := maxTokens
	words := make([][]string, len(sents))
	for i, x := range sents {
		words[i] = Words(x)
	}
	linked := make([]bool, len(sents))
	anyLinked := false
	for i := range sents {
		for j := range sents {
			if i != j && slices.ContainsFunc(words[i], func(w string) bool { return slices.Contains(words[j], w) }) {
				linked[i], anyLinked = true, true
				break
			}
		}
	}
	for _, i := range order {
		if (anyLinked && !linked[i]) || slices.ContainsFunc(keep, func(k int) bool { return Redundant(words[i], words[k]) }) {
			continue
		}
		// Joined by a space: count the sentence with it, except the first.
		n := c.Count(sents[i])
		if len(keep) > 0 {
			n = c.Count(" " + sents[i])
		}
		if n <= left {
			keep = append(keep, i)
			left -= n
		}
	}
	if len(keep) == 0 {
		return "", fmt.Errorf("summarize: no sentence of the group fits %d tokens", maxTokens)
	}
	slices.Sort(keep)
	parts := make([]string, len(keep))
	for i, k := range keep {
		parts[i] = sents[k]
	}
	return strings.Join(parts, " "), nil
}

// Redundant reports whether a sentence of words a repeats one of words b: more than half of
// the shorter one's words are in the other.
func Redundant(a, b []string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	shared := 0
	for _, w := range a {
		if slices.Contains(b, w) {
			shared++
		}
	}
	return len(a) > 0 && 2*shared > len(a)
}

// Sentences splits texts into sentences: at ., ! or ? followed by a space or the end, and at
// line breaks, trimmed, without empty ones and without repeats (the first is kept).
func Sentences(texts []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
	}
	for _, t := range texts {
		for line := range strings.SplitSeq(t, "\n") {
			rs := []rune(line)
			start := 0
			for i, r := range rs {
				if (r == '.' || r == '!' || r == '?') && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) {
					add(string(rs[start : i+1]))
					start = i + 1
				}
			}
			add(string(rs[start:]))
		}
	}
	return out
}

// Words are a sentence's lowered words of at least three letters or digits, each once.
func Words(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 3 && !stop[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("the and for are but not you all any can her was one our out has had his how its may who did yes get got that this with have from they them then than what when your were will would there their been into about just also some like very much more which these those because could should really") {
		m[w] = true
	}
	return m
}()

// Damping and Iterations are TextRank's PageRank settings.
const (
	Damping    = 0.85
	Iterations = 50
)

// TextRank scores sentences by PageRank over their similarity graph (Mihalcea and Tarau,
// 2004): two sentences are joined with weight |shared words| / (ln|Si| + ln|Sj|), and
//
//	s' = (1 - d) / n + d * W s
//
// with W each sentence's edge weights normalized over its edges; a sentence without edges
// keeps (1 - d) / n, and its mass is spread evenly (so the scores sum to 1).
func TextRank(sents []string) []float64 {
	n := len(sents)
	words := make([]map[string]bool, n)
	for i, s := range sents {
		words[i] = map[string]bool{}
		for _, w := range Words(s) {
			words[i][w] = true
		}
	}
	w := make([][]float64, n)
	out := make([]float64, n) // each sentence's total edge weight
	for i := range w {
		w[i] = make([]float64, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			shared := 0
			for x := range words[i] {
				if words[j][x] {
					shared++
				}
			}
			den := math.Log(float64(len(words[i]))) + math.Log(float64(len(words[j])))
			if shared == 0 || den <= 0 {
				continue
			}
			w[i][j], w[j][i] = float64(shared)/den, float64(shared)/den
			out[i] += w[i][j]
			out[j] += w[i][j]
		}
	}
	s := make([]float64, n)
	for i := range s {
		s[i] = 1 / float64(n)
	}
	for range Iterations {
		next := make([]float64, n)
		dangling := 0.0
		for j := range n {
			if out[j] == 0 {
				dangling += s[j]
			}
		}
		for i := range n {
			sum := 0.0
			for j := range n {
				if w[j][i] > 0 {
					sum += w[j][i] / out[j] * s[j]
				}
			}
			next[i] = (1-Damping)/float64(n) + Damping*(sum+dangling/float64(n))
		}
		s = next
	}
	return s
}

// ChatConfig configures an OpenAI-compatible chat completions server (POST
// {BaseURL}/chat/completions with {"model", "messages"}, answered with {"choices":
// [{"message": {"content"}}]}).
type ChatConfig struct {
	BaseURL    string        // e.g. http://localhost:11434/v1 (required)
	Model      string        // model name sent to the server (required)
	APIKeyEnv  string        // environment variable holding the bearer token ("" for none)
	Timeout    time.Duration // per request (0: 30s)
	MaxRetries int           // retries on 429, 5xx and network errors (0: 4; <0: none)
	Client     *http.Client  // nil: a client with Timeout
	Tokens     budget.TokenCounter
}

// Chat summarizes through a chat completions server.
type Chat struct {
	cfg    ChatConfig
	client *httpx.Client
}

// HTTPError is a response the server refused (Status is the HTTP status) or garbled
// (Status 0), with what it said.
type HTTPError = httpx.Error

// NewChat checks cfg and returns the summarizer; the API key is read from the environment now.
func NewChat(cfg ChatConfig) (*Chat, error) {
	switch {
	case cfg.BaseURL == "":
		return nil, errors.New("summarize: chat: BaseURL is required")
	case cfg.Model == "":
		return nil, errors.New("summarize: chat: Model is required")
	}
	if cfg.Tokens == nil {
		cfg.Tokens = budget.Bytes4{}
	}
	c, err := httpx.New("summarize", httpx.Options{APIKeyEnv: cfg.APIKeyEnv, Timeout: cfg.Timeout, MaxRetries: cfg.MaxRetries, Client: cfg.Client})
	if err != nil {
		return nil, err
	}
	return &Chat{cfg: cfg, client: c}, nil
}

// Name implements Summarizer.
func (c *Chat) Name() string { return "chat:" + c.cfg.Model }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// Summarize implements Summarizer: one request at temperature 0. An answer over maxTokens
// is an error, not cut: a summary is stored as the model wrote it or not at all.
func (c *Chat) Summarize(ctx context.Context, texts []string, maxTokens int) (string, error) {
	prompt := fmt.Sprintf("Summarize these %d notes of one conversation or document in at most %d words. "+
		"Keep names, dates and facts; write only the summary.\n\n%s", len(texts), max(1, maxTokens/2), strings.Join(texts, "\n"))
	s, err := c.ask(ctx, prompt)
	if err != nil {
		return "", err
	}
	switch n := c.cfg.Tokens.Count(s); {
	case s == "":
		return "", c.client.Malformed("an empty summary")
	case n > maxTokens:
		return "", c.client.Malformed("a summary of %d tokens, the cap is %d", n, maxTokens)
	}
	return s, nil
}

// ask sends one prompt at temperature 0 and returns the answer's text, trimmed.
func (c *Chat) ask(ctx context.Context, prompt string) (string, error) {
	in := chatRequest{Model: c.cfg.Model, Messages: []chatMessage{{Role: "user", Content: prompt}}}
	var out chatResponse
	url := strings.TrimRight(c.cfg.BaseURL, "/") + "/chat/completions"
	if err := c.client.PostJSON(ctx, url, in, &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 {
		return "", c.client.Malformed("no choices")
	}
	return strings.TrimSpace(out.Choices[0].Message.Content), nil
}

// Supersessions asks the model which of the numbered statements about one subject (oldest
// first) a later statement replaces, and returns its answer's "OLD -> NEW" lines as 0-based
// pairs. A line it cannot read, a number out of range, or a statement said to replace itself
// or a later one is counted in bad, never guessed at; "none" is no pair.
func (c *Chat) Supersessions(ctx context.Context, about string, statements []string) (pairs [][2]int, bad int, err error) {
	var b strings.Builder
	for i, s := range statements {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.ReplaceAll(s, "\n", " "))
	}
	prompt := fmt.Sprintf("These statements about %s are in the order they were made. Which of them are no longer true "+
		"because a later statement replaces them (a new address, job, plan or value of the same thing)? Answer one line per "+
		"replaced statement as OLD -> NEW with their numbers, or the word none. Do not list statements that are still true.\n\n%s",
		about, b.String())
	answer, err := c.ask(ctx, prompt)
	if err != nil {
		return nil, 0, err
	}
	for _, line := range strings.Split(answer, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.EqualFold(strings.Trim(line, "."), "none") {
			continue
		}
		var o, n int
		if _, err := fmt.Sscanf(line, "%d -> %d", &o, &n); err != nil || o < 1 || n < 1 || o > len(statements) || n > len(statements) || n <= o {
			bad++
			continue
		}
		pairs = append(pairs, [2]int{o - 1, n - 1})
	}
	return pairs, bad, nil
}
