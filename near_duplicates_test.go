package recall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/recall-engine/recall"
)

// wordsKey is the words rule's key (Batch.DuplicateMatch "words"), computed here
// independently of the database: the text lowered, contractions written out, split into
// runs of letters and digits, articles and fillers dropped.
func wordsKey(text string) string {
	s := strings.ToLower(text)
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'", "`", "'").Replace(s)
	for _, c := range []struct{ re, to string }{
		{`\bwon't\b`, "will not"}, {`\bcan't\b|\bcannot\b`, "can not"}, {`n't\b`, " not"},
		{`'m\b`, " am"}, {`'re\b`, " are"}, {`'ve\b`, " have"}, {`'ll\b`, " will"},
	} {
		s = regexp.MustCompile(c.re).ReplaceAllString(s, c.to)
	}
	fillers := map[string]bool{"a": true, "an": true, "the": true, "just": true, "really": true, "very": true, "actually": true,
		"basically": true, "literally": true, "oh": true, "um": true, "uh": true, "hmm": true}
	var kept []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !fillers[w] {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// TestNearDuplicates writes random batches of notes drawn from families of near-alike
// texts, some restating each other under the words rule (articles, fillers, contractions,
// case and punctuation changed) and some not (a negation, a tense, a place, a number
// changed), with DuplicateMatch "words", and compares what is stored, linked, and counted
// on the restated memory (metadata restatements and restated_in, with skip) with the rule
// in Go. Hand-picked pairs pin the rule's meaning; a filler-only note restates nothing; an
// unknown match is refused.
func TestNearDuplicates(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"The user likes pizza.", "user really likes PIZZA!", true},
		{"I'm moving to Berlin.", "I am moving to Berlin", true},
		{"We won't sail.", "we will not sail", true},
		{"The user doesn't like pizza.", "The user likes pizza.", false},
		{"Ana lived in Lisbon.", "Ana lives in Lisbon.", false},
		{"Ana lives in Lisbon.", "Ana lives in Berlin.", false},
		{"The boat needs 2 new sails.", "The boat needs 3 new sails.", false},
	} {
		if got := wordsKey(c.a) == wordsKey(c.b); got != c.same {
			t.Fatalf("the reference says %q and %q are the same: %v, want %v", c.a, c.b, got, c.same)
		}
	}
	pool := []string{
		"The user likes pizza.", "user likes pizza", "User really likes pizza!", "The user liked pizza.",
		"The user doesn't like pizza.", "the user does not like pizza", "I'm moving to Berlin in May.",
		"I am moving to Berlin in May", "I am moving to Lisbon in May.", "I'm just moving to Berlin in May",
		"We won't sail on Sunday.", "we will not sail on sunday", "We will sail on Sunday.",
		"The boat needs a new mainsail.", "boat needs new mainsail", "The boat needs 2 new mainsails.",
	}
	r := rand.New(rand.NewPCG(35, 13))
	first := map[string]string{}  // words key -> the stored original's external id
	stored := map[string]string{} // external id -> "" (original) or the id it is linked to
	restated := map[string]int{}
	restatedIn := map[string][]string{}
	n := 0
	for round, policy := range []string{"skip", "link", "skip", "skip", "link", "skip"} {
		b := recall.Batch{Duplicates: policy, DuplicateMatch: "words"}
		for s := range 3 {
			b.Sources = append(b.Sources, recall.Source{ID: fmt.Sprintf("doc-%d-%d", round, s)})
		}
		for range 8 {
			n++
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("w%d", n), Text: pool[r.IntN(len(pool))], Source: b.Sources[r.IntN(3)].ID})
		}
		// The rule, in Go.
		want, batchFirst := map[string]string{}, map[string]string{}
		for _, m := range b.Memories {
			k := wordsKey(m.Text)
			switch {
			case first[k] != "":
				want[m.ID] = first[k]
			case batchFirst[k] != "":
				want[m.ID] = batchFirst[k]
			default:
				batchFirst[k] = m.ID
			}
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
				restated[of]++
				if !slices.Contains(restatedIn[of], m.Source) {
					restatedIn[of] = append(restatedIn[of], m.Source)
				}
			case dup:
				stored[m.ID] = of
			default:
				stored[m.ID] = ""
				first[wordsKey(m.Text)] = m.ID
			}
		}
	}
	if len(restated) < 3 || len(first) < 6 {
		t.Fatalf("the rounds checked too little: %d restated, %d originals", len(restated), len(first))
	}
	rows, err := db.Owner.Query(ctx, `SELECT m.external_id, coalesce(o.external_id, ''), m.metadata FROM recall.memories m
		LEFT JOIN recall.memories o ON o.id = m.duplicate_of WHERE m.scopes = '{team}'`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var id, of string
		var meta []byte
		if err := rows.Scan(&id, &of, &meta); err != nil {
			t.Fatal(err)
		}
		got[id] = of
		var md struct {
			Restatements int      `json:"restatements"`
			RestatedIn   []string `json:"restated_in"`
		}
		if err := json.Unmarshal(meta, &md); err != nil {
			t.Fatal(err)
		}
		if md.Restatements != restated[id] || !slices.Equal(md.RestatedIn, restatedIn[id]) {
			t.Errorf("%s: restated %d times in %v, the rule says %d in %v", id, md.Restatements, md.RestatedIn, restated[id], restatedIn[id])
		}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	for id, w := range stored {
		if g, ok := got[id]; !ok || g != w {
			t.Errorf("%s: stored %v, linked to %q; the rule: linked to %q", id, ok, g, w)
		}
	}
	if len(got) != len(stored) {
		t.Errorf("%d memories stored, the rule says %d", len(got), len(stored))
	}
	// Notes of fillers only have no words key: neither restates the other.
	res, err := e.Write(ctx, member, recall.Batch{Duplicates: "skip", DuplicateMatch: "words",
		Memories: []recall.Memory{{ID: "f1", Text: "Oh!"}, {ID: "f2", Text: "Um..."}}})
	if err != nil || res.Duplicates != 0 || res.Memories != 2 {
		t.Fatalf("filler notes: %+v, %v; want both stored", res, err)
	}
	var we *recall.WriteError
	if _, err := e.Write(ctx, member, recall.Batch{Duplicates: "skip", DuplicateMatch: "fuzzy", Memories: []recall.Memory{{ID: "y", Text: "t"}}}); !errors.As(err, &we) || we.Field != "duplicate_match" {
		t.Fatalf("match fuzzy: %v", err)
	}
}
