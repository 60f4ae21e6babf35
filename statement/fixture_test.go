package statement_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// vocab is real English words, so Postgres's stemmer keeps them distinct and stable.
var vocab = strings.Fields(`apple river mountain engine garden violin castle doctor planet
harbor pencil winter forest bridge candle rocket silver thunder meadow lantern falcon
compass island marble orchard canyon glacier beacon cobalt ember fabric granite harvest
ivory jasmine kernel lagoon magnet nectar oyster pepper quartz saddle timber velvet walnut
yonder zephyr anchor bishop copper dragon`)

var people = []string{"Alice Martin", "Bob Stone", "Carol Diaz", "Dan Wu", "Eve Park", "Frank Lee", "Grace Kim", "Hugo Roy"}

type fixture struct {
	scopes []string
	n      int
	seed   uint64
	dim    int
	base   time.Time
}

// load writes n memories in scopes, a few entity mentions and relations between
// co-mentioned entities, occurred times, tags, and a random unit embedding each. Memories
// come four to a source, in places 1 to 4, each said by a person; one in four is a question.
func (f fixture) load(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(f.seed, 99))
	tx := testdb.BeginAs(t, pool, f.scopes, f.scopes)
	if _, err := tx.Exec(ctx, `SELECT recall.ensure_vector_index($1)`, f.dim); err != nil {
		t.Fatal(err)
	}
	lit := "{" + strings.Join(f.scopes, ",") + "}"
	ents := make([]int64, len(people))
	for i, p := range people {
		if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name, kind) VALUES ($1, $2, $3, 'person') RETURNING id`,
			fmt.Sprintf("p%d", i), lit, p).Scan(&ents[i]); err != nil {
			t.Fatal(err)
		}
	}
	var src int64
	for i := range f.n {
		words := make([]string, 5+r.IntN(30))
		for j := range words {
			// Zipf-like: low indexes are common.
			words[j] = vocab[int(float64(len(vocab))*math.Pow(r.Float64(), 2))]
		}
		who := r.Perm(len(people))[:1+r.IntN(2)]
		text := strings.Join(words, " ") + ". " + people[who[0]] + " was there."
		if r.IntN(4) == 0 {
			text += " Was it?"
		}
		var mem int64
		title := "Notes on " + vocab[r.IntN(len(vocab))] + " " + vocab[r.IntN(len(vocab))]
		if i%4 == 0 {
			if err := tx.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ($1, $2, $3) RETURNING id`,
				fmt.Sprintf("s%d", i/4), lit, title).Scan(&src); err != nil {
				t.Fatal(err)
			}
		}
		vec := make([]float32, f.dim)
		var norm float64
		for j := range vec {
			vec[j] = float32(r.NormFloat64())
			norm += float64(vec[j]) * float64(vec[j])
		}
		for j := range vec {
			vec[j] /= float32(math.Sqrt(norm))
		}
		tags := []string{}
		if r.IntN(3) > 0 {
			tags = append(tags, []string{"red", "green", "blue"}[r.IntN(3)])
		}
		if r.IntN(4) == 0 {
			tags = append(tags, "urgent")
		}
		kind := []string{"world", "experience", "observation"}[r.IntN(3)]
		occurred := f.base.Add(time.Duration(r.IntN(365*24)) * time.Hour)
		if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, source_id, kind, text, embedding, tags, metadata, occurred_start, position, speaker)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			fmt.Sprintf("m%d", i), lit, src, kind, text, pgvector.NewVector(vec), tags,
			map[string]any{"team": []string{"x", "y"}[r.IntN(2)]}, occurred, i%4+1, people[r.IntN(len(people))]).Scan(&mem); err != nil {
			t.Fatal(err)
		}
		for _, w := range who {
			if _, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, $3)`, mem, ents[w], lit); err != nil {
				t.Fatal(err)
			}
		}
		if len(who) == 2 && r.IntN(2) == 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO recall.relations (scopes, src_id, dst_id, weight, memory_id) VALUES ($1, $2, $3, $4, $5)`,
				lit, ents[who[0]], ents[who[1]], 0.5+r.Float64(), mem); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func unitVector(seed uint64, dim int) []float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		v[i] = float32(r.NormFloat64())
		norm += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// visibleLexemes reads, as the caller, every visible memory's term frequencies and length.
func visibleLexemes(t *testing.T, tx pgx.Tx) (map[int64]map[string]int, map[int64]int) {
	t.Helper()
	ctx := context.Background()
	rows, err := tx.Query(ctx, `SELECT m.id, l.lexeme, cardinality(l.positions) FROM recall.memories m, unnest(m.lexemes) l`)
	if err != nil {
		t.Fatal(err)
	}
	tf := map[int64]map[string]int{}
	dl := map[int64]int{}
	for rows.Next() {
		var id int64
		var term string
		var n int
		if err := rows.Scan(&id, &term, &n); err != nil {
			t.Fatal(err)
		}
		if tf[id] == nil {
			tf[id] = map[string]int{}
		}
		tf[id][term] = n
		dl[id] += n
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	return tf, dl
}

// bm25Reference scores every visible document for the query terms with textbook BM25 over
// the visible documents only.
func bm25Reference(tf map[int64]map[string]int, dl map[int64]int, terms []string, k1, b float64) map[int64]float64 {
	n := float64(len(tf))
	var total float64
	for _, l := range dl {
		total += float64(l)
	}
	avgdl := total / n
	scores := map[int64]float64{}
	for _, term := range terms {
		df := float64(docFreq(tf, term))
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for id, d := range tf {
			f := float64(d[term])
			if f == 0 {
				continue
			}
			scores[id] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(dl[id])/avgdl))
		}
	}
	return scores
}

// docFreq counts the documents of tf that contain term.
func docFreq(tf map[int64]map[string]int, term string) int {
	n := 0
	for _, d := range tf {
		if d[term] > 0 {
			n++
		}
	}
	return n
}

// midRanks is the rule of the lanes whose scores tie by construction (mention, graph,
// title): a memory ranks one after those scoring more, plus half (rounded down) of the others
// scoring the same, so no tied memory ranks before another by its id. Scores within eps tie.
// It also returns how many memories tie with another.
func midRanks(scores map[int64]float64, eps float64) (map[int64]int, int) {
	ranks := map[int64]int{}
	tied := 0
	for id, v := range scores {
		above, same := 0, 0
		for other, w := range scores {
			switch {
			case math.Abs(w-v) <= eps:
				if other != id {
					same++
				}
			case w > v:
				above++
			}
		}
		ranks[id] = above + 1 + same/2
		if same > 0 {
			tied++
		}
	}
	return ranks, tied
}
