package recall_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/summarize"
)

// TestCitusEngineWrites: the engine's own writes, rewrites, supersessions and deletes, as
// the runtime role under row security, run on the distributed schema and leave there exactly
// the rows they leave on a single server: memories, entities, mentions, relations, the BM25
// postings and per-set statistics, document lengths and trigram postings, nothing left
// noted for a flush. Random batches over three scope sets, conversation turns and notes,
// given entities and relations and extracted ones.
func TestCitusEngineWrites(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	engines, _ := enginePair(t, recall.Config{FunctionalPredicates: []string{"lives_in"}}, cdb, sdb)
	both := func(what string, f func(e *recall.Engine) error) {
		t.Helper()
		for i, e := range engines {
			if err := f(e); err != nil {
				t.Fatalf("%s on the %s: %v", what, []string{"cluster", "single server"}[i], err)
			}
		}
	}
	r := rand.New(rand.NewPCG(34, 2))
	sets := [][]string{{"a"}, {"b"}, {"a", "b"}}
	user := recall.User{ID: "w", Read: []string{"a", "b"}, Write: []string{"a", "b"}}
	words := strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed Lisbon Tokyo")
	names := []string{"Alice Martin", "Bob Stone", "Carol Diaz"}
	text := func() string {
		var w []string
		for range 4 + r.IntN(6) {
			w = append(w, words[r.IntN(len(words))])
		}
		return names[r.IntN(len(names))] + " " + strings.Join(w, " ") + "."
	}
	for round := range 6 {
		for si, sc := range sets {
			b := recall.Batch{Scopes: sc, Sources: []recall.Source{{ID: fmt.Sprintf("chat%d", round%2), Title: fmt.Sprintf("Chat %d", round%2)}},
				Entities: []recall.Entity{{ID: "ana", Name: "Ana Lima"}, {ID: "lisbon", Name: "Lisbon"}, {ID: "tokyo", Name: "Tokyo"}}}
			for i := range 4 {
				m := recall.Memory{ID: fmt.Sprintf("m%d-%d", si, r.IntN(12)), Text: text()}
				if i%2 == 0 {
					m.Source, m.Position, m.Speaker = b.Sources[0].ID, 1+r.IntN(8), []string{"Ana", "Bo"}[i%2]
				}
				if slices.ContainsFunc(b.Memories, func(x recall.Memory) bool { return x.ID == m.ID }) {
					continue
				}
				b.Memories = append(b.Memories, m)
			}
			city := []string{"lisbon", "tokyo"}[round%2]
			b.Relations = []recall.Relation{{From: "ana", To: city, Predicate: "lives_in", Memory: b.Memories[0].ID}}
			both(fmt.Sprintf("round %d, set %v: write", round, sc), func(e *recall.Engine) error { _, err := e.Write(ctx, user, b); return err })
			if round%2 == 1 {
				victim := b.Memories[len(b.Memories)-1].ID
				both(fmt.Sprintf("round %d, set %v: delete %s", round, sc, victim), func(e *recall.Engine) error {
					_, err := e.Delete(ctx, user, sc, []string{victim})
					return err
				})
			}
		}
		want, got := derivedRows(t, sdb), derivedRows(t, cdb)
		for _, q := range []string{"memories", "entities"} {
			want[q], got[q] = rowsOf(t, sdb, q), rowsOf(t, cdb, q)
		}
		for name, w := range want {
			if !slices.Equal(got[name], w) {
				t.Fatalf("round %d: %s differ:\n cluster %d rows %v\n single  %d rows %v", round, name, len(got[name]), head(got[name]), len(w), head(w))
			}
		}
		if len(got["dirty"]) != 0 || len(got["postings"]) == 0 || len(got["relations"]) == 0 {
			t.Fatalf("round %d: %d notes left, %d postings, %d relations", round, len(got["dirty"]), len(got["postings"]), len(got["relations"]))
		}
	}
}

