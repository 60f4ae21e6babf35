package recall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/summarize"
)

// fakeChat is an OpenAI-compatible chat server on loopback that answers recall consolidate's
// question by rule: each numbered statement holding "lives in" is replaced by the next one
// that does; it adds a line replacing a newer statement by an older one and a line it
// cannot mean, which the reader must refuse.
func fakeChat(t *testing.T, asked *atomic.Int32) string {
	t.Helper()
	numbered := regexp.MustCompile(`(?m)^(\d+)\. (.*)$`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		asked.Add(1)
		var lives []string
		for _, m := range numbered.FindAllStringSubmatch(in.Messages[0].Content, -1) {
			if strings.Contains(m[2], "lives in") {
				lives = append(lives, m[1])
			}
		}
		answer := "none"
		if len(lives) > 1 {
			var lines []string
			for i := 1; i < len(lives); i++ {
				lines = append(lines, lives[i-1]+" -> "+lives[i])
			}
			answer = strings.Join(append(lines, lives[len(lives)-1]+" -> "+lives[0], "banana"), "\n")
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// TestConsolidate: with a chat model, Consolidate marks the statements a later one replaces
// about an entity two memories name, with the model and the entity in the old one's
// metadata; what the model says that cannot be (an older statement replacing a newer one) or
// cannot be read is counted and never written; a dry run writes nothing; without a model
// nothing is guessed.
func TestConsolidate(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	day := func(d int) *time.Time { v := now.AddDate(0, 0, d); return &v }
	b := recall.Batch{Entities: []recall.Entity{{ID: "ana", Name: "Ana Lima", Kind: "person"}}, NoExtract: true}
	for i, x := range []struct {
		text string
		at   int
	}{{"Ana Lima lives in Lisbon, by the river.", -300}, {"Ana Lima lives in Berlin now.", -100}, {"Ana Lima likes green tea.", -50}} {
		b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("c%d", i+1), Text: x.text, OccurredStart: day(x.at), Entities: []string{"ana"}})
	}
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Consolidate(ctx, member, recall.ConsolidateOptions{}); !errors.Is(err, recall.ErrNoModel) {
		t.Fatalf("without a model: %v", err)
	}
	var asked atomic.Int32
	chat, err := summarize.NewChat(summarize.ChatConfig{BaseURL: fakeChat(t, &asked), Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	dry, err := e.Consolidate(ctx, member, recall.ConsolidateOptions{Model: chat, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []recall.Proposal{{About: "Ana Lima", Old: "c1", New: "c2"}}
	if dry.Groups != 1 || !slices.Equal(dry.Proposals, want) || dry.Unread != 2 || dry.Superseded != 0 {
		t.Fatalf("dry run: %+v, want one group, %v, 2 unread lines, nothing written", dry, want)
	}
	if n := count(t, db, `SELECT count(*) FROM recall.memories WHERE superseded_by IS NOT NULL`); n != 0 {
		t.Fatalf("the dry run marked %d memories", n)
	}
	res, err := e.Consolidate(ctx, member, recall.ConsolidateOptions{Model: chat})
	if err != nil || res.Superseded != 1 || !slices.Equal(res.Proposals, want) {
		t.Fatalf("consolidate: %+v, %v", res, err)
	}
	var by, note string
	if err := db.Owner.QueryRow(ctx, `SELECT b.external_id, m.metadata->>'superseded_note' FROM recall.memories m
		JOIN recall.memories b ON b.id = m.superseded_by WHERE m.external_id = 'c1'`).Scan(&by, &note); err != nil {
		t.Fatal(err)
	}
	if by != "c2" || note != "recall consolidate, chat:fake, about Ana Lima" {
		t.Fatalf("c1 superseded by %q with note %q", by, note)
	}
	p, err := e.Recall(ctx, member, "Where does Ana Lima live?", 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := p.IDs(); slices.Contains(ids, "c1") || !slices.Contains(ids, "c2") {
		t.Fatalf("recall after consolidate: %v", ids)
	}
	// Again: c1 no longer holds, so nothing is left to replace.
	again, err := e.Consolidate(ctx, member, recall.ConsolidateOptions{Model: chat})
	if err != nil || again.Superseded != 0 || asked.Load() != 3 {
		t.Fatalf("a second run: %+v, %v, %d questions asked", again, err, asked.Load())
	}
}
