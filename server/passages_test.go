package server_test

import (
	"cmp"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/recall-engine/recall"
)

// TestPassagesOverHTTP: POST /v1/recall takes "passages" and answers as Go does: by default a
// long memory the question matches in one passage comes as that passage, named by its
// bounds; "whole" gives it whole; a mode that is none of the three is a 400 naming the field.
func TestPassagesOverHTTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	filler := strings.Repeat("The weather was mild and the walk was long. ", 20) // 180 words
	text := filler + "The lighthouse keeper repaints the red door every spring. " + filler
	r := w.do(t, "POST", "/v1/memories", w.keys["ana"], map[string]any{"memories": []any{map[string]any{"id": "diary", "text": text}}})
	if r.status != http.StatusOK {
		t.Fatalf("write: %d %s", r.status, r.body)
	}
	ana := recall.User{ID: "ana", Read: []string{"team", "ops"}, Write: []string{"team"}}
	q := "What does the lighthouse keeper repaint?"
	for _, mode := range []string{"", "auto", "whole", "passage"} {
		got := pack(t, w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": q, "budget": 2000, "passages": mode}))
		want, err := w.engine.Recall(ctx, ana, q, 2000, &recall.Options{Passages: recall.Passages(mode)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) == 0 || len(want.Items) == 0 || got.Items[0].ExternalID != "diary" {
			t.Fatalf("mode %q: the diary is not first: %+v", mode, got.Items)
		}
		it := got.Items[0]
		if it.Text != want.Items[0].Text || (it.Passage == nil) != (want.Items[0].Passage == nil) {
			t.Fatalf("mode %q: HTTP gave %q, Go %q", mode, it.Text, want.Items[0].Text)
		}
		if want := cmp.Or(recall.Passages(mode), recall.PassagesAuto); got.Passages != want {
			t.Fatalf("mode %q: the pack says %q", mode, got.Passages)
		}
		if mode == "whole" {
			if it.Passage != nil || it.Text != text {
				t.Fatalf("whole: passage %+v, %d characters of %d", it.Passage, len(it.Text), len(text))
			}
			continue
		}
		if it.Passage == nil || !strings.Contains(it.Text, "lighthouse keeper") || len(strings.Fields(it.Text)) > 80 {
			t.Fatalf("mode %q: want the passage with the keeper, got %+v %q", mode, it.Passage, it.Text)
		}
		if string([]rune(text)[it.Passage.Start:it.Passage.End]) != it.Text {
			t.Fatalf("mode %q: the bounds %+v do not give the text", mode, *it.Passage)
		}
	}
	r = w.do(t, "POST", "/v1/recall", w.keys["ana"], map[string]any{"query": q, "budget": 100, "passages": "half"})
	if p := r.problem(t); r.status != http.StatusBadRequest || len(p.Errors) != 1 || p.Errors[0].Field != "passages" {
		t.Fatalf("passages half: %d %s", r.status, r.body)
	}
}
