package statement_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// passageWords is recall.passage_words() (sql/write/lexemes.sql).
const passageWords = 80

// refPassages is the passage rule written again in Go, from its comment in
// sql/write/lexemes.sql: words are runs of non-space characters; a sentence ends at a word
// ending in . ! or ? (closing quotes and brackets after it allowed), at a line break after a
// word, at the last word, and after most words; sentences join a passage while it stays
// within most words. Bounds are in characters, [first character of the first word, last
// character of the last word + 1). A text of at most most words has none.
func refPassages(text string, most int) [][2]int {
	rs := []rune(text)
	type word struct{ start, end int }
	var words []word
	for i := 0; i < len(rs); {
		if unicode.IsSpace(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && !unicode.IsSpace(rs[j]) {
			j++
		}
		words = append(words, word{i, j})
		i = j
	}
	if len(words) <= most {
		return nil
	}
	endsSentence := func(k int) bool {
		w := strings.TrimRight(string(rs[words[k].start:words[k].end]), `]"'”’)`)
		if strings.HasSuffix(w, ".") || strings.HasSuffix(w, "!") || strings.HasSuffix(w, "?") {
			return true
		}
		return k+1 < len(words) && strings.ContainsRune(string(rs[words[k].end:words[k+1].start]), '\n')
	}
	var out [][2]int
	pStart, pEnd, pWords := 0, 0, 0
	sStart, sWords := 0, 0
	for k, w := range words {
		if sWords == 0 {
			sStart = w.start
		}
		sWords++
		if k == len(words)-1 || sWords == most || endsSentence(k) {
			if pWords > 0 && pWords+sWords > most {
				out = append(out, [2]int{pStart, pEnd})
				pWords = 0
			}
			if pWords == 0 {
				pStart = sStart
			}
			pEnd, pWords, sWords = w.end, pWords+sWords, 0
		}
	}
	out = append(out, [2]int{pStart, pEnd})
	if len(out) > 64 { // recall.passage_max()
		out = out[:64]
	}
	return out
}

// randomText is words of vocab in sentences of random length, with the endings and spaces
// the rule reads: . ! ? with closing quotes or brackets, commas, line breaks, tabs, runs of
// spaces, and words of other scripts.
func randomText(r *rand.Rand, words int) string {
	return randomWords(r, words, vocab)
}

func randomWords(r *rand.Rand, words int, vocab []string) string {
	var b strings.Builder
	extra := []string{"café", "naïve", "Zürich", "日本語", "—", "e.g.", "3.14"}
	for i := range words {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", " ", "  ", "\t", "\n", " \n "}[r.IntN(8)])
		}
		if r.IntN(10) == 0 {
			b.WriteString(extra[r.IntN(len(extra))])
		} else {
			b.WriteString(vocab[r.IntN(len(vocab))])
		}
		if r.IntN(9) == 0 {
			b.WriteString([]string{".", "!", "?", `."`, ".)", "?”", ",", ";", ".'"}[r.IntN(9)])
		}
	}
	return b.String()
}

func bounds(rs []pgtype.Range[pgtype.Int4]) [][2]int {
	var out [][2]int
	for _, x := range rs {
		out = append(out, [2]int{int(x.Lower.Int32), int(x.Upper.Int32)})
	}
	return out
}

// TestPassageBoundsMatchReference: recall.passage_bounds cuts as the Go rule does, on hand
// cases and on random texts of 1 to 400 words.
func TestPassageBoundsMatchReference(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	long := strings.Repeat("word ", 200)
	cases := []string{
		"short text.",
		strings.Repeat("a ", 80),                    // exactly 80 words: its own passage
		strings.Repeat("a ", 81),                    // one sentence of 81 words: cut at 80
		strings.Repeat("This is a sentence. ", 40),  // 160 words in sentences of 4
		"  leading spaces " + long + "\n\ntrailing", // offsets count leading spaces
		strings.Repeat("Quoted end.\" Next one?) And ", 30),
	}
	r := rand.New(rand.NewPCG(52, 2))
	for range 200 {
		cases = append(cases, randomText(r, 1+r.IntN(400)))
	}
	split := 0
	for i, text := range cases {
		var got []pgtype.Range[pgtype.Int4]
		if err := db.Runtime.QueryRow(ctx, `SELECT recall.passage_bounds($1)`, text).Scan(&got); err != nil {
			t.Fatal(err)
		}
		want := refPassages(text, passageWords)
		if fmt.Sprint(bounds(got)) != fmt.Sprint(want) {
			t.Fatalf("case %d (%d characters): passage_bounds %v, the reference %v", i, len([]rune(text)), bounds(got), want)
		}
		if len(want) > 1 {
			split++
		}
		for _, p := range want {
			if n := len(strings.Fields(string([]rune(text)[p[0]:p[1]]))); n > passageWords {
				t.Fatalf("case %d: a passage of %d words", i, n)
			}
		}
	}
	if split < 50 {
		t.Fatalf("only %d texts have several passages: the comparison is too weak", split)
	}
}

