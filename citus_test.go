package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestCitusCoordinator: recall migrates on a Citus coordinator (its tables local to the
// coordinator, not yet distributed) and answers there as on a single server: the same data
// written through the engine gives the same packs, item for item and score for score, to
// random users over overlapping scope sets, and the coordinator's engine writes, recalls and
// deletes as the runtime role under row security.
func TestCitusCoordinator(t *testing.T) {
	t.Parallel()
	cdb := testdb.Citus(t)
	sdb := testdb.New(t)
	ctx := context.Background()
	emb, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	open := func(db *testdb.DB) *recall.Engine {
		e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	citus, single := open(cdb), open(sdb)
	r := rand.New(rand.NewPCG(7, 34))
	all := []string{"a", "b", "c", "d"}
	subset := func(most int) []string { return scopeSubset(r, all, most) }
	names := []string{"Alice Martin", "Bob Stone", "Carol Diaz", "Lisbon", "Tokyo"}
	words := strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed")
	writer := recall.User{ID: "w", Read: all, Write: all}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	var first []string // the first batch's scope set
	for set := range 8 {
		b := recall.Batch{Scopes: subset(2), Sources: []recall.Source{{ID: "s", Title: "Harbor log " + fmt.Sprint(set)}}}
		for m := range 12 {
			day := base.AddDate(0, 0, r.IntN(365))
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("set%d-m%d", set, m), Source: "s", Position: m + 1,
				Speaker: names[r.IntN(3)], OccurredStart: &day,
				Text: fmt.Sprintf("%s %s the %s near %s.", names[r.IntN(len(names))], words[r.IntN(len(words))], words[r.IntN(len(words))], names[r.IntN(len(names))])})
		}
		if set == 0 {
			first = b.Scopes
		}
		for _, e := range []*recall.Engine{citus, single} {
			if _, err := e.Write(ctx, writer, b); err != nil {
				t.Fatalf("set %d: %v", set, err)
			}
		}
	}
	packs := 0
	for i := range 24 {
		u := recall.User{ID: "u", Read: subset(3)}
		q := fmt.Sprintf("Who %s the %s near %s?", words[r.IntN(len(words))], words[r.IntN(len(words))], names[r.IntN(len(names))])
		pc, err := citus.Recall(ctx, u, q, 400, nil)
		if err != nil {
			t.Fatalf("citus: %v", err)
		}
		ps, err := single.Recall(ctx, u, q, 400, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := itemsOf(pc), itemsOf(ps); got != want {
			t.Fatalf("question %d %q as a reader of %v:\nCitus\n%s\nsingle server\n%s", i, q, u.Read, got, want)
		}
		packs += len(pc.Items)
	}
	if packs == 0 {
		t.Fatal("every pack was empty")
	}
	for _, e := range []*recall.Engine{citus, single} {
		if n, err := e.Delete(ctx, writer, first, []string{"set0-m0", "set0-m1", "set1-m0"}); err != nil || n != 2 {
			t.Fatalf("deleted %d of set 0's two memories (%v)", n, err)
		}
	}
}

// scopeSubset is 1 to most of all's scopes, at random, sorted: a scope set or a reader's
// scopes over overlapping sets.
func scopeSubset(r *rand.Rand, all []string, most int) []string {
	s := slices.Clone(all)
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	out := s[:1+r.IntN(most)]
	slices.Sort(out)
	return out
}

// itemsOf is a pack as comparable text: each item's external id, score and text.
func itemsOf(p *recall.Pack) string {
	var b strings.Builder
	for _, it := range p.Items {
		fmt.Fprintf(&b, "%s %.9f %s\n", it.ExternalID, it.Score, it.Text)
	}
	return b.String()
}