// rowsOf lists a table's rows by external id and what the engine wrote, as the owner.
func rowsOf(t *testing.T, db *testdb.DB, table string) []string {
	t.Helper()
	q := map[string]string{
		"memories": `SELECT scopes::text || ' ' || external_id || ' ' || kind || ' ' || text || ' ' || speaker || ' ' || coalesce(position, 0) || ' ' ||
			CASE WHEN superseded_by IS NULL THEN 'holds' ELSE 'superseded' END FROM recall.memories`,
		"entities": `SELECT scopes::text || ' ' || external_id || ' ' || name FROM recall.entities`,
	}[table]
	rows, err := db.Owner.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func head(s []string) []string { return s[:min(len(s), 6)] }

// TestCitusConsolidate: Consolidate on the distributed schema reads a scope set's entity
// groups, asks the model and marks what it says a later memory replaces, as on one server
// (TestConsolidate): the recall that follows answers with the newer memory. Supersede,
// Prune and MemoryIDs run there too.
func TestCitusConsolidate(t *testing.T) {
	t.Parallel()
	cdb, _ := distributedPair(t)
	engines, _ := enginePair(t, recall.Config{}, cdb)
	e, ctx := engines[0], context.Background()
	user := recall.User{ID: "c", Read: []string{"team"}, Write: []string{"team"}}
	day := func(d int) *time.Time { v := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d); return &v }
	b := recall.Batch{Scopes: []string{"team"}, Entities: []recall.Entity{{ID: "ana", Name: "Ana Lima", Kind: "person"}}, NoExtract: true}
	for i, x := range []struct {
		text string
		at   int
	}{{"Ana Lima lives in Lisbon, by the river.", 0}, {"Ana Lima lives in Berlin now.", 200}, {"Ana Lima likes green tea.", 250}} {
		b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("c%d", i+1), Text: x.text, OccurredStart: day(x.at), Entities: []string{"ana"}})
	}
	if _, err := e.Write(ctx, user, b); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	chat, err := summarize.NewChat(summarize.ChatConfig{BaseURL: fakeChat(t, &asked), Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Consolidate(ctx, user, recall.ConsolidateOptions{Model: chat})
	want := []recall.Proposal{{About: "Ana Lima", Old: "c1", New: "c2"}}
	if err != nil || res.Superseded != 1 || !slices.Equal(res.Proposals, want) {
		t.Fatalf("consolidate on the cluster: %+v, %v", res, err)
	}
	p, err := e.Recall(ctx, user, "Where does Ana Lima live?", 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := p.IDs(); slices.Contains(ids, "c1") || !slices.Contains(ids, "c2") {
		t.Fatalf("recall after consolidate on the cluster: %v", ids)
	}
	if n, err := e.Supersede(ctx, user, []string{"team"}, "c2", []string{"c3"}, nil); err != nil || n != 1 {
		t.Fatalf("supersede on the cluster: %d, %v", n, err)
	}
	gone := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := e.Write(ctx, user, recall.Batch{Scopes: []string{"team"}, Memories: []recall.Memory{{ID: "old", Text: "The spring timetable.", ExpiresAt: &gone}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := e.Prune(ctx, user, []string{"team"}, gone.AddDate(0, 0, 1)); err != nil || n != 1 {
		t.Fatalf("prune on the cluster: %d, %v", n, err)
	}
	if ids, err := e.MemoryIDs(ctx, user, []string{"team"}); err != nil || !slices.Equal(ids, []string{"c1", "c2", "c3"}) {
		t.Fatalf("memory ids on the cluster: %v, %v", ids, err)
	}
}

// TestCitusEraseExport: Erase on the distributed schema removes exactly what it removes on
// one server (the same receipt, the same rows left in every table, statistics included), and
// Export writes the same file on both, but the snapshot's time.
func TestCitusEraseExport(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	engines, _ := enginePair(t, recall.Config{}, cdb, sdb)
	u := recall.User{ID: "w", Read: []string{"a", "b"}, Write: []string{"a", "b"}}
	for _, e := range engines {
		for i, sc := range [][]string{{"a"}, {"b"}, {"a", "b"}} {
			fillSet(t, e, u, sc, fmt.Sprint(i))
		}
	}
	var exports [2]string
	for i, e := range engines {
		var b strings.Builder
		enc := records.NewEncoder(&b)
		if _, err := e.Export(ctx, u, recall.ExportOptions{Scopes: []string{"a", "b"}, Embeddings: true}, func(r records.Record) error {
			if r.Header != nil {
				r.Header.At = time.Time{}
			}
			return enc.Encode(r)
		}); err != nil {
			t.Fatalf("export on the %s: %v", []string{"cluster", "single server"}[i], err)
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
		exports[i] = b.String()
	}
	if exports[0] != exports[1] || strings.Count(exports[0], "\n") < 10 {
		t.Fatalf("exports differ or are empty:\n cluster %.600s\n single  %.600s", exports[0], exports[1])
	}
	var receipts [2]recall.EraseReceipt
	for i, e := range engines {
		r, err := e.Erase(ctx, u, []string{"a"}, false)
		if err != nil {
			t.Fatalf("erase on the %s: %v", []string{"cluster", "single server"}[i], err)
		}
		receipts[i] = r
	}
	if !maps.Equal(receipts[0].Tables, receipts[1].Tables) || receipts[0].Tables["memories"] == 0 {
		t.Fatalf("receipts: cluster %v, single server %v", receipts[0].Tables, receipts[1].Tables)
	}
	want, got := derivedRows(t, sdb), derivedRows(t, cdb)
	for _, q := range []string{"memories", "entities"} {
		want[q], got[q] = rowsOf(t, sdb, q), rowsOf(t, cdb, q)
	}
	for name, w := range want {
		if !slices.Equal(got[name], w) {
			t.Errorf("after the erase, %s differ:\n cluster %d rows %v\n single  %d rows %v", name, len(got[name]), head(got[name]), len(w), head(w))
		}
		if slices.ContainsFunc(got[name], func(s string) bool { return strings.Contains(s, "{a}") }) {
			t.Errorf("after the erase, %s holds rows of {a}", name)
		}
	}
}