// TestBestPassageIsBM25OfThePassage: a long memory's bm25 score is the better of BM25 over
// its whole text and BM25 over its best passage read as a document, both with the caller's
// statistics (the whole memories the caller sees: N, avgdl, df), and the statement names
// that passage; memories of another scope set the caller cannot see change nothing.
func TestBestPassageIsBM25OfThePassage(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	write := func(scope string, seed uint64, n int) {
		r := rand.New(rand.NewPCG(seed, 5))
		tx := testdb.BeginAs(t, db.Runtime, []string{scope}, []string{scope})
		lit := "{" + scope + "}"
		for i := range n {
			var src int64
			title := "Notes on " + vocab[r.IntN(len(vocab))]
			if err := tx.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ($1, $2, $3) RETURNING id`,
				fmt.Sprintf("s%d", i), lit, title).Scan(&src); err != nil {
				t.Fatal(err)
			}
			text := randomText(r, 10+r.IntN(60))
			if i%2 == 0 {
				// Half are long, of several passages, most of them of words the query does not
				// have (vocab[20:]) and one sentence that has some.
				text = randomWords(r, 40+r.IntN(150), vocab[20:]) + ". " + randomText(r, 5+r.IntN(10)) + ". " +
					randomWords(r, 40+r.IntN(150), vocab[20:])
			}
			if _, err := tx.Exec(ctx, `INSERT INTO recall.memories (external_id, scopes, source_id, text) VALUES ($1, $2, $3, $4)`,
				fmt.Sprintf("m%d", i), lit, src, text); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write("acme", 1, 120)

	s := statement.DefaultSettings()
	s.K, s.BM25K = 1000, 1000
	q := statement.Query{Text: "apple river violin harbor candle", Raw: "apple river violin harbor candle"}
	check := func() {
		t.Helper()
		tx := testdb.BeginAs(t, db.Runtime, []string{"acme"}, nil)
		defer tx.Rollback(ctx)
		tf, dl := visibleLexemes(t, tx)
		terms := queryTerms(t, tx, q.Text)
		whole := bm25Reference(tf, dl, terms, s.BM25K1, s.BM25B)
		// Each passage as a document: its lexemes as recall.memories_lexemes reads a
		// memory (the title, a line break, the words), scored with the whole memories'
		// statistics.
		type passage struct {
			id    int64
			ord   int
			span  [2]int
			score float64
		}
		best := map[int64]passage{}
		rows, err := tx.Query(ctx, `SELECT m.id, m.text, coalesce(s.title, '') FROM recall.memories m LEFT JOIN recall.sources s ON s.id = m.source_id`)
		if err != nil {
			t.Fatal(err)
		}
		type mem struct {
			id          int64
			text, title string
		}
		mems, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (mem, error) {
			var m mem
			return m, r.Scan(&m.id, &m.text, &m.title)
		})
		if err != nil {
			t.Fatal(err)
		}
		n, total := float64(len(tf)), 0.0
		for _, l := range dl {
			total += float64(l)
		}
		avgdl := total / n
		withPassages := 0
		for _, m := range mems {
			ps := refPassages(m.text, passageWords)
			if len(ps) > 0 {
				withPassages++
			}
			for ord, p := range ps {
				body := m.title + "\n" + string([]rune(m.text)[p[0]:p[1]])
				ptf := map[string]int{}
				plen := 0
				lrows, err := tx.Query(ctx, `SELECT l.lexeme, cardinality(l.positions) FROM unnest(to_tsvector('english', $1)) l`, body)
				if err != nil {
					t.Fatal(err)
				}
				for lrows.Next() {
					var lex string
					var c int
					if err := lrows.Scan(&lex, &c); err != nil {
						t.Fatal(err)
					}
					ptf[lex], plen = c, plen+c
				}
				var score float64
				for _, term := range terms {
					df := float64(docFreq(tf, term))
					f := float64(ptf[term])
					if df == 0 || f == 0 {
						continue
					}
					idf := math.Log(1 + (n-df+0.5)/(df+0.5))
					score += idf * f * (s.BM25K1 + 1) / (f + s.BM25K1*(1-s.BM25B+s.BM25B*float64(plen)/avgdl))
				}
				if b, ok := best[m.id]; score > 0 && (!ok || score > b.score) {
					best[m.id] = passage{m.id, ord + 1, p, score}
				}
			}
		}
		if withPassages < 40 {
			t.Fatalf("%d memories with passages: the check would be weak", withPassages)
		}
		got := run(t, db, []string{"acme"}, statement.Only(statement.BM25), q, s)
		if len(got) != len(whole) {
			t.Fatalf("bm25 lane returned %d memories, the reference scores %d", len(got), len(whole))
		}
		passageWon, named := 0, 0
		for _, c := range got {
			want := whole[c.ID]
			b, ok := best[c.ID]
			if ok && b.score > want {
				want = b.score
				passageWon++
			}
			if e := relErr(c.Lanes[statement.BM25].Score, want); e > 1e-9 {
				t.Fatalf("memory %d: bm25 %.15g, reference %.15g (whole %.15g, best passage %+v)", c.ID, c.Lanes[statement.BM25].Score, want, whole[c.ID], b)
			}
			switch {
			case ok && c.Passage == nil:
				t.Fatalf("memory %d: no passage named, the reference's best is %v", c.ID, b.span)
			case ok && (c.Passage.Start != b.span[0] || c.Passage.End != b.span[1]):
				t.Fatalf("memory %d: passage %+v, the reference's best %v", c.ID, *c.Passage, b.span)
			case !ok && c.Passage != nil:
				t.Fatalf("memory %d: passage %+v named, the reference has none that matches", c.ID, *c.Passage)
			}
			if ok {
				named++
			}
		}
		if passageWon < 10 || named < 20 {
			t.Fatalf("a passage beat the whole text in %d memories and was named in %d: too few to test", passageWon, named)
		}
	}
	check()
	write("beta", 2, 600) // five times as many, the same words, invisible to acme
	check()
}
