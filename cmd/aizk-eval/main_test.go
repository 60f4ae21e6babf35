package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

const toy = "../../testdata/beir-toy"

// run runs aizk-eval with RECALL_DATABASE_URL set to url.
func run(t *testing.T, url string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	m := &Main{cli.Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "RECALL_DATABASE_URL" {
			return url
		}
		return ""
	}}}
	code := m.Run(context.Background(), args)
	return out.String(), errOut.String(), code
}

// adminURL is the test server's superuser URL: datasets get databases of their own, which
// need the extensions a superuser creates.
func adminURL(t *testing.T) string {
	t.Helper()
	testdb.AdminConfig(t) // skips (or fails under CI) without a server
	return os.Getenv(testdb.EnvURL)
}

func TestBenchStudyOnToy(t *testing.T) {
	t.Parallel()
	url := adminURL(t)
	dir := t.TempDir()
	js, md := filepath.Join(dir, "out.json"), filepath.Join(dir, "report.md")
	for round := range 2 { // the second run reuses the ingested database
		args := []string{"bench", "--dataset", toy, "--plans", "study", "--json", js, "--report", md, "--scope-field", "team"}
		if round == 1 {
			args = append(args, "--per-query")
		}
		out, errOut, code := run(t, url, args...)
		if code != 0 {
			t.Fatalf("round %d: exit %d: %s", round, code, errOut)
		}
		if b, err := os.ReadFile(js); err != nil || strings.Contains(string(b), "per_query") != (round == 1) {
			t.Fatalf("round %d: per_query in the JSON only with --per-query: %v", round, err)
		}
		if round == 1 && !strings.Contains(errOut, "reusing database") {
			t.Fatalf("second run did not reuse the database: %s", errOut)
		}
		if !strings.Contains(out, "| maximal |") || !strings.Contains(out, "| -graph |") {
			t.Fatalf("table: %s", out)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Dataset string `json:"dataset"`
		Queries int    `json:"queries"`
		Plans   []struct {
			Plan    string             `json:"plan"`
			Metrics map[string]float64 `json:"metrics"`
			Queries []map[string]any   `json:"per_query"`
		} `json:"plans"`
		Significance []map[string]any `json:"significance"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	// The study: maximal, each lane alone, maximal minus each lane, then the exact vector
	// search baseline; each arm against maximal.
	arms := 1 + 2*statement.NumLanes + 1
	if rep.Dataset != "beir-toy" || rep.Queries != 6 || len(rep.Plans) != arms || len(rep.Significance) != arms-1 ||
		rep.Plans[arms-1].Plan != "exact-vector" {
		t.Fatalf("report: %s", b)
	}
	for _, p := range rep.Plans {
		if len(p.Metrics) != len(eval.Metrics) || len(p.Queries) != 6 {
			t.Fatalf("plan %s: %d metrics, %d queries", p.Plan, len(p.Metrics), len(p.Queries))
		}
	}
	// Scoped by team, each query sees its team's six documents only; its relevant ones are
	// among them, so the maximal arm finds every relevant document within 100.
	if rep.Plans[0].Plan != "maximal" || rep.Plans[0].Metrics["recall@100"] != 1 || rep.Plans[0].Metrics["ndcg@10"] < 0.6 {
		t.Fatalf("maximal: %v", rep.Plans[0])
	}
	for _, f := range []string{md, strings.TrimSuffix(md, ".md") + ".svg"} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}
	// The query of the blue team about aspirin sees no red document.
	out, errOut, code := run(t, url, "trace", "--dataset", toy, "--scope-field", "team", "--query-id", "q6", "--json")
	if code != 0 {
		t.Fatalf("trace: exit %d: %s", code, errOut)
	}
	var tr struct {
		Candidates []struct {
			ID string `json:"id"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Candidates) == 0 {
		t.Fatal("no candidates")
	}
	blue := map[string]bool{"d07": true, "d08": true, "d09": true, "d10": true, "d11": true, "d12": true}
	for _, c := range tr.Candidates {
		if !blue[c.ID] {
			t.Fatalf("the blue team's trace shows %s", c.ID)
		}
	}
	out, _, code = run(t, url, "trace", "--dataset", toy, "--scope-field", "team", "--query-id", "q1")
	if code != 0 || !strings.Contains(out, "why the first relevant document ranked where it did") || !strings.Contains(out, "memory ") {
		t.Fatalf("trace q1: %s", out)
	}
}

// TestTraceNeverWarms: tracing a question over a live database changes no access count,
// where the same question through Recall does.
func TestTraceNeverWarms(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	user := recall.User{ID: "u", Read: []string{"default"}, Write: []string{"default"}}
	if _, err := e.Write(ctx, user, recall.Batch{Memories: []recall.Memory{
		{ID: "standup-0114:1", Text: "Nadia Okafor kept the boats in port during the storm."},
		{ID: "standup-0114:2", Text: "The ferry to Gull Island was cancelled for two days after the storm."},
	}}); err != nil {
		t.Fatal(err)
	}
	accesses := func() int {
		var n int
		if err := db.Owner.QueryRow(ctx, `SELECT coalesce(sum(access_count), 0) FROM recall.memory_access`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	out, errOut, code := run(t, db.URL("recall_owner"), "trace", "what happened during the storm?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"vector (", "bm25 (", "fused order", "packed 2 items", "timings ms", "standup-0114:1 ", "standup-0114:2 ",
		"not run, as they can find nothing for this question: temporal\n"} { // the question names no time
		if !strings.Contains(out, want) {
			t.Fatalf("trace lacks %q:\n%s", want, out)
		}
	}
	if n := accesses(); n != 0 {
		t.Fatalf("the trace recorded %d accesses", n)
	}
	p, err := e.Recall(ctx, user, "what happened during the storm?", 1000, &recall.Options{Now: time.Now()})
	if err != nil || p.Accessed != 2 || accesses() != 2 {
		t.Fatalf("recall: %v, accessed %d, counted %d", err, p.Accessed, accesses())
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"nope"}, {"bench"}, {"bench", "--dataset", toy, "--plans", "bm26"}, {"plans"}, {"trace"}, {"trace", "a", "b"}, {"trace", "--query-id", "q1"}} {
		if _, _, code := run(t, "", args...); code != 2 {
			t.Fatalf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestTuneReproduces: tune fits the fusion on the toy's judged queries and writes settings;
// bench with those settings measures the metric tune reported for them, and tune starting
// from them finds nothing better.
func TestTuneReproduces(t *testing.T) {
	t.Parallel()
	url := adminURL(t)
	out := filepath.Join(t.TempDir(), "fitted.json")
	stdout, errOut, code := run(t, url, "tune", "--dataset", toy, "--scope-field", "team", "--metric", "mrr@10", "--out", out)
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, errOut)
	}
	var before, after float64
	if _, err := fmt.Sscanf(stdout[strings.Index(stdout, "): ")+3:], "%f with the starting settings, %f fitted", &before, &after); err != nil {
		t.Fatalf("tune printed %q: %v", stdout, err)
	}
	if after < before {
		t.Fatalf("fitted %v below the start %v", after, before)
	}
	s, err := statement.LoadSettings(out)
	if err != nil {
		t.Fatal(err)
	}
	if s.Validate() != nil {
		t.Fatal("tune wrote invalid settings")
	}
	js := filepath.Join(t.TempDir(), "bench.json")
	if _, errOut, code := run(t, url, "bench", "--dataset", toy, "--scope-field", "team", "--plans", "maximal", "--settings", out, "--json", js); code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Plans []struct {
			Metrics map[string]float64 `json:"metrics"`
		} `json:"plans"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Plans[0].Metrics["mrr@10"]; math.Abs(got-after) > 1e-9 {
		t.Fatalf("bench with the fitted settings: mrr@10 %v, tune reported %v", got, after)
	}
	again, _, code := run(t, url, "tune", "--dataset", toy, "--scope-field", "team", "--metric", "mrr@10", "--settings", out, "--out", out+".2")
	if code != 0 || !strings.Contains(again, fmt.Sprintf("%.4f with the starting settings, %.4f fitted", after, after)) {
		t.Fatalf("tune from its own fit: %s", again)
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 12, "short"},
		{"standup-0114:1", 14, "standup-0114:1"},
		{"conversation-0042:session-3:17", 12, "conve…n-3:17"},
		{"ééééééééééééé", 5, "éé…éé"},
	} {
		if got := clip(tc.in, tc.n); got != tc.want || len([]rune(got)) > tc.n {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestProfile: profile runs the statement of a question under EXPLAIN ANALYZE and prints
// the totals, the time by lane and the steps, records no access, and refuses --runs 0.
func TestProfile(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	user := recall.User{ID: "u", Read: []string{"default"}, Write: []string{"default"}}
	if _, err := e.Write(ctx, user, recall.Batch{Memories: []recall.Memory{
		{ID: "a", Text: "Nadia Okafor kept the boats in port during the storm."},
		{ID: "b", Text: "The ferry to Gull Island was cancelled for two days after the storm."},
	}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, db.URL("recall_owner"), "profile", "what happened during the storm?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The question names no time: the default plan without the temporal lane (Plan.For).
	for _, want := range []string{"plan vector+bm25+mention+title+context", "statement: planning ", "by lane", "  bm25 ", "steps (own time", "bm25_candidates", "output_top", "rest"} {
		if !strings.Contains(out, want) {
			t.Fatalf("profile lacks %q:\n%s", want, out)
		}
	}
	var n int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memory_access`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the profile recorded %d accesses (%v)", n, err)
	}
	if _, _, code := run(t, db.URL("recall_owner"), "profile", "--runs", "0", "storm"); code != 2 {
		t.Fatalf("--runs 0: exit %d, want 2", code)
	}
	// One lane's plan: its steps and the shared ones, no other lane's.
	out, errOut, code = run(t, db.URL("recall_owner"), "profile", "--plan", "bm25", "what happened during the storm?")
	if code != 0 || !strings.Contains(out, "plan bm25 ") || !strings.Contains(out, "bm25_candidates") || strings.Contains(out, "vector_hits") || strings.Contains(out, "graph_") {
		t.Fatalf("--plan bm25: exit %d: %s%s", code, out, errOut)
	}
	if _, _, code := run(t, db.URL("recall_owner"), "profile", "--plan", "nope", "storm"); code != 2 {
		t.Fatalf("--plan nope: exit %d, want 2", code)
	}
}
