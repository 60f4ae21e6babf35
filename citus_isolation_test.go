package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
)

// TestCitusIsolation: random users over overlapping scope sets on the cluster. The rule in
// Go says which sets a user sees (those sharing a scope with its read scopes): a user who
// sees one gets exactly the single server's pack, every item, source title and entity name
// of that set; one who sees none an empty pack; one who sees several the single server's
// pack, read on their worker when their shards share one and in rounds on both when not
// (statement.RunSpread), never answered from some of them.
// Every reader browses and reads memories as on one server, rows of its sets alone
// (browseAlike).
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
	pages := rand.New(rand.NewPCG(34, 6)) // browseAlike's, apart: the readers stay those drawn before it
	words := strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed")
	for si, sc := range sets {
		tag := strings.Join(sc, "")
		var at *time.Time // some logs have a time and some not: Browse's sources are ordered by it
		if si%2 == 0 {
			at = new(now.AddDate(0, 0, -si))
		}
		b := recall.Batch{Scopes: sc, Sources: []recall.Source{{ID: "log", Title: "Harbor log of " + tag, OccurredAt: at}},
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
	// Each set's worker: a reader of several sets all on one worker is read there (the single
	// server's pack), of sets on two workers refused.
	worker := map[string]string{}
	for i, w := range setWorkers(t, cdb, sets) {
		worker[strings.Join(sets[i], "")] = w
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
		browseAlike(t, engines, user, sets, visible, pages, words)
		q := "What did Person " + strings.Join(sets[r.IntN(len(sets))], "") + " say about the " + words[r.IntN(len(words))] + " at the harbor log?"
		got, err := engines[0].Recall(ctx, user, q, 500, &recall.Options{Now: now, GraphContext: true})
		var tags []string
		workers := map[string]bool{}
		for _, v := range visible {
			tags = append(tags, strings.Join(v, ""))
			workers[worker[tags[len(tags)-1]]] = true
		}
		if err != nil {
			t.Fatalf("reader of %v (sets %v on %d workers): %v", read, visible, len(workers), err)
		}
		if len(workers) > 1 {
			seen["apart"]++
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
		if len(workers) == 1 {
			seen[map[bool]string{true: "one", false: "several on one worker"}[len(visible) == 1]]++
		}
		for _, it := range got.Items {
			tag := strings.SplitN(it.ExternalID, "-", 2)[0]
			if !slices.Contains(tags, tag) || it.SourceTitle != "Harbor log of "+tag {
				t.Fatalf("reader of %v (sets %v) got %s from %q", read, visible, it.ExternalID, it.SourceTitle)
			}
			for _, name := range it.Entities {
				if !slices.Contains(names[tag], name) {
					t.Fatalf("reader of %v (sets %v) got entity %q of %s, not one of %v", read, visible, name, it.ExternalID, names[tag])
				}
			}
		}
		if len(got.Items) == 0 {
			t.Fatalf("reader of %v (sets %v): an empty pack", read, visible)
		}
	}
	if seen["apart"] == 0 || seen["one"] == 0 || seen["none"] == 0 {
		t.Fatalf("the random readers missed a case: %v", seen)
	}
}

// browseAlike: user browses and reads memories on the cluster (engines[0]) exactly as on one
// server (engines[1]), on random pages, and every row, source and memory is of a set it sees
// (visible, the Go rule's of sets; a set's memories are its scopes joined, a dash and 0 to 9,
// in a source "log").
func browseAlike(t *testing.T, engines []*recall.Engine, user recall.User, sets, visible [][]string, r *rand.Rand, words []string) {
	t.Helper()
	ctx := context.Background()
	sees := func(scopes []string) bool {
		return slices.ContainsFunc(visible, func(v []string) bool { return slices.Equal(v, scopes) })
	}
	qs := []recall.BrowseQuery{{Limit: 1 + r.IntN(12), Offset: r.IntN(15)}, {Source: "log", Limit: 1 + r.IntN(30), Offset: r.IntN(5)},
		{Text: words[r.IntN(len(words))], Limit: 200}}
	for _, q := range qs {
		var res [2]recall.BrowseResult
		for i, e := range engines {
			var err error
			if res[i], err = e.Browse(ctx, user, q); err != nil {
				t.Fatalf("browse %+v as %v on engine %d: %v", q, user.Read, i, err)
			}
		}
		if g, w := jsonOf(t, res[0]), jsonOf(t, res[1]); g != w {
			t.Fatalf("browse %+v as %v:\n cluster %s\n single  %s", q, user.Read, g, w)
		}
		for _, m := range res[0].Memories {
			if !sees(m.Scopes) {
				t.Fatalf("browse as %v (sets %v) listed %s of %v", user.Read, visible, m.ID, m.Scopes)
			}
		}
		if len(res[0].Sources) != len(visible) {
			t.Fatalf("browse as %v (sets %v): %d sources", user.Read, visible, len(res[0].Sources))
		}
	}
	for _, set := range sets {
		id := strings.Join(set, "") + "-" + fmt.Sprint(r.IntN(10))
		var d [2][]recall.MemoryDetail
		for i, e := range engines {
			var err error
			if d[i], err = e.Memory(ctx, user, id, ""); err != nil {
				t.Fatalf("memory %s as %v on engine %d: %v", id, user.Read, i, err)
			}
			for j := range d[i] {
				d[i][j].CreatedAt = time.Time{} // the wall clock of each write
			}
		}
		if g, w := jsonOf(t, d[0]), jsonOf(t, d[1]); g != w || (len(d[0]) == 1) != sees(set) || len(d[0]) > 1 {
			t.Fatalf("memory %s as %v (sets %v):\n cluster %s\n single  %s", id, user.Read, visible, g, w)
		}
	}
}
