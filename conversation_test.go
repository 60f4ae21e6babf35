package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// turn is one generated conversation turn.
type turn struct {
	id, session, speaker, text string
	position                   int
}

// The conversation tests check the pack's rules (neighbours, runs, the cut) over the
// statement's order: their engine runs without the learned order (TestLearnedOrder covers it).

// conversation writes sessions of turns between two speakers: topic words, some questions,
// some short replies, a few names. It returns the turns in order.
func conversation(t *testing.T, e *recall.Engine, seed uint64, sessions, per int) []turn {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	words := strings.Fields("harbor lantern violin orchard glacier compass falcon meadow copper ember river castle")
	speakers := []string{"Ana Lima", "Bo Chen"}
	var out []turn
	b := recall.Batch{}
	for s := range sessions {
		src := fmt.Sprintf("session-%d", s+1)
		b.Sources = append(b.Sources, recall.Source{ID: src})
		for p := 1; p <= per; p++ {
			sp := speakers[(p+s)%2]
			var text string
			switch r.IntN(4) {
			case 0:
				text = "Yes, last week!"
			case 1:
				text = fmt.Sprintf("Did you see the %s near the %s?", words[r.IntN(len(words))], words[r.IntN(len(words))])
			default:
				n := 4 + r.IntN(14)
				ws := make([]string, n)
				for i := range ws {
					ws[i] = words[r.IntN(len(words))]
				}
				text = "I walked by the " + strings.Join(ws, " ") + " with Cara Diaz."
			}
			tr := turn{id: fmt.Sprintf("c:%d:%d", s+1, p), session: src, speaker: sp, text: sp + ": " + text, position: p}
			out = append(out, tr)
			b.Memories = append(b.Memories, recall.Memory{ID: tr.id, Source: src, Position: p, Speaker: sp, Text: tr.text, Kind: "experience"})
		}
	}
	if _, err := e.Write(context.Background(), member, b); err != nil {
		t.Fatal(err)
	}
	return out
}

// conversationEngine is an engine on a fresh database with a small hashing embedder and no
// access recording.
func conversationEngine(t *testing.T) (*testdb.DB, *recall.Engine) {
	t.Helper()
	db := testdb.New(t)
	emb, err := embed.NewHashing(64)
	if err != nil {
		t.Fatal(err)
	}
	e, err := recall.New(context.Background(), recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true, Order: ranker.Off()})
	if err != nil {
		t.Fatal(err)
	}
	return db, e
}

