package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/statement"
)

// TestCitusIsolation: random users over overlapping scope sets on the cluster. The rule in
// Go says which sets a user sees (those sharing a scope with its read scopes): a user who
// sees one gets exactly the single server's pack, every item, source title and entity name
// of that set; one who sees none an empty pack; one who sees several is refused with
// ErrManySets (the statement is routed to one set's shard), never answered from some of them.
func TestCitusIsolation(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	engines, _ := enginePair(t, recall.Config{NoAccess: true}, cdb, sdb)
	sets := [][]string{{"a"}, {"a", "b"}, {"b", "c"}, {"d"}, {"e", "f"}}
	all := []string{"a", "b", "c", "d", "e", "f", "g"}
	writer := recall.User{ID: "w", Read: all, Write: all}
	r := rand.New(rand.NewPCG(34, 5))
	words := strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed")
	for si, sc := range sets {
		tag := strings.Join(sc, "")
		b := recall.Batch{Scopes: sc, Sources: []recall.Source{{ID: "log", Title: "Harbor log of " + tag}},
			Entities:  []recall.Entity{{ID: "p", Name: "Person " + tag}, {ID: "q", Name: "Quay " + tag}},
			Relations: []recall.Relation{{From: "p", To: "q", Predicate: "works_at", Memory: fmt.Sprintf("%s-0", tag)}}}
		for i := range 10 {
			var w []string
			for range 5 {
				w = append(w, words[r.IntN(len(words))])
			}
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("%s-%d", tag, i), Source: "log", Position: i + 1,
				Text: fmt.Sprintf("Person %s at Quay %s: %s.", tag, tag, strings.Join(w, " "))})
		}
		for _, e := range engines {
			if _, err := e.Write(ctx, writer, b); err != nil {
				t.Fatalf("set %d: %v", si, err)
			}
		}
	}
	// Each set's entity names (given and extracted), as the owner reads them.
	names := map[string][]string{}
	rows, err := cdb.Owner.Query(ctx, "SELECT array_to_string(scopes, ''), name FROM recall.entities")
	if err != nil {
		t.Fatal(err)
	}
	var tag, name string
	if _, err := pgx.ForEachRow(rows, []any{&tag, &name}, func() error { names[tag] = append(names[tag], name); return nil }); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for range 30 {
		read := scopeSubset(r, all, 3)
		var visible [][]string
		for _, sc := range sets {
			if slices.ContainsFunc(sc, func(s string) bool { return slices.Contains(read, s) }) {
				visible = append(visible, sc)
			}
		}
		user := recall.User{ID: "u", Read: read}
		q := "What did Person " + strings.Join(sets[r.IntN(len(sets))], "") + " say about the " + words[r.IntN(len(words))] + " at the harbor log?"
		got, err := engines[0].Recall(ctx, user, q, 500, &recall.Options{Now: now, GraphContext: true})
		switch {
		case len(visible) > 1:
			seen["refused"]++
			if !errors.Is(err, statement.ErrManySets) {
				t.Fatalf("reader of %v sees %v: %v, want ErrManySets", read, visible, err)
			}
			continue
		case err != nil:
			t.Fatalf("reader of %v: %v", read, err)
		}
		want, err := engines[1].Recall(ctx, user, q, 500, &recall.Options{Now: now, GraphContext: true})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := packLines(got), packLines(want); !slices.Equal(g, w) {
			t.Fatalf("reader of %v, %q:\n cluster %s\n single  %s", read, q, g, w)
		}
		if len(visible) == 0 {
			seen["none"]++
			if len(got.Items) != 0 {
				t.Fatalf("reader of %v sees no set but got %d items", read, len(got.Items))
			}
			continue
		}
		seen["one"]++
		tag := strings.Join(visible[0], "")
		for _, it := range got.Items {
			if !strings.HasPrefix(it.ExternalID, tag+"-") || it.SourceTitle != "Harbor log of "+tag {
				t.Fatalf("reader of %v (set %v) got %s from %q", read, visible[0], it.ExternalID, it.SourceTitle)
			}
			for _, name := range it.Entities {
				if !slices.Contains(names[tag], name) {
					t.Fatalf("reader of %v (set %v) got entity %q, not one of %v", read, visible[0], name, names[tag])
				}
			}
		}
		if len(got.Items) == 0 {
			t.Fatalf("reader of %v (set %v): an empty pack", read, visible[0])
		}
	}
	if seen["refused"] == 0 || seen["one"] == 0 || seen["none"] == 0 {
		t.Fatalf("the random readers missed a case: %v", seen)
	}
}
