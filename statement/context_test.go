package statement_test

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// place is a memory's place in its source and who said it.
type place struct {
	source, pos int64
	speaker     string
	question    bool
}

// shortWords is sql/write/bm25.sql's short_words: a neighbour shorter than this is read past.
const shortWords = 7

// contextReference scores every visible memory as the context lane is defined, from the
// visible rows alone: a memory with a place by BM25 over its terms plus w times its
// neighbours' (same source, places one before and after, and two away on a side where the
// one before or after has fewer than shortWords lexemes), with N, df and avgdl over the
// memories with a place (df counting a term in a neighbour as in the memory, lengths counting
// neighbours at w); a memory without a place by its own BM25 over every visible memory (the
// bm25 lane's score); then each of the top k questions hands a times its score to the next
// memory when someone else said it, which scores the better of that and its own.
func contextReference(tf map[int64]map[string]int, dl map[int64]int, places map[int64]place, terms []string, s statement.Settings) map[int64]float64 {
	at := map[[2]int64]int64{}
	for id, p := range places {
		at[[2]int64{p.source, p.pos}] = id
	}
	neighbours := func(id int64) []int64 {
		p := places[id]
		var out []int64
		for _, d := range []int64{-1, 1} {
			n, ok := at[[2]int64{p.source, p.pos + d}]
			if !ok {
				continue
			}
			out = append(out, n)
			if far, ok := at[[2]int64{p.source, p.pos + 2*d}]; ok && dl[n] < shortWords {
				out = append(out, far)
			}
		}
		return out
	}
	ntf := map[int64]map[string]int{}
	ndl := map[int64]int{}
	var n, clen, cnlen float64
	for id := range places {
		ntf[id] = map[string]int{}
		for _, nb := range neighbours(id) {
			for term, f := range tf[nb] {
				ntf[id][term] += f
			}
			ndl[id] += dl[nb]
		}
		n++
		clen += float64(dl[id])
		cnlen += float64(ndl[id])
	}
	w, k1, b := s.ContextWeight, s.BM25K1, s.BM25B
	avg := (clen + w*cnlen) / n
	scores := map[int64]float64{}
	for _, term := range terms {
		var df float64
		for id := range places {
			if tf[id][term] > 0 || ntf[id][term] > 0 {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for id := range places {
			f := float64(tf[id][term]) + w*float64(ntf[id][term])
			if f == 0 {
				continue
			}
			x := float64(dl[id]) + w*float64(ndl[id])
			scores[id] += idf * f * (k1 + 1) / (f + k1*(1-b+b*x/avg))
		}
	}
	for id, v := range bm25Reference(tf, dl, terms, k1, b) {
		if _, placed := places[id]; !placed {
			scores[id] = v
		}
	}
	ids := make([]int64, 0, len(scores))
	for id := range scores {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if scores[ids[i]] != scores[ids[j]] {
			return scores[ids[i]] > scores[ids[j]]
		}
		return ids[i] < ids[j]
	})
	out := map[int64]float64{}
	for id, v := range scores {
		out[id] = v
	}
	for _, id := range ids[:min(len(ids), s.ContextK)] {
		p := places[id]
		next, ok := at[[2]int64{p.source, p.pos + 1}]
		if s.ContextHandoff > 0 && p.question && ok && places[next].speaker != p.speaker {
			out[next] = max(out[next], s.ContextHandoff*scores[id]) // the better of its own and the handoff
		}
	}
	return out
}

// TestContextMatchesReference: the context lane's scores and order equal the reference's, for
// the default settings and for others, over turns with places and notes without; a memory
// found only through its neighbours' words is there, and so are notes.
func TestContextMatchesReference(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 120, seed: 3, dim: dim, base: base}.load(t, db.Runtime)
	fixture{scopes: []string{"beta"}, n: 400, seed: 4, dim: dim, base: base}.load(t, db.Runtime)
	acme := []string{"acme"}
	ctx := context.Background()
	// Notes: memories without a place, in the same scope.
	notes := testdb.BeginAs(t, db.Runtime, acme, acme)
	for i := range 40 {
		text := fmt.Sprintf("%s %s %s note %d", vocab[(7*i)%len(vocab)], vocab[(11*i+3)%len(vocab)], vocab[(13*i+5)%len(vocab)], i)
		if _, err := notes.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, kind, text) VALUES ($1, '{acme}', 'world', $2)`, fmt.Sprintf("note%d", i), text); err != nil {
			t.Fatal(err)
		}
	}
	// A chat sent in pieces: short messages between longer ones, which the longer ones are
	// read past ("sure thing" is read with "lantern zephyr ..." two places before it).
	var chat int64
	if err := notes.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ('chat', '{acme}', 'a chat') RETURNING id`).Scan(&chat); err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"lantern zephyr harbor crane at the pier tonight", "ok", "sure thing",
		"the bishop moved across the whole board again today", "yes", "dragon kites fly over the quiet meadow every spring",
		"no", "an anchor rusted on the old grey ship by the harbor wall"} {
		if _, err := notes.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, source_id, kind, text, position, speaker) VALUES ($1, '{acme}', $2, 'world', $3, $4, $5)`,
			fmt.Sprintf("chat%d", i), chat, text, i+1, []string{"Ana", "Ben"}[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := notes.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx := testdb.BeginAs(t, db.Runtime, acme, nil)
	tf, dl := visibleLexemes(t, tx)
	places := map[int64]place{}
	rows, err := tx.Query(ctx, `SELECT id, source_id, position, speaker, is_question FROM recall.memories WHERE position IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var p place
		if err := rows.Scan(&id, &p.source, &p.pos, &p.speaker, &p.question); err != nil {
			t.Fatal(err)
		}
		places[id] = p
	}
	q := statement.Query{Text: "lantern zephyr anchor bishop dragon", Raw: "lantern zephyr anchor bishop dragon", Now: base.Add(400 * 24 * time.Hour)}
	terms := queryTerms(t, tx, q.Text)
	_ = tx.Rollback(ctx)

	for _, edit := range []func(*statement.Settings){
		func(*statement.Settings) {},
		func(s *statement.Settings) { s.ContextWeight, s.ContextHandoff = 0.6, 1.5 },
		func(s *statement.Settings) { s.ContextWeight, s.ContextHandoff = 0, 0 },
		func(s *statement.Settings) { s.ContextK = 10 },
	} {
		s := statement.DefaultSettings()
		s.K = 1000
		edit(&s)
		ref := contextReference(tf, dl, places, terms, s)
		got := run(t, db, acme, statement.Only(statement.Context), q, s)
		want := min(len(ref), s.ContextK)
		if len(got) != want || want < 10 {
			t.Fatalf("weight %v handoff %v k %d: the lane returned %d memories, the reference ranks %d", s.ContextWeight, s.ContextHandoff, s.ContextK, len(got), want)
		}
		prev := math.Inf(1)
		for i, c := range got {
			h := c.Lanes[statement.Context]
			if h.Rank != i+1 || relErr(h.Score, ref[c.ID]) > 1e-9 || h.Score > prev {
				t.Fatalf("weight %v handoff %v: row %d (memory %d): rank %d score %.15g, reference %.15g", s.ContextWeight, s.ContextHandoff, i, c.ID, h.Rank, h.Score, ref[c.ID])
			}
			prev = h.Score
		}
		notesIn := 0
		for _, c := range got {
			if _, placed := places[c.ID]; !placed {
				notesIn++
			}
		}
		if notesIn == 0 && s.ContextK >= len(ref) {
			t.Fatalf("weight %v: no note among the %d ranked", s.ContextWeight, len(got))
		}
		// With neighbours' words counted, some memory is ranked without a query term of its own.
		if s.ContextWeight > 0 && len(got) == len(ref) {
			only := false
			for _, c := range got {
				own := 0
				for _, term := range terms {
					own += tf[c.ID][term]
				}
				only = only || own == 0
			}
			if !only {
				t.Fatalf("weight %v: every ranked memory has a query term of its own", s.ContextWeight)
			}
		}
	}
}
