package statement_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestEntityTrigramsFollowEntities: recall.entity_trigrams holds exactly each entity's lowered
// name's trigrams (the Go reference, trigrams) and one empty-trigram row under each name of
// its scope set, through inserts, an upsert that changes nothing, a rename, a scope move and
// a delete.
func TestEntityTrigramsFollowEntities(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	want := map[int64]trigramRow{}
	check := func(step string) {
		t.Helper()
		checkTrigramRows(t, db, `SELECT scope || '|' || trigram || '|' || entity_id FROM recall.entity_trigrams`, want, step)
	}
	add := func(ext string, scopes []string, name string) int64 {
		t.Helper()
		var id int64
		if err := db.Owner.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES ($1, $2, $3)
			ON CONFLICT (scopes, external_id) DO UPDATE SET name = excluded.name RETURNING id`, ext, scopes, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		want[id] = trigramRow{scopes, name}
		return id
	}
	a := add("a", []string{"acme"}, "Alice Martin")
	b := add("b", []string{"acme", "beta"}, "Port of Lisbon")
	add("c", []string{"beta"}, "Zed")
	check("inserted")
	add("a", []string{"acme"}, "Alice Martin")
	check("upserted")
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.entities SET name = 'Alicia Martin' WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	want[a] = trigramRow{[]string{"acme"}, "Alicia Martin"}
	check("renamed")
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.entities SET scopes = '{gamma}' WHERE id = $1`, b); err != nil {
		t.Fatal(err)
	}
	want[b] = trigramRow{[]string{"gamma"}, want[b].text}
	check("moved")
	if _, err := db.Owner.Exec(ctx, `DELETE FROM recall.entities WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	delete(want, a)
	check("deleted")
}

// TestEntityProbeWaysMatchReference: both ways of the fuzzy entity probe (the trigram index
// and the caller's postings in recall.entity_trigrams, forced by recall.entity_probe) return
// exactly the entities, and similarities, that pg_trgm's rule computed in Go gives: names of
// the caller's scope whose similarity with a mention is at least the floor, and names equal to
// a mention at 1. 500 names of few syllables (many near one another, many matches at the
// floor, where the postings way's candidate bound is tight), mentions that are one of them
// with one to three letters changed, at two floors (a name of few trigrams rarely stays
// within 0.7 of itself with a letter changed; most matches are at 0.5). The same names with a letter more in a
// scope the caller cannot read are never returned.
func TestEntityProbeWaysMatchReference(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 38))
	syl := strings.Fields("ka ri mo lu se ta ne vi")
	word := func() string {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syl[r.IntN(len(syl))])
		}
		return b.String()
	}
	names := map[string]bool{}
	var mine []string
	for len(mine) < 500 {
		n := word()
		if r.IntN(2) == 0 {
			n += " " + word()
		}
		if !names[n] {
			names[n] = true
			mine = append(mine, n)
		}
	}
	rows := make([][]any, 0, 2*len(mine))
	for i, n := range mine {
		rows = append(rows, []any{fmt.Sprintf("m%d", i), []string{"mine"}, n})
		rows = append(rows, []any{fmt.Sprintf("o%d", i), []string{"other"}, n + "a"})
	}
	if _, err := db.Owner.CopyFrom(ctx, pgx.Identifier{"recall", "entities"}, []string{"external_id", "scopes", "name"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE recall.entities; ANALYZE recall.entity_trigrams`); err != nil {
		t.Fatal(err)
	}
	matched := 0
	for q := range 100 {
		b := []byte(mine[r.IntN(len(mine))])
		for range 1 + q%3 {
			if i := r.IntN(len(b)); b[i] != ' ' {
				b[i] = "aeiou"[r.IntN(5)]
			}
		}
		mention := string(b)
		floor := []float64{0.5, 0.7}[q%2]
		want := map[string]float64{}
		for _, n := range mine {
			if n == mention {
				want[n] = 1
			} else if v := similarity(n, mention); float64(float32(v)) >= floor {
				// pg_trgm's similarity is a real, compared with the double floor, as %
				// compares it with its threshold: 7/10 is below 0.7.
				want[n] = v
			}
		}
		matched += len(want)
		s := statement.DefaultSettings()
		for _, way := range []string{"index", "scope"} {
			got := probeSims(t, db, s, way, []string{mention}, floor)
			for k, v := range want {
				if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-6 {
					t.Errorf("%s way, %q at %v: name %q similarity %v (found %v), want %v", way, mention, floor, k, g, ok, v)
				}
			}
			for k, v := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s way, %q at %v: returned %q (similarity %v), which the rule does not match", way, mention, floor, k, v)
				}
			}
		}
	}
	if matched < 30 {
		t.Fatalf("the mentions matched %d names in all; the comparison checks too little", matched)
	}
}

