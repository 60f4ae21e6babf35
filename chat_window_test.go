package recall_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/migrations"
	"github.com/recall-engine/recall/statement"
)

// chat is a conversation sent in pieces: the places 2 and 3 are short messages, which the
// context lane reads past (sql/write/bm25.sql), so the place 4 is read with the place 2.
func chat(second string) recall.Batch {
	texts := []string{"Ana asked about the harbor cranes and the budget for next spring", second, "yes",
		"then we walked along the river to the old mill and back home", "ok", "the bakery on the corner sells lemon bread every morning"}
	b := recall.Batch{Sources: []recall.Source{{ID: "chat", Title: "a chat"}}}
	for i, text := range texts {
		b.Memories = append(b.Memories, recall.Memory{ID: "c" + string(rune('1'+i)), Source: "chat", Position: i + 1,
			Speaker: []string{"Ana", "Ben"}[i%2], Text: text, OccurredStart: day("2021-06-10")})
	}
	return b
}

// TestEditedChatEqualsFresh: a short message rewritten long, and the context lane reads every
// memory as a chat written fresh in its final state: the memories two places away, which read
// past the short one beside it, are rebuilt too.
func TestEditedChatEqualsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, edited := newWriteEngine(t)
	_, fresh := newWriteEngine(t)
	if _, err := edited.Write(ctx, member, chat("sure")); err != nil {
		t.Fatal(err)
	}
	final := chat("the zeppelin festival tickets arrived this morning with the lanterns")
	if _, err := edited.Write(ctx, member, recall.Batch{Memories: final.Memories[1:2]}); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.Write(ctx, member, final); err != nil {
		t.Fatal(err)
	}
	a, b := laneView(t, edited, "zeppelin lanterns festival"), laneView(t, fresh, "zeppelin lanterns festival")
	// c4 holds no word of the question: the context lane finds it through c2, past c3 ("yes").
	if v, ok := b["c4"]; !ok || math.IsNaN(v[statement.Context]) {
		t.Fatalf("fresh: c4 is not found by the context lane: %v", b)
	}
	if diff := equalLanes(a, b); diff != "" {
		t.Fatalf("edited against fresh: %s", diff)
	}
}

// TestMigrationRebuildsChatWindows: lexical data built before the rule that reads past short
// messages (here: a message rewritten short while the upkeep trigger was off, so its
// neighbours were read as before) is rebuilt by migration 00014 and the flush migrations.Up
// runs after the function files: every lane reads the chat as one written fresh in that state.
func TestMigrationRebuildsChatWindows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, stale := newWriteEngine(t)
	_, fresh := newWriteEngine(t)
	if _, err := stale.Write(ctx, member, chat("the zeppelin festival tickets arrived this morning with the lanterns")); err != nil {
		t.Fatal(err)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.Owner.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`ALTER TABLE recall.memories DISABLE TRIGGER memories_bm25_update`)
	if _, err := stale.Write(ctx, member, recall.Batch{Memories: chat("sure").Memories[1:2]}); err != nil {
		t.Fatal(err)
	}
	exec(`ALTER TABLE recall.memories ENABLE TRIGGER memories_bm25_update`)
	if _, err := fresh.Write(ctx, member, chat("sure")); err != nil {
		t.Fatal(err)
	}
	const q = "zeppelin lanterns river mill cranes"
	if equalLanes(laneView(t, stale, q), laneView(t, fresh, q)) == "" {
		t.Fatal("the stale chat already reads as the fresh one: the test would show nothing")
	}
	upFrom(t, db, 14)
	if diff := equalLanes(laneView(t, stale, q), laneView(t, fresh, q)); diff != "" {
		t.Fatalf("after the migration: %s", diff)
	}
}

// upFrom runs db's migrations again from version on, as on a database written before it
// (goose applies none below the database's version, so the later ones run again too), with
// migrations.Up's function files and flush; version must be the first it applies.
func upFrom(t *testing.T, db *testdb.DB, version int64) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.Owner.Exec(ctx, `DELETE FROM public.recall_schema_version WHERE version_id >= $1`, version); err != nil {
		t.Fatal(err)
	}
	owner := db.OwnerSQL()
	defer owner.Close() //nolint:errcheck // closing a handle
	res, err := migrations.Up(ctx, owner)
	if err != nil || len(res.Migrations) == 0 || res.Migrations[0].Source.Version != version {
		t.Fatalf("migrations from %d again: %+v, %v", version, res, err)
	}
}

// equalLanes says how lane view a differs from b ("" when the same memories have the same
// scores in every lane and fused).
func equalLanes(a, b map[string][statement.NumLanes + 1]float64) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d candidates against %d", len(a), len(b))
	}
	for id, vb := range b {
		va, ok := a[id]
		if !ok {
			return id + " missing"
		}
		for l := range vb {
			if same := math.IsNaN(va[l]) && math.IsNaN(vb[l]) || math.Abs(va[l]-vb[l]) <= 1e-9*math.Max(1, math.Abs(vb[l])); !same {
				name := "fused"
				if l < statement.NumLanes {
					name = statement.Lane(l).String()
				}
				return fmt.Sprintf("%s %s: %v against %v", id, name, va[l], vb[l])
			}
		}
	}
	return ""
}
