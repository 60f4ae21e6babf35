package recall_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
		{"unknown relation evidence", member, recall.Batch{Memories: []recall.Memory{ok}, Entities: []recall.Entity{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "c", Name: "C"}},
			Relations: []recall.Relation{{From: "a", To: "b", Memory: "ok"}, {From: "a", To: "c", Memory: "ghost"}, {From: "b", To: "c", Memory: "ghost"}}}, "relations[1]", "memory"},
		{"self relation", member, recall.Batch{Relations: []recall.Relation{{From: "a", To: "a"}}}, "relations[0]", "to"},
		{"reserved entity id", member, recall.Batch{Entities: []recall.Entity{{ID: "auto:x", Name: "X"}}}, "entities[0]", "id"},
		{"scope not writable", member, recall.Batch{Scopes: []string{"other"}, Memories: []recall.Memory{ok}}, "batch", "scopes"},
		{"several write scopes", recall.User{Read: []string{"a", "b"}, Write: []string{"a", "b"}}, recall.Batch{Memories: []recall.Memory{ok}}, "batch", "scopes"},
		{"NaN in metadata", member, recall.Batch{Sources: src, Memories: []recall.Memory{ok, {ID: "x", Text: "t", Metadata: map[string]any{"x": math.NaN()}}}}, "memories[1]", "metadata.x"},
		{"Inf deep in metadata", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Metadata: map[string]any{"a": []any{1, map[string]any{"b": math.Inf(1)}}}}}}, "memories[0]", "metadata.a[1].b"},
		{"unencodable metadata", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Metadata: map[string]any{"f": func() {}}}}}, "memories[0]", "metadata"},
		{"invalid UTF-8 in metadata", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Metadata: map[string]any{"k": "a\xffb"}}}}, "memories[0]", "metadata.k"},
		{"NUL in a metadata key", member, recall.Batch{Entities: []recall.Entity{{ID: "e", Name: "E", Metadata: map[string]any{"a\x00": 1}}}}, "entities[0]", "metadata key"},
		{"time in metadata out of range", member, recall.Batch{Sources: []recall.Source{{ID: "s", Metadata: map[string]any{"t": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}}, "sources[0]", "metadata.t"},
		{"occurred year 10000", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", OccurredStart: ptr(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}}}, "memories[0]", "occurred_start"},
		{"mentioned year 0", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", MentionedAt: ptr(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC))}}}, "memories[0]", "mentioned_at"},
		{"refers end alone", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", RefersEnd: day("2022-01-01")}}}, "memories[0]", "refers_end"},
		{"refers empty span", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", RefersStart: day("2022-01-01"), RefersEnd: day("2022-01-01")}}}, "memories[0]", "refers_end"},
		{"refers year 10000", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", RefersStart: day("2022-01-01"), RefersEnd: ptr(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}}}, "memories[0]", "refers_end"},
		{"source year -1", member, recall.Batch{Sources: []recall.Source{{ID: "s", OccurredAt: ptr(time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC))}}}, "sources[0]", "occurred_at"},
		{"NaN embedding", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Embedding: nanVector(256)}}}, "memories[0]", "embedding"},
		{"zero embedding", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Embedding: make([]float32, 256)}}}, "memories[0]", "embedding"},
		{"relation twice", member, recall.Batch{Entities: []recall.Entity{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}}, Relations: []recall.Relation{{From: "a", To: "b"}, {From: "a", To: "b", Predicate: "related_to"}}}, "relations[1]", "predicate"},
		{"predicate too long", member, recall.Batch{Relations: []recall.Relation{{From: "a", To: "b", Predicate: strings.Repeat("p", 257)}}}, "relations[0]", "predicate"},
		{"NUL in predicate", member, recall.Batch{Relations: []recall.Relation{{From: "a", To: "b", Predicate: "a\x00"}}}, "relations[0]", "predicate"},
		{"alias too long", member, recall.Batch{Entities: []recall.Entity{{ID: "e", Name: "E", Aliases: []string{strings.Repeat("a", 513)}}}}, "entities[0]", "aliases[0]"},
		{"tag too long", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Tags: []string{strings.Repeat("t", 257)}}}}, "memories[0]", "tags[0]"},
		{"title too long", member, recall.Batch{Sources: []recall.Source{{ID: "s", Title: strings.Repeat("title ", 200)}}}, "sources[0]", "title"},
		{"NUL in title", member, recall.Batch{Sources: []recall.Source{{ID: "s", Title: "a\x00"}}}, "sources[0]", "title"},
		{"speaker too long", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Speaker: strings.Repeat("S", 257)}}}, "memories[0]", "speaker"},
		{"scope set too long", recall.User{Read: longScopes, Write: longScopes}, recall.Batch{Scopes: longScopes, Memories: []recall.Memory{ok}}, "batch", "scopes"},
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

