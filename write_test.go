package recall_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

func newWriteEngine(t *testing.T) (*testdb.DB, *recall.Engine) {
	t.Helper()
	db := testdb.New(t)
	emb, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	e, err := recall.New(context.Background(), recall.Config{Pool: db.Runtime, Embedder: emb, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return db, e
}

func count(t *testing.T, db *testdb.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Owner.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func day(s string) *time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &d
}

func TestWriteLinksEntities(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	res, err := e.Write(ctx, member, recall.Batch{
		Sources:  []recall.Source{{ID: "diary", Title: "Alice's travel diary"}},
		Entities: []recall.Entity{{ID: "alice", Name: "Alice Martin", Kind: "person", Aliases: []string{"Alice"}}},
		Memories: []recall.Memory{
			{ID: "m1", Source: "diary", Text: "Alice moved to Lisbon with Bob Stone.", OccurredStart: day("2021-03-02")},
			{ID: "m2", Source: "diary", Text: "In Lisbon the harbor was busy.", Speaker: "Carol Diaz"},
			{ID: "m3", Text: "nothing named here", Entities: []string{"alice"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Alice resolves to the given entity through its alias; Lisbon, Bob Stone and the speaker
	// Carol Diaz are extracted once each.
	want := recall.WriteResult{Sources: 1, Memories: 3, Entities: 1, Extracted: 3, Mentions: 6, Relations: 3}
	if res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	got := map[string][]string{}
	rows, err := db.Owner.Query(ctx, `SELECT m.external_id, e.external_id FROM recall.mentions x
		JOIN recall.memories m ON m.id = x.memory_id JOIN recall.entities e ON e.id = x.entity_id ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m, en string
		if err := rows.Scan(&m, &en); err != nil {
			t.Fatal(err)
		}
		got[m] = append(got[m], en)
	}
	wantM := map[string][]string{"m1": {"alice", "auto:bob stone", "auto:lisbon"}, "m2": {"auto:carol diaz", "auto:lisbon"}, "m3": {"alice"}}
	for m, ents := range wantM {
		if !slices.Equal(got[m], ents) {
			t.Fatalf("%s mentions %v, want %v", m, got[m], ents)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM recall.entities WHERE external_id = 'auto:carol diaz' AND kind = 'person' AND name = 'Carol Diaz'`); n != 1 {
		t.Fatal("the speaker is not a person entity")
	}
	// The speaker's row says she said m2; the others are names the memories mention.
	if n := count(t, db, `SELECT count(*) FROM recall.mentions x JOIN recall.entities e ON e.id = x.entity_id
		WHERE x.speaker = (e.external_id = 'auto:carol diaz')`); n != 6 {
		t.Fatalf("%d of 6 mentions have the speaker flag they should", n)
	}
	// Co-mentions: m1 relates its three entities pairwise; m2 names one entity, and its speaker
	// is not related to what she says.
	if n := count(t, db, `SELECT count(*) FROM recall.relations WHERE predicate = 'co_mentioned'`); n != 3 {
		t.Fatalf("%d co_mentioned relations, want 3", n)
	}
	// BM25 data follow the source title: "travel" is a lexeme of m1 and m2 only.
	if n := count(t, db, `SELECT count(*) FROM recall.bm25_postings WHERE term = 'travel'`); n != 2 {
		t.Fatalf("%d postings of the title word, want 2", n)
	}

	// Writing m1 again updates it and replaces its links; nothing else changes.
	res, err = e.Write(ctx, member, recall.Batch{Memories: []recall.Memory{{ID: "m1", Source: "diary", Text: "Alice moved to Tokyo."}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories != 1 || res.Updated != 1 || res.Extracted != 1 {
		t.Fatalf("update: %+v", res)
	}
	if n := count(t, db, `SELECT count(*) FROM recall.memories`); n != 3 {
		t.Fatalf("%d memories after an update", n)
	}
	// Bob Stone is mentioned nowhere now: the extracted entity is gone; Lisbon stays (m2).
	if n := count(t, db, `SELECT count(*) FROM recall.entities WHERE external_id IN ('auto:bob stone', 'auto:lisbon', 'auto:tokyo')`); n != 2 {
		t.Fatalf("%d of lisbon/tokyo/bob stone entities, want 2", n)
	}
	if n, err := e.Delete(ctx, member, nil, []string{"m2", "nope"}); err != nil || n != 1 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if n := count(t, db, `SELECT count(*) FROM recall.entities WHERE external_id LIKE 'auto:%'`); n != 1 {
		t.Fatalf("%d extracted entities left, want 1 (tokyo)", n)
	}
}

func TestWriteRefusesBadBatches(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	ok := recall.Memory{ID: "ok", Text: "a fine memory"}
	src := []recall.Source{{ID: "s1", Title: "kept only if the batch lands"}}
	for _, tc := range []struct {
		name        string
		user        recall.User
		batch       recall.Batch
		item, field string
	}{
		{"empty text", member, recall.Batch{Sources: src, Memories: []recall.Memory{ok, {ID: "x", Text: "  "}}}, "memories[1]", "text"},
		{"wrong dimension", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Embedding: make([]float32, 12)}}}, "memories[0]", "embedding"},
		{"bad kind", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Kind: "dream"}}}, "memories[0]", "kind"},
		{"duplicate id", member, recall.Batch{Memories: []recall.Memory{ok, ok}}, "memories[1]", "id"},
		{"end before start", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", OccurredStart: day("2022-01-02"), OccurredEnd: day("2022-01-01")}}}, "memories[0]", "occurred_end"},
		{"NUL in text", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "a\x00b"}}}, "memories[0]", "text"},
		{"id too long", member, recall.Batch{Memories: []recall.Memory{{ID: strings.Repeat("x", 513), Text: "t"}}}, "memories[0]", "id"},
		{"unknown source", member, recall.Batch{Sources: src, Memories: []recall.Memory{ok, {ID: "x", Text: "t", Source: "nope"}}}, "memories[1]", "source"},
		{"unknown entity", member, recall.Batch{Sources: src, Memories: []recall.Memory{ok, {ID: "x", Text: "t", Entities: []string{"ghost"}}}}, "memories[1]", "entities[0]"},
		{"unknown relation end", member, recall.Batch{Sources: src, Entities: []recall.Entity{{ID: "a", Name: "A"}}, Relations: []recall.Relation{{From: "a", To: "ghost"}}}, "relations[0]", "to"},
		{"self relation", member, recall.Batch{Relations: []recall.Relation{{From: "a", To: "a"}}}, "relations[0]", "to"},
		{"reserved entity id", member, recall.Batch{Entities: []recall.Entity{{ID: "auto:x", Name: "X"}}}, "entities[0]", "id"},
		{"scope not writable", member, recall.Batch{Scopes: []string{"other"}, Memories: []recall.Memory{ok}}, "batch", "scopes"},
		{"several write scopes", recall.User{Read: []string{"a", "b"}, Write: []string{"a", "b"}}, recall.Batch{Memories: []recall.Memory{ok}}, "batch", "scopes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.Write(ctx, tc.user, tc.batch)
			var we *recall.WriteError
			if !errors.As(err, &we) || we.Item != tc.item || we.Field != tc.field {
				t.Fatalf("err %v, want a WriteError for %s.%s", err, tc.item, tc.field)
			}
		})
	}
	for _, table := range []string{"sources", "memories", "entities", "mentions", "relations", "bm25_postings"} {
		if n := count(t, db, "SELECT count(*) FROM recall."+table); n != 0 {
			t.Fatalf("%d rows in %s after refused batches", n, table)
		}
	}
}

// worldBatch is the test world as a batch: the same texts, sources and dates as loadWorld,
// with entities extracted from the texts.
func worldBatch(notes []note) recall.Batch {
	var b recall.Batch
	for id, title := range sources {
		b.Sources = append(b.Sources, recall.Source{ID: id, Title: title})
	}
	slices.SortFunc(b.Sources, func(a, c recall.Source) int { return strings.Compare(a.ID, c.ID) })
	for _, n := range notes {
		b.Memories = append(b.Memories, recall.Memory{ID: n.id, Source: n.source, Text: n.text, OccurredStart: day(n.day), Tags: n.tags})
	}
	return b
}

// laneView is what every lane says about each memory, by external id.
func laneView(t *testing.T, e *recall.Engine, q string) map[string][statement.NumLanes + 1]float64 {
	t.Helper()
	opts := &recall.Options{WindowStart: *day("2021-06-01"), WindowEnd: *day("2021-07-01")}
	tr, err := e.Trace(context.Background(), member, q, 10000, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][statement.NumLanes + 1]float64{}
	for _, c := range tr.Candidates {
		var v [statement.NumLanes + 1]float64
		for l := range statement.NumLanes {
			v[l] = c.Lanes[l].Score
			if c.Lanes[l].Rank == 0 {
				v[l] = math.NaN()
			}
		}
		v[statement.NumLanes] = c.Score
		out[c.ExternalID] = v
	}
	return out
}

// TestEditedEqualsFresh: a corpus written, then updated and partly deleted in place, gives
// every lane the same results as a corpus written fresh from its final state.
func TestEditedEqualsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, edited := newWriteEngine(t)
	_, fresh := newWriteEngine(t)
	// The edited corpus first holds an older version of some notes and some extra notes.
	old := slices.Clone(world)
	old[2].text = "Bob Stone met Grace Kim about the crane budget in Lisbon."
	old[8].text = "Tokyo rained; Alice skipped the dinner with Hugo Roy."
	extra := []note{
		{"x1", "minutes", "Hugo Roy audited the harbor cranes with Dan Wu.", "2021-08-01", nil, []string{"work"}},
		{"x2", "diary", "Alice Martin visited Porto with Grace Kim.", "2021-09-09", nil, nil},
	}
	if _, err := edited.Write(ctx, member, worldBatch(append(old, extra...))); err != nil {
		t.Fatal(err)
	}
	if _, err := edited.Write(ctx, member, worldBatch(world[2:3])); err != nil { // update m03
		t.Fatal(err)
	}
	if _, err := edited.Write(ctx, member, recall.Batch{Memories: worldBatch(world[8:9]).Memories}); err != nil { // update m09
		t.Fatal(err)
	}
	if n, err := edited.Delete(ctx, member, nil, []string{"x1", "x2"}); err != nil || n != 2 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if _, err := fresh.Write(ctx, member, worldBatch(world)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Bob Stone cranes budget", "Alice Lisbon Tokyo", "Dan Wu Rotterdam", "Grace Kim", "Hugo Roy harbor", "Family recipes lemon"} {
		a, b := laneView(t, edited, q), laneView(t, fresh, q)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%q: %d candidates edited, %d fresh", q, len(a), len(b))
		}
		for id, va := range a {
			vb, ok := b[id]
			if !ok {
				t.Fatalf("%q: %s only in the edited corpus", q, id)
			}
			for l := range va {
				same := math.IsNaN(va[l]) && math.IsNaN(vb[l]) || math.Abs(va[l]-vb[l]) <= 1e-9*math.Max(1, math.Abs(vb[l]))
				if !same {
					name := "fused"
					if l < statement.NumLanes {
						name = statement.Lane(l).String()
					}
					t.Fatalf("%q %s %s: edited %v, fresh %v", q, id, name, va[l], vb[l])
				}
			}
		}
	}
}