// TestContextRuns: a pack gives each of the best ContextHits candidates with a place the
// neighbour it needs, as a run in place order: after a question the next turn when someone
// else said it and it has at most ContextAnswer words, before a reply of at most
// ContextShort words the turn it answers, each memory once. Checked against the rule computed in Go from the turns, over several questions and
// budgets; Trace.Reorder with the recall's settings gives the pack's order.
func TestContextRuns(t *testing.T) {
	t.Parallel()
	_, e := conversationEngine(t)
	turns := conversation(t, e, 7, 4, 12)
	byID := map[string]turn{}
	at := map[[2]any]turn{}
	for _, tr := range turns {
		byID[tr.id] = tr
		at[[2]any{tr.session, tr.position}] = tr
	}
	// Answers longer than the median turn stand on their own: some answers come along, some
	// do not.
	s := e.Settings()
	var lens []int
	for _, tr := range turns {
		lens = append(lens, len(strings.Fields(tr.text)))
	}
	slices.Sort(lens)
	s.ContextAnswer = lens[len(lens)/2]
	if err := e.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	checked, long := 0, 0
	for _, q := range []string{"harbor lantern", "violin near the orchard?", "glacier compass falcon", "copper ember river castle", "yes last week"} {
		tr, err := e.Trace(ctx, member, q, 1_000_000, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: walk the fused candidates; the first ContextHits of them (all have a
		// place) bring their neighbours by the rule.
		var want []string
		seen := map[string]bool{}
		add := func(id string) {
			if !seen[id] {
				seen[id] = true
				want = append(want, id)
			}
		}
		said := map[string]bool{} // what the hits so far say: a restatement packs once
		for i, c := range tr.Candidates[:tr.K] {
			if seen[c.ExternalID] {
				continue
			}
			cur := byID[c.ExternalID]
			key := cur.speaker + "\x00" + strings.Join(strings.FieldsFunc(strings.ToLower(cur.text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
			if said[key] {
				seen[cur.id] = true
				continue
			}
			said[key] = true
			var before, after string
			if i < s.ContextHits {
				if strings.Contains(cur.text, "?") {
					if n, ok := at[[2]any{cur.session, cur.position + 1}]; ok && n.speaker != cur.speaker && !seen[n.id] {
						if len(strings.Fields(n.text)) <= s.ContextAnswer {
							after = n.id
						} else {
							long++
						}
					}
				}
				if len(strings.Fields(cur.text)) <= s.ContextShort {
					if p, ok := at[[2]any{cur.session, cur.position - 1}]; ok && !seen[p.id] {
						before = p.id
					}
				}
			}
			for _, id := range []string{before, cur.id, after} {
				if id != "" {
					add(id)
				}
			}
		}
		got := tr.Pack.IDs()
		if !slices.Equal(got, want) {
			t.Fatalf("%q: pack\n %v\nwant\n %v", q, got, want)
		}
		if reo := tr.Reorder(tr.Settings); !slices.Equal(reo, got) {
			t.Fatalf("%q: Reorder with the recall's settings gives\n %v\nthe pack\n %v", q, reo, got)
		}
		// A run's items are adjacent, share a run number, and a neighbour says why it is there.
		runs := map[int][]recall.Item{}
		for _, it := range tr.Pack.Items {
			if it.Run > 0 {
				runs[it.Run] = append(runs[it.Run], it)
			}
			if (it.Context != "") != (it.Run > 0 && it.StatementRank == 0) {
				t.Fatalf("%q: item %s: context %q, run %d, statement rank %d", q, it.ExternalID, it.Context, it.Run, it.StatementRank)
			}
		}
		for n, items := range runs {
			for i := 1; i < len(items); i++ {
				if items[i].Position != items[i-1].Position+1 {
					t.Fatalf("%q: run %d is not in place order: %v", q, n, items)
				}
			}
			checked++
		}
		// An attached item names its anchor (the run's item a lane found) and says, in the
		// pack's words, which way it serves it; a candidate that came as a neighbour is
		// packed in the trace, never "beyond K".
		for i, it := range tr.Pack.Items {
			if it.Context == "" {
				if it.AttachedTo != 0 || tr.Pack.Attachment(i) != "" {
					t.Fatalf("%q: %s is attached to %d without a reason", q, it.ExternalID, it.AttachedTo)
				}
				continue
			}
			var anchor recall.Item
			for _, x := range runs[it.Run] {
				if x.Context == "" {
					anchor = x
				}
			}
			words := tr.Pack.Attachment(i)
			switch {
			case it.AttachedTo != anchor.ID || anchor.ID == 0:
				t.Fatalf("%q: %s attached to %d, its run's anchor is %d", q, it.ExternalID, it.AttachedTo, anchor.ID)
			case it.Context == "answer" && (it.Position != anchor.Position+1 || !strings.Contains(words, "the question just before it")):
				t.Fatalf("%q: %s answers %s: %q", q, it.ExternalID, anchor.ExternalID, words)
			case it.Context == "reply_to" && (it.Position != anchor.Position-1 || !strings.Contains(words, "reply just after it")):
				t.Fatalf("%q: %s is what %s replies to: %q", q, it.ExternalID, anchor.ExternalID, words)
			case !strings.Contains(words, anchor.ExternalID):
				t.Fatalf("%q: %q does not name the anchor %s", q, words, anchor.ExternalID)
			}
			if c := tr.Find(it.ID); c != nil && (c.Decision != recall.Packed || c.AttachedTo != anchor.ID) {
				t.Fatalf("%q: candidate %s, packed as %s's neighbour: decision %s, attached to %d", q, it.ExternalID, anchor.ExternalID, c.Decision, c.AttachedTo)
			}
		}
		// With a budget the run is packed whole or skipped.
		p, err := e.Recall(ctx, member, q, 60, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			if it.Run == 0 {
				continue
			}
			n := 0
			for _, x := range p.Items {
				if x.Run == it.Run {
					n++
				}
			}
			if n != len(runs[it.Run]) && !it.Truncated {
				t.Fatalf("%q, budget 60: run %d packed %d of its items", q, it.Run, n)
			}
		}
	}
	if long == 0 {
		t.Fatal("no answer was longer than ContextAnswer: the test checks nothing of that rule")
	}
	if checked == 0 {
		t.Fatal("no question brought a neighbour: the check is vacuous")
	}
}

// TestRelativeCut: with a cut ratio, candidates under it times the best fused score go
// unless a lane ranks them at least CutRank; the pack counts them, and Reorder agrees.
func TestRelativeCut(t *testing.T) {
	t.Parallel()
	_, e := conversationEngine(t)
	conversation(t, e, 8, 3, 15)
	ctx := context.Background()
	s := e.Settings()
	s.CutRatio, s.CutRank, s.ContextHits = 0.3, 3, 0
	if err := e.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	tr, err := e.Trace(ctx, member, "harbor lantern violin", 1_000_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	top := tr.Candidates[0].Score
	var want []string
	for _, c := range tr.Candidates[:tr.K] {
		best := 0
		for _, h := range c.Lanes {
			if h.Rank > 0 && (best == 0 || h.Rank < best) {
				best = h.Rank
			}
		}
		if c.Score >= s.CutRatio*top || (best > 0 && best <= s.CutRank) {
			want = append(want, c.ExternalID)
		}
	}
	got := tr.Pack.IDs()
	if !slices.Equal(got, want) || tr.Pack.Cut != tr.K-len(want) || tr.Pack.Cut == 0 {
		t.Fatalf("kept %v (cut %d), want %v (cut %d of %d)", got, tr.Pack.Cut, want, tr.K-len(want), tr.K)
	}
	if reo := tr.Reorder(s); !slices.Equal(reo, got) {
		t.Fatalf("Reorder %v, pack %v", reo, got)
	}
}

// TestSpeakersAndAliases: a speaker is not mentioned by what it says, so naming her does not
// bring her turns through the mention lane; a first name or surname no other person of the
// scope set has links to its person, in texts and in questions, unless blocked.
func TestSpeakersAndAliases(t *testing.T) {
	t.Parallel()
	db, e := conversationEngine(t)
	ctx := context.Background()
	_, err := e.Write(ctx, member, recall.Batch{
		Sources:  []recall.Source{{ID: "chat"}},
		Entities: []recall.Entity{{ID: "kb", Name: "Kofi Boateng", Kind: "person", BlockedAliases: []string{"Boateng"}}},
		Memories: []recall.Memory{
			{ID: "t1", Source: "chat", Position: 1, Speaker: "Kofi Mensah", Text: "Kofi Mensah: I am building a boat."},
			{ID: "t2", Source: "chat", Position: 2, Speaker: "Ama Owusu", Text: "Ama Owusu: Mensah, that is great!"},
			{ID: "t3", Source: "chat", Position: 3, Speaker: "Kofi Mensah", Text: "Kofi Mensah: Owusu helped me."},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	aliases := map[string][]string{}
	rows, err := db.Owner.Query(ctx, `SELECT name, derived_aliases FROM recall.entities WHERE kind = 'person' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		var a []string
		if err := rows.Scan(&n, &a); err != nil {
			t.Fatal(err)
		}
		aliases[n] = a
	}
	// "kofi" is two persons' first name; "boateng" is blocked.
	want := map[string][]string{"Ama Owusu": {"ama", "owusu"}, "Kofi Boateng": {}, "Kofi Mensah": {"mensah"}}
	for n, a := range want {
		if !slices.Equal(aliases[n], a) {
			t.Fatalf("%s: derived aliases %v, want %v (all: %v)", n, aliases[n], a, aliases)
		}
	}
	// Texts: "Mensah" in t2 and "Owusu" in t3 link to the persons; no turn mentions its own
	// speaker, and each has one speaker row.
	mentions := map[string][]string{}
	rows, err = db.Owner.Query(ctx, `SELECT m.external_id, e.name || CASE WHEN x.speaker THEN ' (speaker)' ELSE '' END
		FROM recall.mentions x JOIN recall.memories m ON m.id = x.memory_id JOIN recall.entities e ON e.id = x.entity_id ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m, n string
		if err := rows.Scan(&m, &n); err != nil {
			t.Fatal(err)
		}
		mentions[m] = append(mentions[m], n)
	}
	wantM := map[string][]string{
		"t1": {"Kofi Mensah (speaker)"},
		"t2": {"Ama Owusu (speaker)", "Kofi Mensah"},
		"t3": {"Kofi Mensah (speaker)", "Ama Owusu"},
	}
	for m, ns := range wantM {
		slices.Sort(ns)
		if !slices.Equal(mentions[m], ns) {
			t.Fatalf("%s mentions %v, want %v", m, mentions[m], ns)
		}
	}
	// Asking about Mensah by surname: the mention lane finds the turn that names him, not the
	// turns he speaks.
	tr, err := e.Trace(ctx, member, "What did Mensah hear?", 1000, &recall.Options{Plan: statement.Only(statement.Mention)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, i := range tr.Lanes[statement.Mention] {
		got = append(got, tr.Candidates[i].ExternalID)
	}
	if !slices.Equal(got, []string{"t2"}) {
		t.Fatalf("mention lane for Mensah: %v, want [t2]", got)
	}
	// The pack gives t2 with the turn it replies to.
	if ids := tr.Pack.IDs(); !slices.Equal(ids, []string{"t1", "t2"}) || tr.Pack.Items[0].Context != "reply_to" {
		t.Fatalf("pack %v (%+v)", ids, tr.Pack.Items)
	}
}
