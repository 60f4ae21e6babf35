package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	sqltext "github.com/recall-engine/recall/sql"
)

// TestFuzzyResolveByIndex: the writer's fuzzy entity resolution by the owner's function
// (recall.resolve_fuzzy, sql/write/entity_resolve.sql, which reads the name trigram index's
// parts) answers what the plain statement answers as the caller under row security
// (resolve_fuzzy_plain.sql, which compares every entity of the set): the same entity for each
// of 600 names, names of every trigram band, near names in a set the caller cannot read
// never chosen.
func TestFuzzyResolveByIndex(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	words := strings.Fields("maria gonzalez lopez blue ridge mountain lake tahoe resort harbor " +
		"street north river valley saint george island old mill bakery grand hotel central " +
		"park west coast railway museum of modern art kelly brothers garage")
	rng := rand.New(rand.NewPCG(7, 52))
	name := func() string {
		n := 2 + rng.IntN(7) // 2-8 words: up to about 60 trigrams, every band
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	mutate := func(s string) string {
		b := []byte(s)
		for range 1 + rng.IntN(2) {
			i := rng.IntN(len(b))
			if b[i] != ' ' {
				b[i] = byte('a' + rng.IntN(26))
			}
		}
		return string(b)
	}
	var own, other []recall.Entity
	var probes []string
	for i := range 300 {
		n := name()
		own = append(own, recall.Entity{ID: fmt.Sprintf("a%d", i), Name: strings.ToUpper(n[:1]) + n[1:]})
		// The other set holds the probe's own name: its closest match, which the caller cannot see.
		p := mutate(n)
		other = append(other, recall.Entity{ID: fmt.Sprintf("b%d", i), Name: p})
		probes = append(probes, p, n+" "+words[rng.IntN(len(words))])
	}
	a := recall.User{ID: "a", Read: []string{"a"}, Write: []string{"a"}}
	b := recall.User{ID: "b", Read: []string{"b"}, Write: []string{"b"}}
	if _, err := e.Write(ctx, a, recall.Batch{Entities: own}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Write(ctx, b, recall.Batch{Entities: other}); err != nil {
		t.Fatal(err)
	}
	plain, err := sqltext.Write.ReadFile("write/resolve_fuzzy_plain.sql")
	if err != nil {
		t.Fatal(err)
	}
	resolve := func(read, set string, stmt string) map[string]int64 {
		t.Helper()
		out := map[string]int64{}
		err := pgx.BeginFunc(ctx, db.Runtime, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config('recall.read_scopes', $1, true), set_config('recall.write_scopes', $1, true),
				set_config('pg_trgm.similarity_threshold', '0.8', true)`, "{"+read+"}"); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, stmt, pgx.NamedArgs{"names": probes, "scopes": []string{set}})
			if err != nil {
				return err
			}
			for rows.Next() {
				var n string
				var id int64
				var sim float64
				if err := rows.Scan(&n, &id, &sim); err != nil {
					return err
				}
				out[n] = id
			}
			return rows.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	byIndex := `SELECT r.name, r.id, r.sim FROM recall.resolve_fuzzy(@names::text[], @scopes::text[]) r`
	got, want := resolve("a", "a", byIndex), resolve("a", "a", string(plain))
	if len(want) < 100 {
		t.Fatalf("the plain statement matched %d of %d names: the fixture tests too little", len(want), len(probes))
	}
	if len(got) != len(want) {
		t.Errorf("by index %d names matched, plain %d", len(got), len(want))
	}
	for n, id := range want {
		if got[n] != id {
			t.Errorf("%q: by index %d, plain %d", n, got[n], id)
		}
	}
	var ownIDs int
	if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.entities WHERE scopes = '{a}' AND id = ANY ($1)`,
		func() []int64 {
			var ids []int64
			for _, id := range got {
				ids = append(ids, id)
			}
			return ids
		}()).Scan(&ownIDs); err != nil {
		t.Fatal(err)
	}
	if distinct := len(uniqueIDs(got)); ownIDs != distinct {
		t.Errorf("%d of the %d entities chosen are of set a", ownIDs, distinct)
	}
	// A set the caller does not read: nothing, as under row security.
	if n := len(resolve("a", "b", byIndex)); n != 0 {
		t.Errorf("set b read as a caller of a: %d names matched", n)
	}
}

func uniqueIDs(m map[string]int64) map[int64]bool {
	out := map[int64]bool{}
	for _, id := range m {
		out[id] = true
	}
	return out
}
