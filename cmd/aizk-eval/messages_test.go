package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// chatSet writes a small conversation whose turns say two things each, and questions about
// the second thing of some turns, judged on the turns.
func chatSet(t *testing.T) string {
	t.Helper()
	var corpus, queries strings.Builder
	qrels := "query-id\tcorpus-id\tscore\n"
	things := [][2]string{{"regatta", "tomatoes"}, {"violin", "sourdough"}, {"bicycle", "taxes"}, {"kayak", "origami"}, {"telescope", "pottery"}, {"chess", "marathon"}}
	for i, th := range things {
		who := []string{"Ana", "Ben"}[i%2]
		fmt.Fprintf(&corpus, `{"_id": "t%d", "title": "", "text": "%s: I spent the day on %s. Later I talked about %s with friends!", "metadata": {"conv": "c", "session": "s%d", "speaker": "%s"}}`+"\n",
			i, who, th[0], th[1], i/3, who)
		fmt.Fprintf(&queries, `{"_id": "q%d", "text": "Who talked about %s?", "metadata": {"conv": "c"}}`+"\n", i, th[1])
		qrels += fmt.Sprintf("q%d\tt%d\t1\n", i, i)
	}
	return writeSet(t, corpus.String(), queries.String(), qrels, "test")
}

// TestMessagesFlag: with --messages every turn is stored as its two messages, the bm25 lane
// finds the message that names the thing asked first, and the turn counts as found there
// (MRR@10 1 over every question); traces name each message candidate's turn, and order fits
// and scores them by turn. Without a session field --messages is refused.
func TestMessagesFlag(t *testing.T) {
	t.Parallel()
	url := adminURL(t)
	set := chatSet(t)
	m := []string{"--dataset", set, "--scope-field", "conv", "--speaker-field", "speaker", "--session-field", "session", "--messages"}
	out, errOut, code := run(t, url, append([]string{"bench", "--plans", "bm25", "--metric", "mrr@10"}, m...)...)
	if code != 0 {
		t.Fatalf("bench --messages: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "| bm25 | 1.0000 | 1.0000 | 1.0000 |") {
		t.Fatalf("bench --messages: want every turn found first:\n%s", out)
	}
	traces := filepath.Join(t.TempDir(), "msg.jsonl")
	if _, errOut, code := run(t, url, append([]string{"traces", "--out", traces}, m...)...); code != 0 {
		t.Fatalf("traces --messages: exit %d: %s", code, errOut)
	}
	tq, err := readTraces(traces)
	if err != nil || len(tq) != 6 {
		t.Fatalf("read %d traces: %v", len(tq), err)
	}
	for _, q := range tq {
		n := 0
		for _, c := range q.Trace.Candidates {
			want := strings.Split(c.ExternalID, "#")[0]
			if q.Parent[c.ExternalID] != want || !strings.Contains(c.ExternalID, "#") {
				t.Fatalf("%s: candidate %s has parent %q", q.Query.ID, c.ExternalID, q.Parent[c.ExternalID])
			}
			if q.judged(c.ExternalID) > 0 {
				n++
			}
		}
		if n != 2 {
			t.Fatalf("%s: %d candidates judged, want the turn's two messages", q.Query.ID, n)
		}
	}
	out, errOut, code = run(t, url, "order", "--traces", traces, "--metric", "mrr@10", "--out", filepath.Join(t.TempDir(), "o.json"))
	if code != 0 || !strings.Contains(out, "| msg | 6 | mrr@10 | 1.0000 | 1.0000 |") {
		t.Fatalf("order on message traces: exit %d: %s\n%s", code, errOut, out)
	}
	if _, errOut, code := run(t, url, "bench", "--dataset", set, "--scope-field", "conv", "--messages"); code != 2 || !strings.Contains(errOut, "--session-field") {
		t.Fatalf("--messages without --session-field: exit %d: %s", code, errOut)
	}
}
