package write

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestTrigramPairsKeepPgTrgmPairs: asciiTrigrams is pg_trgm's show_trgm on ASCII names (of
// mixed case, digits, punctuation and repeated words), and trigramPairs leaves out no pair
// pg_trgm finds at least the floor similar.
func TestTrigramPairsKeepPgTrgmPairs(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 14))
	words := strings.Fields("kelly brothers brother garage maria gonzalez gonzales lopez st. saint george's island " +
		"mill-house 42nd street o'neil harbor harbour a an x")
	var names []string
	for range 300 {
		w := make([]string, 1+rng.IntN(4))
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
			if rng.IntN(4) == 0 {
				w[i] = strings.ToUpper(w[i][:1]) + w[i][1:]
			}
		}
		names = append(names, strings.Join(w, " "))
	}
	names = append(names, "Café Olé", "cafe ole")
	rows, err := db.Owner.Query(ctx, `SELECT show_trgm(n) FROM unnest($1::text[]) AS n`, names)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var want []string
		if err := rows.Scan(&want); err != nil {
			t.Fatal(err)
		}
		g, ok := asciiTrigrams(names[i])
		if ok {
			got := make([]string, 0, len(g))
			for x := range g {
				got = append(got, x)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%q: %q, pg_trgm %q", names[i], got, want)
			}
		} else if !strings.ContainsAny(names[i], "éÉ") {
			t.Errorf("%q is ASCII", names[i])
		}
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	const floor = 0.7
	a, b := trigramPairs(names, names, floor)
	kept := map[[2]string]bool{}
	for k := range a {
		kept[[2]string{a[k], b[k]}] = true
	}
	pairs, err := db.Owner.Query(ctx, `SELECT x, y FROM unnest($1::text[]) x, unnest($1::text[]) y WHERE x <> y AND similarity(x, y) >= $2`, names, floor)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for pairs.Next() {
		var x, y string
		if err := pairs.Scan(&x, &y); err != nil {
			t.Fatal(err)
		}
		n++
		if !kept[[2]string{x, y}] {
			t.Errorf("%q, %q: pg_trgm finds them at least %v similar, trigramPairs leaves them out", x, y, floor)
		}
	}
	if err := pairs.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 50 || len(a) > 4*n+4*len(names) {
		t.Errorf("%d pairs at least %v similar, %d candidates: the fixture or the filter is wrong", n, floor, len(a))
	}
}
