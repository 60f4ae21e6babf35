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
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/pack"
)

// dupKey is the duplicate rule's key, computed here independently of the database: kind,
// speaker, and the text lowered with every run of other characters than letters and digits
// one space, trimmed.
func dupKey(m recall.Memory) string {
	kind := m.Kind
	if kind == "" {
		kind = "world"
	}
	words := strings.FieldsFunc(strings.ToLower(m.Text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return kind + "\x00" + m.Speaker + "\x00" + strings.Join(words, " ")
}

// TestDuplicates writes random batches of notes that restate each other (case, punctuation
// and spacing changed) and conversation turns, under each policy, and compares what is
// stored, linked and counted with the rule in Go: a placeless memory whose key (dupKey) a
// stored placeless memory of the scope set, not itself a duplicate, or an earlier one of the
// batch has, and whose id is not stored yet, is a duplicate of the first such. Skipped ones
// are not stored and a relation naming one as evidence points at the one it restates; linked
// ones are stored, never recalled; a turn is never a duplicate; another scope set's same text
// is not; deleting an original frees its duplicates; an unknown policy is refused.
func TestDuplicates(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 3))
	facts := []string{"Ana likes green tea.", "The boat needs a new mainsail.", "Bo's flat is on Rua Augusta.", "The regatta is in June."}
	variant := func(s string) string {
		switch r.IntN(4) {
		case 0:
			return strings.ToUpper(s)
		case 1:
			return strings.ReplaceAll(s, " ", "  ") + "!!"
		case 2:
			return strings.ToLower(strings.TrimSuffix(s, "."))
		}
		return s
	}
	first := map[string]string{}  // key -> the external id of the stored original
	stored := map[string]string{} // external id -> "" (original) or the id it is linked to
	n := 0
	for round, policy := range []string{"keep", "skip", "link", "skip", "link", ""} {
		var b recall.Batch
		b.Duplicates = policy
		b.Sources = []recall.Source{{ID: fmt.Sprintf("chat-%d", round)}}
		for i := range 6 {
			n++
			m := recall.Memory{ID: fmt.Sprintf("n%d", n), Text: variant(facts[r.IntN(len(facts))])}
			if r.IntN(4) == 0 {
				m.Speaker = "Bo"
			}
			if r.IntN(5) == 0 {
				m.Kind = "experience"
			}
			b.Memories = append(b.Memories, m)
			// A turn restating the same words is never a duplicate.
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("t%d-%d", round, i), Source: b.Sources[0].ID, Position: i + 1, Text: "Yes!"})
		}
		b.Entities = []recall.Entity{{ID: "ana", Name: "Ana Lima"}, {ID: "tea", Name: "green tea"}}
		b.Relations = []recall.Relation{{From: "ana", To: "tea", Predicate: "likes", Memory: b.Memories[0].ID}}
		// The rule, in Go.
		want, batchFirst := map[string]string{}, map[string]string{}
		for _, m := range b.Memories {
			if m.Position > 0 {
				continue
			}
			k := dupKey(m)
			switch {
			case first[k] != "":
				want[m.ID] = first[k]
			case batchFirst[k] != "":
				want[m.ID] = batchFirst[k]
			default:
				batchFirst[k] = m.ID
			}
		}
		if policy == "" || policy == "keep" {
			want = map[string]string{}
		}
		res, err := e.Write(ctx, member, b)
		if err != nil {
			t.Fatalf("round %d (%s): %v", round, policy, err)
		}
		if res.Duplicates != len(want) {
			t.Fatalf("round %d (%s): %d duplicates counted, the rule says %d: %v", round, policy, res.Duplicates, len(want), want)
		}
		for _, m := range b.Memories {
			of, dup := want[m.ID]
			switch {
			case dup && policy == "skip":
			case dup:
				stored[m.ID] = of
			default:
				stored[m.ID] = ""
				if m.Position == 0 && first[dupKey(m)] == "" {
					first[dupKey(m)] = m.ID
				}
			}
		}
		// The relation's evidence: the memory itself, or the one it restates when skipped.
		ev := b.Memories[0].ID
		if of, ok := want[ev]; ok && policy == "skip" {
			ev = of
		}
		if c := count(t, db, `SELECT count(*) FROM recall.relations r JOIN recall.memories m ON m.id = r.memory_id WHERE m.external_id = $1`, ev); c == 0 {
			t.Fatalf("round %d (%s): no relation has %s as evidence", round, policy, ev)
		}
	}
	if len(first) < 4 || len(stored) == n+36 {
		t.Fatalf("the rounds checked too little: %d keys, %d stored", len(first), len(stored))
	}
	got := map[string]string{}
	rows, err := db.Owner.Query(ctx, `SELECT m.external_id, coalesce(o.external_id, '') FROM recall.memories m
		LEFT JOIN recall.memories o ON o.id = m.duplicate_of WHERE m.scopes = '{team}'`)
	if err != nil {
		t.Fatal(err)
	}
	var ext, of string
	if _, err := pgx.ForEachRow(rows, []any{&ext, &of}, func() error { got[ext] = of; return nil }); err != nil {
		t.Fatal(err)
	}
	for id, w := range stored {
		if g, ok := got[id]; !ok || g != w {
			t.Errorf("%s: stored %v, linked to %q; the rule: linked to %q", id, ok, g, w)
		}
	}
	if len(got) != len(stored) {
		t.Errorf("%d memories stored, the rule says %d", len(got), len(stored))
	}
	// A linked duplicate is never recalled; its original is.
	var linked, orig string
	for id, o := range stored {
		if o != "" && (linked == "" || id < linked) {
			linked, orig = id, o
		}
	}
	if linked == "" {
		t.Fatal("no linked duplicate to recall")
	}
	text := func(id string) string {
		var s string
		if err := db.Owner.QueryRow(ctx, `SELECT text FROM recall.memories WHERE external_id = $1 AND scopes = '{team}'`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	p, err := e.Recall(ctx, member, text(linked), 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ids := p.IDs(); slices.Contains(ids, linked) || !slices.Contains(ids, orig) {
		t.Fatalf("recall of %q: %v, want %s and never its duplicate %s", text(linked), ids, orig, linked)
	}
	// Deleting the original frees its duplicates.
	if _, err := e.Delete(ctx, member, nil, []string{orig}); err != nil {
		t.Fatal(err)
	}
	if c := count(t, db, `SELECT count(*) FROM recall.memories WHERE external_id = $1 AND duplicate_of IS NULL`, linked); c != 1 {
		t.Fatalf("%s still a duplicate after its original went", linked)
	}
	// Another scope set's same text is no duplicate; an unknown policy is refused.
	other := recall.User{ID: "o", Read: []string{"other", "team"}, Write: []string{"other", "team"}}
	res, err := e.Write(ctx, other, recall.Batch{Scopes: []string{"other"}, Duplicates: "skip", Memories: []recall.Memory{{ID: "x1", Text: facts[0]}}})
	if err != nil || res.Duplicates != 0 {
		t.Fatalf("another scope set: %+v, %v", res, err)
	}
	var we *recall.WriteError
	if _, err := e.Write(ctx, member, recall.Batch{Duplicates: "merge", Memories: []recall.Memory{{ID: "y", Text: "t"}}}); !errors.As(err, &we) || we.Field != "duplicates" {
		t.Fatalf("policy merge: %v", err)
	}
}

// TestRestatementsPackOnce: under the default policy (keep) a restated note is stored twice,
// and a recall packs its words once, naming the other memory (with when it was said) in the
// item's AlsoSaid; the pack's rule (pack.TextKey) is recall.text_key's, the write path's
// duplicate key, on texts of every kind of character.
func TestRestatementsPackOnce(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	u := recall.User{ID: "u", Read: []string{"team"}, Write: []string{"team"}}
	b := recall.Batch{Memories: []recall.Memory{
		{ID: "first", Text: "Ana likes green tea.", OccurredStart: day("2024-03-01")},
		{ID: "again", Text: "ana likes GREEN  tea!!", OccurredStart: day("2024-04-01")},
		{ID: "bo", Text: "Bo likes strong coffee.", OccurredStart: day("2024-03-02")},
		{ID: "told", Text: "Ana likes green tea.", Speaker: "Bo", OccurredStart: day("2024-03-03")}, // another speaker: kept
	}}
	if _, err := e.Write(ctx, u, b); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM recall.memories WHERE duplicate_of IS NULL`); n != 4 {
		t.Fatalf("%d memories stored as themselves, want 4 (keep links nothing)", n)
	}
	p, err := e.Recall(ctx, u, "What does Ana like to drink, green tea?", 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tea []recall.Item
	for _, it := range p.Items {
		if it.ExternalID == "first" || it.ExternalID == "again" {
			tea = append(tea, it)
		}
	}
	if len(tea) != 1 {
		t.Fatalf("the restated note packed %d times, want once: %v", len(tea), p.IDs())
	}
	other := map[string]string{"first": "again", "again": "first"}[tea[0].ExternalID]
	if got := tea[0].AlsoSaid; len(got) != 1 || got[0].ExternalID != other || got[0].OccurredStart == nil ||
		!got[0].OccurredStart.Equal(*map[string]*time.Time{"first": day("2024-03-01"), "again": day("2024-04-01")}[other]) {
		t.Fatalf("%s's also_said %+v, want %s with its date", tea[0].ExternalID, got, other)
	}
	if !slices.Contains(p.IDs(), "told") || !slices.Contains(p.IDs(), "bo") {
		t.Fatalf("pack %v, want Bo's restatement and the coffee note kept", p.IDs())
	}
	r := rand.New(rand.NewPCG(52, 4))
	alphabet := []rune("aZ9 .,!?-_\t\nÉéßΩж中٣'’\"()…")
	for range 300 {
		s := make([]rune, r.IntN(12))
		for i := range s {
			s[i] = alphabet[r.IntN(len(alphabet))]
		}
		var want string
		if err := db.Owner.QueryRow(ctx, `SELECT recall.text_key($1)`, string(s)).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := pack.TextKey(string(s)); got != want {
			t.Fatalf("pack.TextKey(%q) = %q, recall.text_key %q", string(s), got, want)
		}
	}
}