// TestEntityProbeChoosesByEntities: without recall.entity_probe set, a caller of at most 2,000
// entities, or 2% of the table's, reads recall.entity_trigrams' postings and never the name
// trigram index, so names of other scopes cost it nothing; one of more, or of at least half
// of the table's entities, reads the trigram index (after the one scan that counts its
// entities, bounded). Both find the misspelt name.
func TestEntityProbeChoosesByEntities(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Owner.Exec(ctx, `
		INSERT INTO recall.entities (external_id, scopes, name)
		SELECT 'm' || i, '{many}', 'Harbour master ' || i FROM generate_series(1, 2001) AS i;
		INSERT INTO recall.entities (external_id, scopes, name)
		SELECT 'f' || i, '{few}', 'Harbour master ' || i FROM generate_series(1, 3) AS i;
		ANALYZE recall.entities; ANALYZE recall.entity_trigrams`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scope    string
		postings bool
		rows     int // recall.entities' reltuples, when set (0: ANALYZE's)
	}{{"few", true, 0}, {"many", false, 0}, {"many", true, 150000},
		// A caller who sees at least half of the table's entities (its 3 of 6) keeps the
		// index; 3 of 7 do not.
		{"few", true, 7}, {"few", false, 6},
		// Read with a second scope that holds none: the count is divided by the read scopes
		// (a row under both would count twice), so 3 of 6 are not half any more.
		{"few,nobody", true, 6}} {
		if c.rows > 0 {
			// A large table of other scopes: the bound is 2% of its rows (3,000 here), as the
			// planner's statistics count them (set as ANALYZE would, without the rows).
			setReltuples(t, db, "recall.entities", c.rows)
		}
		tx := testdb.BeginAs(t, db.Runtime, strings.Split(c.scope, ","), nil)
		if _, err := tx.Exec(ctx, `SET LOCAL pg_trgm.similarity_threshold = 0.7`); err != nil {
			t.Fatal(err)
		}
		// The backend's counts not yet flushed, which may include earlier transactions'.
		count := func() (postings, index int64) {
			if err := tx.QueryRow(ctx, `SELECT
				(SELECT coalesce(idx_scan, 0) FROM pg_stat_xact_all_tables WHERE relid = 'recall.entity_trigrams'::regclass),
				(SELECT coalesce(sum(pg_stat_get_xact_numscans(indexrelid)), 0) FROM pg_index
				 WHERE indexrelid::regclass::text LIKE 'recall.entities_trgm_scopes_%')::bigint`).Scan(&postings, &index); err != nil {
				t.Fatal(err)
			}
			return postings, index
		}
		p0, i0 := count()
		var found int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM recall.probe_entities(ARRAY['harbour mastr 2'], true, 0.7) p
			JOIN recall.entities e ON e.id = p.id WHERE e.name = 'Harbour master 2'`).Scan(&found); err != nil {
			t.Fatal(err)
		}
		p1, i1 := count()
		_ = tx.Rollback(ctx)
		if found != 1 {
			t.Errorf("caller of %s: the misspelt name was found %d times, want once", c.scope, found)
		}
		if c.postings && (p1-p0 < 2 || i1 != i0) {
			t.Errorf("caller of %s: %d scans of recall.entity_trigrams, %d of the name trigram index; want postings and no index", c.scope, p1-p0, i1-i0)
		}
		if !c.postings && (p1-p0 != 1 || i1 == i0) {
			t.Errorf("caller of %s: %d scans of recall.entity_trigrams, %d of the name trigram index; want the count and the index", c.scope, p1-p0, i1-i0)
		}
	}
}

// trigramRow is what a trigram postings table should hold for one row: its scope set and the
// text whose trigrams it lists.
type trigramRow struct {
	scopes []string
	text   string
}

// checkTrigramRows: query ("scope|trigram|id" per row) returns exactly each row of want's
// trigrams (the Go reference, trigrams) under each name of its scope set, and one
// empty-trigram row per scope, by which the probes count a caller's rows.
// probeSims runs recall.probe_entities as a reader of scope "mine" with settings s, the
// probe forced to way ("index" or "scope") and pg_trgm's threshold at floor, and returns
// the similarity of each entity name it finds.
func probeSims(t *testing.T, db *testdb.DB, s statement.Settings, way string, mentions []string, floor float64) map[string]float64 {
	t.Helper()
	got := map[string]float64{}
	asReader(t, db.Runtime, []string{"mine"}, s, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('recall.entity_probe', $1, true), set_config('pg_trgm.similarity_threshold', $2, true)`,
			way, fmt.Sprint(floor)); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT e.name, p.sim FROM recall.probe_entities($1, true, $2) p JOIN recall.entities e ON e.id = p.id`, mentions, floor)
		if err != nil {
			return err
		}
		var name string
		var sim float64
		_, err = pgx.ForEachRow(rows, []any{&name, &sim}, func() error { got[name] = sim; return nil })
		return err
	})
	return got
}

func checkTrigramRows(t *testing.T, db *testdb.DB, query string, want map[int64]trigramRow, step string) {
	t.Helper()
	exp := map[string]bool{}
	for id, r := range want {
		for _, sc := range r.scopes {
			exp[fmt.Sprintf("%s||%d", sc, id)] = true
			for g := range trigrams(r.text) {
				exp[fmt.Sprintf("%s|%s|%d", sc, g, id)] = true
			}
		}
	}
	rows, err := db.Owner.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(exp) {
		t.Fatalf("%s: %d rows, want %d", step, len(got), len(exp))
	}
	for _, r := range got {
		if !exp[r] {
			t.Fatalf("%s: unexpected row %q", step, r)
		}
	}
}

// TestEntityProbeSkipsWeakMentions: the fuzzy branch probes the strong mentions only. In
// "What about the acme?" the weak mention "about the acme" (it starts with a stop word) is
// within 0.75 of the name "About theacme" while no strong one ("the acme", "acme") is within
// 0.7: the name is not found, by either way of the probe; the exact branch still finds
// "Acme" by its key, and a strong misspelt mention still finds its name fuzzily.
func TestEntityProbeSkipsWeakMentions(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Owner.Exec(ctx, `INSERT INTO recall.entities (external_id, scopes, name) VALUES
		('a', '{mine}', 'About theacme'), ('b', '{mine}', 'Acme'), ('c', '{mine}', 'Harbour master')`); err != nil {
		t.Fatal(err)
	}
	mentions := append(statement.Mentions("What about the acme?"), "harbour mastr")
	for _, way := range []string{"index", "scope"} {
		got := probeSims(t, db, statement.DefaultSettings(), way, mentions, 0.7)
		if _, ok := got["About theacme"]; ok || got["Acme"] != 1 || got["Harbour master"] < 0.7 || len(got) != 2 {
			t.Errorf("%s way: found %v, want Acme at 1 and Harbour master fuzzily, not About theacme", way, got)
		}
	}
}