func ptr[T any](v T) *T { return &v }

func nanVector(dim int) []float32 {
	v := make([]float32, dim)
	v[0], v[1] = 1, float32(math.NaN())
	return v
}

// longScopes are five scope names of 128 bytes: any user may read them, but their set
// (644 bytes joined) is over write.MaxScopeSetBytes.
var longScopes = func() []string {
	out := make([]string, 5)
	for i := range out {
		out[i] = fmt.Sprintf("%c%s", 'a'+i, strings.Repeat("x", 127))
	}
	return out
}()

// TestWriteAtTheLimits writes rows at every limit the write path states, and the inputs that
// failed whole batches in the schema before (issue 19): each lands, and reads back.
func TestWriteAtTheLimits(t *testing.T) {
	t.Parallel()
	_, e := newWriteEngine(t)
	ctx := context.Background()
	// Four scopes of 127 random bytes (index entries compress what repeats): 511 bytes
	// joined, just under the limit.
	r := rand.New(rand.NewPCG(19, 6))
	letters := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	var set []string
	for range 4 {
		set = append(set, letters(127))
	}
	if n := len(strings.Join(set, ",")); n > recall.MaxScopeSetBytes {
		t.Fatalf("test set of %d bytes", n)
	}
	u := recall.User{ID: "edge", Read: set, Write: set}
	// A word of 1,960 random letters: too long to be a BM25 term (sql/write/lexemes.sql); a
	// word of 1,000 is one.
	longWord, word := letters(1960), letters(1000)
	b := recall.Batch{
		Scopes:  set,
		Sources: []recall.Source{{ID: "s", Title: strings.Repeat("t", recall.MaxTitleLen), OccurredAt: ptr(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))}},
		Memories: []recall.Memory{
			{ID: "harbor", Text: strings.Repeat("Harbor ", 80) + "works."},
			{ID: "caps", Text: strings.Repeat("THE PIER IS CLOSED FOR REPAIRS ", 20)},
			{ID: "speaker", Source: "s", Position: 1, Speaker: strings.Repeat("Ö", recall.MaxSpeakerLen/2), Text: "I was there."},
			{ID: "word", Text: "the " + longWord + " and " + word, Tags: []string{strings.Repeat("g", recall.MaxTagLen)},
				Metadata: map[string]any{"n": 1.5, "deep": map[string]any{"list": []any{"ok", 2, true, nil}}, "at": time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}},
		},
		Entities:  []recall.Entity{{ID: "e1", Name: strings.Repeat("n", recall.MaxNameLen)}, {ID: "e2", Name: "E2"}},
		Relations: []recall.Relation{{From: "e1", To: "e2", Predicate: strings.Repeat("p", recall.MaxPredicateLen)}, {From: "e1", To: "e2", Predicate: "other"}},
	}
	res, err := e.Write(ctx, u, b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Memories != 4 || res.Sources != 1 || res.Entities != 2 {
		t.Fatalf("wrote %+v", res)
	}
	p, err := e.Recall(ctx, u, word, 2000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) == 0 || p.Items[0].ExternalID != "word" {
		t.Fatalf("the long word's memory is not first: %+v", p.Items)
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
		if len(b) == 0 {
			t.Fatalf("%q: no candidates", q)
		}
		if diff := equalLanes(a, b); diff != "" {
			t.Fatalf("%q, edited against fresh: %s", q, diff)
		}
	}
}

