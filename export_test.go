package recall_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/records"
)

// exportChat writes into scope set scopes a chat of a user and an assistant over four
// sessions that name people and places (extracted entities, co-mentions, speakers), with
// what an export must keep: a supersession by a later turn, one made by a Supersede call at
// an explicit time and one at the write's time, a linked duplicate, a summary, an expired
// note, a bounded validity, tags, metadata, a given entity with aliases and a relation.
func exportChat(t *testing.T, e *recall.Engine, u recall.User, scopes []string) {
	t.Helper()
	ctx := context.Background()
	people := []string{"Jonas Weber", "Priya Nair", "Lisbon", "Harbor Museum", "Tomas", "Camila Reyes", "Porto"}
	topics := []string{"the ferry schedule", "a birthday dinner", "the sailing class", "a job interview", "the museum tickets", "a flat in the old town"}
	b := recall.Batch{Scopes: scopes,
		Entities:  []recall.Entity{{ID: "maya", Name: "Maya Costa", Kind: "person", Aliases: []string{"May"}, BlockedAliases: []string{"costa"}, Metadata: map[string]any{"role": "the user"}}},
		Relations: []recall.Relation{{From: "maya", To: "maya-sister", Predicate: "sister_of", Weight: 2}},
	}
	b.Entities = append(b.Entities, recall.Entity{ID: "maya-sister", Name: "Lena Costa", Kind: "person"})
	base := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	for s := range 4 {
		src := fmt.Sprintf("session-%d", s+1)
		at := base.AddDate(0, 0, 9*s)
		b.Sources = append(b.Sources, recall.Source{ID: src, OccurredAt: &at, Metadata: map[string]any{"n": s + 1}})
		for i := range 10 {
			when := at.Add(time.Duration(i) * time.Minute)
			p, q, topic := people[(s+i)%len(people)], people[(s*3+i+2)%len(people)], topics[(s+i)%len(topics)]
			m := recall.Memory{ID: fmt.Sprintf("%s-t%d", src, i+1), Source: src, Position: i + 1, OccurredStart: &when, Kind: "experience"}
			if i%2 == 0 {
				m.Speaker, m.Text = "Maya", fmt.Sprintf("I talked with %s about %s near %s yesterday.", p, topic, q)
			} else {
				m.Speaker, m.Text = "assistant", fmt.Sprintf("Noted: %s and %s, about %s. Do you want a reminder before it?", p, q, topic)
			}
			b.Memories = append(b.Memories, m)
		}
	}
	until, exp := base.AddDate(1, 0, 0), base.AddDate(0, 1, 0)
	later := base.AddDate(0, 2, 0)
	b.Memories = append(b.Memories,
		recall.Memory{ID: "fact-home", Text: "Maya lives in Lisbon, near the Harbor Museum.", ValidUntil: &until, Tags: []string{"home"}, Metadata: map[string]any{"confidence": 0.9}},
		recall.Memory{ID: "fact-moved", Text: "Maya moved to Porto in May.", ValidFrom: &later, Supersedes: []string{"fact-home"}},
		recall.Memory{ID: "note-expired", Text: "Remind Maya about the ferry schedule on Friday.", ExpiresAt: &exp},
		recall.Memory{ID: "fact-job", Text: "Maya starts a job at the Harbor Museum.", Entities: []string{"maya"}},
		recall.Memory{ID: "fact-job-old", Text: "Maya works at a bookshop."},
		recall.Memory{ID: "fact-tea", Text: "Maya drinks green tea."},
		// More names than the co-mention window, in another order than they were first seen.
		recall.Memory{ID: "fact-list", Text: "The guest list: Porto Wine Club, Camila Reyes, Harbor Museum, Jonas Weber, Lena Costa and Priya Nair."},
	)
	if _, err := e.Write(ctx, u, b); err != nil {
		t.Fatal(err)
	}
	// A restatement linked as a duplicate; supersessions at an explicit time and at the
	// write's time; a summary.
	if _, err := e.Write(ctx, u, recall.Batch{Scopes: scopes, Duplicates: "link", Memories: []recall.Memory{{ID: "fact-tea-again", Text: "maya drinks green tea"}}}); err != nil {
		t.Fatal(err)
	}
	at := base.AddDate(0, 0, 40)
	if _, err := e.Supersede(ctx, u, scopes, "fact-job", []string{"fact-job-old"}, &at); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Supersede(ctx, u, scopes, "session-4-t9", []string{"session-1-t9"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Summarize(ctx, u, recall.SummarizeOptions{Scopes: scopes}); err != nil {
		t.Fatal(err)
	}
}

// TestExportRoundTrip: a scope set exported and ingested into a fresh database (through
// records.Load, as `recall ingest` reads a file) gives the same rows, derived ones included
// (every column of every table of scope sets but internal ids, creation times and access
// counts), and the same packs for 20 questions, for the demo corpus and a chat; other sets
// of the first database are not in the export; a file cut before its end record is refused.
func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	from, e1 := exportEngine(t)
	to, e2 := exportEngine(t)
	demo, chat, other := []string{"demo"}, []string{"chat", "maya"}, []string{"other"}
	u := recall.User{ID: "u", Read: []string{"chat", "demo", "maya", "other"}, Write: []string{"chat", "demo", "maya", "other"}}
	f, err := os.Open("cmd/recall/demo/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() //nolint:errcheck // read only
	store := func(ctx context.Context, b recall.Batch) (recall.WriteResult, error) { return e1.Write(ctx, u, b) }
	if _, _, err := records.Load(ctx, f, "corpus.jsonl", records.Auto, 100, recall.Batch{Scopes: demo}, store, nil); err != nil {
		t.Fatal(err)
	}
	exportChat(t, e1, u, chat)
	exportChat(t, e1, u, other)

	for _, c := range []struct {
		scopes     []string
		embeddings bool
	}{{demo, false}, {chat, true}} {
		var buf bytes.Buffer
		enc := records.NewEncoder(&buf)
		sum, err := e1.Export(ctx, u, recall.ExportOptions{Scopes: c.scopes, Embeddings: c.embeddings}, func(r records.Record) error { return enc.Encode(r) })
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		if want := count(t, from, "SELECT count(*) FROM recall.memories WHERE scopes = $1", c.scopes); sum.Memories != want || sum.Relations == 0 || sum.Entities == 0 {
			t.Fatalf("%v: exported %+v, the set has %d memories", c.scopes, sum, want)
		}
		if len(sum.MergedSupersessions) != 0 {
			t.Errorf("%v: merged supersessions %v", c.scopes, sum.MergedSupersessions)
		}
		if strings.Contains(buf.String(), `"other"`) {
			t.Errorf("the export of %v holds a row of another set", c.scopes)
		}
		// Cut before its end record: refused, naming the cut.
		lines := strings.SplitAfter(strings.TrimSpace(buf.String()), "\n")
		cut := strings.Join(lines[:len(lines)-1], "")
		cutStore := func(context.Context, recall.Batch) (recall.WriteResult, error) { return recall.WriteResult{}, nil }
		if _, _, err := records.Load(ctx, strings.NewReader(cut), "cut.jsonl", records.Auto, 50, recall.Batch{}, cutStore, nil); err == nil || !strings.Contains(err.Error(), "cut") {
			t.Errorf("a cut export: %v, want an error saying it is cut", err)
		}
		restore := func(ctx context.Context, b recall.Batch) (recall.WriteResult, error) { return e2.Write(ctx, u, b) }
		if _, _, err := records.Load(ctx, &buf, "export.jsonl", records.Auto, 50, recall.Batch{Scopes: c.scopes}, restore, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e2.EnsureVectorIndex(ctx); err != nil {
		t.Fatal(err)
	}
	held := map[string]int{}
	for _, sc := range [][]string{demo, chat} {
		a, b := storedRows(t, from, sc), storedRows(t, to, sc)
		for _, table := range slices.Sorted(maps.Keys(a)) {
			held[table] += len(a[table])
			if diff := firstDiff(a[table], b[table]); diff != "" {
				t.Errorf("%v %s: %d rows exported, %d restored; %s", sc, table, len(a[table]), len(b[table]), diff)
			}
		}
	}
	// Every table is exercised but those no write fills: access counts (not exported), the
	// Citus flush's notes, the registry of scope names.
	for table, n := range held {
		if n == 0 && !slices.Contains([]string{"memory_access", "bm25_dirty", "scopes"}, table) {
			t.Errorf("the fixture has no row in %s: the test proves nothing there", table)
		}
	}
	questions := []string{"Who is the harbor master?", "What did Tomas build?", "When does the ferry leave?", "Who keeps the town archive?",
		"What happened in the storm?", "Where is the museum?", "What did the council decide?", "Who repaired the crane?",
		"What boat was launched?", "Which festival is in summer?",
		"Where does Maya live?", "What job does Maya start?", "What does Maya drink?", "Who is Jonas Weber?",
		"What about the sailing class?", "When was the birthday dinner?", "What did Maya say about Porto?",
		"Who did Maya meet near the Harbor Museum?", "What about the museum tickets?", "Did Maya find a flat in the old town?"}
	for i, q := range questions {
		sc := demo
		if i >= 10 {
			sc = chat
		}
		r := recall.User{ID: "r", Read: sc}
		p1, err1 := e1.Recall(ctx, r, q, 800, nil)
		p2, err2 := e2.Recall(ctx, r, q, 800, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a, b := p1.IDs(), p2.IDs(); len(a) == 0 || !slices.Equal(a, b) {
			t.Errorf("%q: exported %v, restored %v", q, a, b)
		}
	}
}

func exportEngine(t *testing.T) (*testdb.DB, *recall.Engine) {
	t.Helper()
	db := testdb.New(t)
	emb, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	e, err := recall.New(context.Background(), recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return db, e
}

func firstDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		switch {
		case i >= len(a):
			return "restored only: " + b[i]
		case i >= len(b):
			return "exported only: " + a[i]
		case a[i] != b[i]:
			return "exported " + a[i] + "\nrestored " + b[i]
		}
	}
	return ""
}

// storedRows reads, as the owner, every row of scope set sc in every table of the schema
// that holds scope sets, as JSON without its internal ids and times of writing, the ids it
// holds of other rows replaced by their external ids (found in the catalog: a column named
// id or ending _id, or a memory's superseded_by and duplicate_of), sorted; a table of scope
// sets it cannot map fails the test.
func storedRows(t *testing.T, db *testdb.DB, sc []string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	// What each internal id column refers to.
	refers := map[string]string{"memory_id": "memories", "summary_id": "memories", "superseded_by": "memories", "duplicate_of": "memories",
		"source_id": "sources", "entity_id": "entities", "src_id": "entities", "dst_id": "entities"}
	rows, err := db.Owner.Query(ctx, `SELECT k.table_name::text, array_agg(k.column_name::text ORDER BY k.ordinal_position)
		FROM information_schema.columns k JOIN information_schema.tables b ON b.table_schema = k.table_schema AND b.table_name = k.table_name
		WHERE k.table_schema = 'recall' AND b.table_type = 'BASE TABLE'
		  AND EXISTS (SELECT 1 FROM information_schema.columns s WHERE s.table_schema = 'recall' AND s.table_name = k.table_name AND s.column_name = 'scopes')
		GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type table struct {
		Name string
		Cols []string
	}
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[table])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tb := range tables {
		drop := []string{"id", "created_at", "updated_at", "last_accessed", "access_count"}
		var joins, adds []string
		for _, c := range tb.Cols {
			ref, ok := refers[c]
			if !ok {
				if c != "id" && strings.HasSuffix(c, "_id") && c != "external_id" {
					t.Fatalf("recall.%s.%s: an id column the test cannot map to an external id", tb.Name, c)
				}
				continue
			}
			alias := "j_" + c
			drop = append(drop, c)
			joins = append(joins, fmt.Sprintf("LEFT JOIN recall.%s %s ON %s.id = r.%s AND %s.scopes = r.scopes", ref, alias, alias, c, alias))
			adds = append(adds, fmt.Sprintf("'%s', %s.external_id", c, alias))
		}
		q := fmt.Sprintf("SELECT ((to_jsonb(r) - $2::text[]) || jsonb_build_object(%s))::text FROM recall.%s r %s WHERE r.scopes = $1 ORDER BY 1",
			strings.Join(append(adds, "'_', 0"), ", "), tb.Name, strings.Join(joins, " "))
		rows, err := db.Owner.Query(ctx, q, sc, drop)
		if err != nil {
			t.Fatalf("%s: %v", tb.Name, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", tb.Name, err)
		}
		out[tb.Name] = got
	}
	return out
}
