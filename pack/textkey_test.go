package pack_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall/pack"
	"github.com/recall-engine/recall/statement"
)

// TestUnitsFindEveryRestatement: Units, which reads the TextKey of the candidates whose cheap
// signatures meet only, groups restatements as the rule written with every candidate's
// TextKey does: a candidate restates the first one above it of the same kind, speaker and
// non-empty TextKey. Random heads of texts said again in other cases and punctuation, with
// accents, and anagrams (the same letters in another order: equal signatures, other keys).
func TestUnitsFindEveryRestatement(t *testing.T) {
	t.Parallel()
	base := []string{"the crane was fixed", "was the crane fixed", "café olé 42", "olé café 24", "Ann moved", "nan moved", "", "?!"}
	vary := func(r *rand.Rand, s string) string {
		var b strings.Builder
		for _, w := range strings.Fields(s) {
			if r.IntN(3) == 0 {
				w = strings.ToUpper(w)
			}
			b.WriteString(w + []string{" ", ",  ", "! ", " — "}[r.IntN(4)])
		}
		return b.String()
	}
	r := rand.New(rand.NewPCG(11, 13))
	groups := 0
	for range 2000 {
		head := make([]pack.Ranked, 5+r.IntN(20))
		for i := range head {
			head[i] = pack.Ranked{Candidate: statement.Candidate{ID: int64(i + 1), ExternalID: fmt.Sprint(i + 1),
				Kind: []string{"world", "experience"}[r.IntN(2)], Speaker: []string{"", "Ann"}[r.IntN(2)],
				Text: vary(r, base[r.IntN(len(base))])}, FusedRank: i + 1}
		}
		// The rule with every key: the first candidate of each (kind, speaker, key) is a unit.
		type key struct{ kind, speaker, text string }
		first := map[key]string{}
		want := map[string][]string{} // unit -> its restatements
		var wantUnits []string
		for _, c := range head {
			k := key{c.Kind, c.Speaker, pack.TextKey(c.Text)}
			if u, ok := first[k]; ok && k.text != "" {
				want[u] = append(want[u], c.ExternalID)
				continue
			}
			first[k] = c.ExternalID
			wantUnits = append(wantUnits, c.ExternalID)
		}
		var gotUnits []string
		got := map[string][]string{}
		for _, u := range pack.Units(head, 0) {
			h := u.Members[u.Hit]
			gotUnits = append(gotUnits, h.ExternalID)
			for _, x := range h.AlsoSaid {
				got[h.ExternalID] = append(got[h.ExternalID], x.ExternalID)
			}
		}
		if !slices.Equal(gotUnits, wantUnits) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("units %v also said %v, want %v and %v", gotUnits, got, wantUnits, want)
		}
		groups += len(want)
	}
	if groups == 0 {
		t.Fatal("no head held a restatement: the fixture measures nothing")
	}
}
