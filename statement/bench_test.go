package statement_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/recall-engine/recall/internal/testdb"
	"github.com/recall-engine/recall/statement"
)

// loadSynthetic writes n memories in bulk: Zipf-distributed words over a 5,000-word
// vocabulary, a random 384-dimension embedding, an occurred time, and two mentions of 500
// entities with co-occurrence relations. 99% of rows are in scope "big", 1% in "small".
func loadSynthetic(b *testing.B, db *testdb.DB, n int) {
	b.Helper()
	ctx := context.Background()
	tx := testdb.BeginAs(b, db.Runtime, []string{"big", "small"}, []string{"big", "small"})
	for _, q := range []string{
		`SELECT recall.ensure_vector_index(384)`,
		`INSERT INTO recall.entities (external_id, scopes, name)
		 SELECT 'e' || g, '{big}', 'Entity' || g FROM generate_series(1, 500) g`,
		`INSERT INTO recall.memories (external_id, scopes, text, embedding, occurred_start)
		 SELECT 'm' || g, CASE WHEN g % 100 = 0 THEN '{small}' ELSE '{big}' END::text[],
		        (SELECT string_agg('w' || floor(5000 * power(random(), 3))::int, ' ') FROM generate_series(1, 30 + g * 0)),
		        ARRAY(SELECT random() - 0.5 + g * 0 FROM generate_series(1, 384))::vector,
		        '2026-01-01'::timestamptz + make_interval(hours => g % 8760)
		 FROM generate_series(1, ` + strconv.Itoa(n) + `) g`,
		`INSERT INTO recall.mentions (memory_id, entity_id, scopes)
		 SELECT m.id, e.id, m.scopes FROM recall.memories m
		 JOIN recall.entities e ON e.external_id IN ('e' || (1 + m.id % 500), 'e' || (1 + (m.id * 7) % 500))
		 WHERE m.scopes = '{big}' ON CONFLICT DO NOTHING`,
		`INSERT INTO recall.relations (scopes, src_id, dst_id, weight)
		 SELECT '{big}', a.entity_id, b.entity_id, count(*)
		 FROM recall.mentions a JOIN recall.mentions b ON a.memory_id = b.memory_id AND a.entity_id < b.entity_id
		 GROUP BY 2, 3`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `VACUUM ANALYZE recall.memories, recall.bm25_postings, recall.bm25_terms, recall.mentions, recall.relations, recall.entities`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMaximal runs the maximal statement at RECALL_BENCH_N memories (default 10,000)
// for a caller of the big scope and of the 1% scope, and reports p50 and p95.
func BenchmarkMaximal(b *testing.B) {
	n := 10000
	if v := os.Getenv("RECALL_BENCH_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	db := testdb.New(b)
	start := time.Now()
	loadSynthetic(b, db, n)
	b.Logf("loaded %d memories in %v", n, time.Since(start).Round(time.Millisecond))
	s := statement.DefaultSettings()
	type arm struct {
		plan  statement.Plan
		scope string
	}
	arms := []arm{{statement.Maximal, "big"}, {statement.Maximal, "small"}}
	for l := range statement.Lane(statement.NumLanes) {
		arms = append(arms, arm{statement.Only(l), "big"})
	}
	for _, a := range arms {
		st, err := statement.Build(statement.Shape{Dim: 384, Fuzzy: true, Plan: a.plan})
		if err != nil {
			b.Fatal(err)
		}
		scope := a.scope
		b.Run(fmt.Sprintf("n=%d/plan=%s/scope=%s", n, a.plan, scope), func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				i++
				q := statement.Query{
					Text: fmt.Sprintf("w%d w%d w%d w%d", i%50, 100+i%300, 1000+i%2000, 3000+i%1000),
					Raw:  fmt.Sprintf("what did Entity%d do", 1+i%500), Vector: unitVector(uint64(i), 384),
					WindowStart: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), WindowEnd: time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC),
				}
				t0 := time.Now()
				out, err := statement.Run(context.Background(), db.Runtime, statement.Scopes{Read: []string{scope}}, st, q, s)
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if len(out) == 0 && a.plan == statement.Maximal {
					b.Fatal("no rows")
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95_ms")
		})
	}
}
