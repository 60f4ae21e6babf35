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
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// batchChat is a chat of three sessions (sources, one titled), two speakers, short messages
// the context lane reads past, turns longer than a passage, and names that come back across
// sessions, two of them spelled another way in the third.
func batchChat() recall.Batch {
	rng := rand.New(rand.NewPCG(54, 2))
	words := strings.Fields("harbor crane budget spring river mill bakery lemon bread festival tickets lantern " +
		"morning evening walked visited cooked painted garden museum train station ferry island coffee " +
		"market concert violin guitar recipe dinner weekend holiday photos camera mountain lake trail")
	names := []string{"Maria Gonzalez Lopez", "Kelly Brothers Garage", "Lisbon", "Grace Kim", "Porto Harbor Museum"}
	variants := map[string]string{"Maria Gonzalez Lopez": "Maria Gonzales Lopez", "Kelly Brothers Garage": "Kelly Brother Garage"}
	short := []string{"ok", "yes", "haha yes", "sure!"}
	b := recall.Batch{Sources: []recall.Source{{ID: "s1", Title: "Trip to Lisbon"}, {ID: "s2"}, {ID: "s3"}}}
	t0 := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	for s := range 3 {
		for p := 1; p <= 24; p++ {
			var text string
			switch {
			case rng.IntN(6) == 0:
				text = short[rng.IntN(len(short))]
			default:
				n := 6 + rng.IntN(30)
				if rng.IntN(5) == 0 {
					n = 100 + rng.IntN(150) // longer than a passage: cut in passages
				}
				w := make([]string, n)
				for i := range w {
					w[i] = words[rng.IntN(len(words))]
					if i%12 == 11 {
						w[i] += "."
					}
				}
				for range rng.IntN(5) {
					n := names[rng.IntN(len(names))]
					if v, ok := variants[n]; ok && s == 2 {
						n = v // the third session spells it another way
					}
					w[rng.IntN(len(w))] = n
				}
				text = strings.Join(w, " ") + "."
			}
			at := t0.Add(time.Duration(s*24*60+p) * time.Minute)
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("s%d-%d", s+1, p), Source: fmt.Sprintf("s%d", s+1),
				Position: p, Speaker: []string{"Ana", "Ben"}[p%2], Text: text, OccurredStart: &at})
		}
	}
	return b
}

// split cuts a batch's memories into batches of n, the sources with the first.
func split(b recall.Batch, n int) []recall.Batch {
	var out []recall.Batch
	for i := 0; i < len(b.Memories); i += n {
		part := recall.Batch{Memories: b.Memories[i:min(len(b.Memories), i+n)]}
		if i == 0 {
			part.Sources = b.Sources
		}
		out = append(out, part)
	}
	return out
}

// moreDerived are the derived rows derivedRows (citus_distributed_test.go) does not read:
// each memory's lexemes, passages and the time its text refers to, the passages' term
// frequencies of the postings, the entities with their derived aliases and keys, and each
// relation's evidence and validity.
var moreDerived = map[string]string{
	"memories": `SELECT m.external_id, m.lexemes::text, m.doc_len, m.passages::text, m.is_question, m.refers_start, m.refers_end
		FROM recall.memories m`,
	"passage postings": `SELECT m.external_id, p.term, p.ptf::text, p.pdoc_len::text
		FROM recall.bm25_postings p JOIN recall.memories m ON m.id = p.memory_id WHERE p.ptf IS NOT NULL`,
	"entities": `SELECT external_id, name, kind, aliases::text, derived_aliases::text, keys::text FROM recall.entities`,
	"relation evidence": `SELECT a.external_id, b.external_id, r.predicate, m.external_id, r.valid_from, r.valid_until
		FROM recall.relations r JOIN recall.entities a ON a.id = r.src_id JOIN recall.entities b ON b.id = r.dst_id
		LEFT JOIN recall.memories m ON m.id = r.memory_id`,
}

// written is derivedRows and moreDerived of db, each table's rows as sorted text lines.
func written(t *testing.T, db *testdb.DB) map[string][]string {
	t.Helper()
	out := derivedRows(t, db)
	for table, q := range moreDerived {
		rows, err := db.Owner.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		for rows.Next() {
			v, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], fmt.Sprint(v...))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out[table])
	}
	return out
}

// TestBatchSizesWriteTheSameRows: a chat written in one batch (as `recall ingest` of a file
// writes 500 turns a transaction), in batches of 7 (an agent's incremental writes, cut across
// sessions and through short messages and long turns) and a turn at a time leave
// the same derived rows in every table the writer derives, row for row: lexemes, passages,
// postings with the neighbours' words, statistics, document lengths, title trigrams, the
// entities extracted (a name spelled another way in a later session matched to the first
// spelling's entity, in one batch as across batches), mentions, co-mentions and their
// trigram postings.
func TestBatchSizesWriteTheSameRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	chat := batchChat()
	dbs := map[int]*testdb.DB{}
	for _, n := range []int{len(chat.Memories), 7, 1} {
		db, e := newWriteEngine(t)
		for _, b := range split(chat, n) {
			if _, err := e.Write(ctx, member, b); err != nil {
				t.Fatal(err)
			}
		}
		dbs[n] = db
	}
	whole := written(t, dbs[len(chat.Memories)])
	if len(whole["postings"]) < 1000 || len(whole["passage postings"]) == 0 || len(whole["titles"]) == 0 || len(whole["relations"]) < 20 {
		t.Fatalf("the fixture derives too little: %d postings (%d of passages), %d title trigrams, %d relations",
			len(whole["postings"]), len(whole["passage postings"]), len(whole["titles"]), len(whole["relations"]))
	}
	// The third session's spellings are the first sessions' entities, in one batch too.
	for _, e := range whole["entities"] {
		if strings.HasPrefix(e, "auto:kelly brother garage") || strings.HasPrefix(e, "auto:maria gonzales lopez") {
			t.Errorf("a second spelling became an entity of its own: %s", e)
		}
	}
	for _, n := range []int{7, 1} {
		parts := written(t, dbs[n])
		for table := range whole {
			a, b := whole[table], parts[table]
			if slices.Equal(a, b) {
				continue
			}
			onlyA, onlyB := difference(a, b), difference(b, a)
			t.Errorf("%s: %d rows in one batch, %d in batches of %d; only in one batch (first 5): %q; only in batches of %d: %q",
				table, len(a), len(b), n, onlyA[:min(5, len(onlyA))], n, onlyB[:min(5, len(onlyB))])
		}
	}
}

// difference is the lines of a not in b (both sorted).
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}