// TestRelationEvidenceStoredOrInBatch: a relation's evidence may be a memory of the batch or
// one stored before; each relation gets its own, looked up once for the batch.
func TestRelationEvidenceStoredOrInBatch(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	if _, err := e.Write(ctx, member, recall.Batch{NoExtract: true, Memories: []recall.Memory{{ID: "old1", Text: "first"}, {ID: "old2", Text: "second"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Write(ctx, member, recall.Batch{NoExtract: true,
		Memories: []recall.Memory{{ID: "new", Text: "third"}},
		Entities: []recall.Entity{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}, {ID: "c", Name: "C"}},
		Relations: []recall.Relation{
			{From: "a", To: "b", Memory: "old2"}, {From: "a", To: "c", Memory: "new"},
			{From: "b", To: "c", Memory: "old1"}, {From: "c", To: "a", Memory: "old2"}, {From: "b", To: "a"},
		},
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Owner.Query(ctx, `SELECT s.external_id || '>' || d.external_id || ':' || coalesce(m.external_id, '-')
		FROM recall.relations r JOIN recall.entities s ON s.id = r.src_id JOIN recall.entities d ON d.id = r.dst_id
		LEFT JOIN recall.memories m ON m.id = r.memory_id ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a>b:old2", "a>c:new", "b>a:-", "b>c:old1", "c>a:old2"}
	if !slices.Equal(got, want) {
		t.Fatalf("relations %v, want %v", got, want)
	}
}

// TestWriteStoresEmbeddingsExactly: each memory's stored embedding is the one it was given
// (normalized), or its text's embedding, value for value (the writer sends them in
// pgvector's binary form beside the rows, each row naming its place), whichever memories of
// the batch are skipped as duplicates between them.
func TestWriteStoresEmbeddingsExactly(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	member := recall.User{ID: "u", Read: []string{"s"}, Write: []string{"s"}}
	rng := rand.New(rand.NewPCG(7, 11))
	given := func() []float32 {
		v := make([]float32, 256)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	a, c := given(), given()
	b := recall.Batch{Duplicates: "skip", Memories: []recall.Memory{
		{ID: "a", Text: "the ferry leaves at nine", Embedding: a},
		{ID: "b", Text: "The ferry leaves at nine!"}, // restates a: skipped
		{ID: "c", Text: "the bakery opens at seven", Embedding: c},
		{ID: "d", Text: "the museum closes on mondays"},
	}}
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	d, err := e.Embedder().Embed(ctx, []string{"the museum closes on mondays"}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{"a": embed.Normalize(a), "c": embed.Normalize(c), "d": d[0]}
	rows, err := db.Owner.Query(ctx, `SELECT external_id, embedding::real[] FROM recall.memories ORDER BY external_id`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float32{}
	var id string
	var v []float32
	if _, err := pgx.ForEachRow(rows, []any{&id, &v}, func() error { got[id] = slices.Clone(v); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("stored %d memories (%v), want a, c and d", len(got), slices.Sorted(maps.Keys(got)))
	}
	for id, w := range want {
		if !slices.Equal(got[id], w) {
			t.Errorf("memory %s: stored embedding differs from the one written (first values %v, want %v)", id, got[id][:3], w[:3])
		}
	}
}

// TestPrepareWritesNothing: Engine.Prepare checks and embeds a batch without the database (no
// row until the prepared batch's Write, and a refused row refused there, before anything), and
// the prepared batch stores what Engine.Write would: each memory's embedding and the span its
// text refers to ("yesterday", said on 8 May: 7 May).
func TestPrepareWritesNothing(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	said := day("2023-05-08")
	b := recall.Batch{Memories: []recall.Memory{
		{ID: "m1", Text: "I went to a support group yesterday", OccurredStart: said},
		{ID: "m2", Text: "Painting is my way to relax"},
	}}
	p, err := e.Prepare(ctx, member, b)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM recall.memories`); n != 0 {
		t.Fatalf("%d memories after Prepare alone, want 0", n)
	}
	var we *recall.WriteError
	if _, err := e.Prepare(ctx, member, recall.Batch{Memories: []recall.Memory{{ID: "bad", Text: " "}}}); !errors.As(err, &we) || we.Item != "memories[0]" {
		t.Fatalf("Prepare of an empty text: %v, want a *WriteError naming memories[0]", err)
	}
	res, err := p.Write(ctx)
	if err != nil || res.Memories != 2 {
		t.Fatalf("Write: %+v, %v", res, err)
	}
	emb, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	want, err := emb.Embed(ctx, []string{b.Memories[0].Text}, embed.Document)
	if err != nil {
		t.Fatal(err)
	}
	var got []float32
	var start time.Time
	if err := db.Owner.QueryRow(ctx, `SELECT embedding::real[], refers_start FROM recall.memories WHERE external_id = 'm1'`).Scan(&got, &start); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want[0]) {
		t.Errorf("m1's stored embedding differs from the embedder's")
	}
	if !start.Equal(*day("2023-05-07")) {
		t.Errorf("m1 refers from %v, want 2023-05-07", start)
	}
}
