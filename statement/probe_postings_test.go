package statement_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestProbePostingsReadOnlyTheQuestionsTrigrams: the postings way of the entity and title
// probes (recall.entity_probe and recall.title_probe = 'scope') reads the postings of the
// question's trigrams, not every posting of the caller's scopes. 3,000 names and 3,000 titles
// of the caller's own, written in letters the question does not use (so they share no
// trigram with it), leave what the probes find as it was and the buffers they touch about as
// many (each trigram's descent of a deeper index costs a page or two). The probes once joined
// the trigrams to the postings, which a generic plan could read as every posting under the
// caller's scopes, hashed: the title probe here touched 41,586 buffers instead of 40, and the
// entity probe on a LongMemEval caller read its 24,405 postings for 73 trigrams.
func TestProbePostingsReadOnlyTheQuestionsTrigrams(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	if _, err := db.Owner.Exec(ctx, `
		INSERT INTO recall.entities (external_id, scopes, name) VALUES
		  ('a', '{mine}', 'Harbour Crane'), ('b', '{mine}', 'Harbor Crane'), ('c', '{mine}', 'Boat Harbour');
		INSERT INTO recall.sources (external_id, scopes, title) VALUES
		  ('a', '{mine}', 'The Harbour Crane Report'), ('b', '{mine}', 'Notes on the harbor crane');
		ANALYZE recall.entities; ANALYZE recall.sources`); err != nil {
		t.Fatal(err)
	}
	// measure runs q as the caller: what it returns, and the buffers its second run touches
	// (EXPLAIN's count includes the queries the probe function runs; the first run plans them).
	measure := func(q string) (found string, buffers int) {
		t.Helper()
		tx := testdb.BeginAs(t, db.Runtime, []string{"mine"}, nil)
		defer tx.Rollback(ctx) //nolint:errcheck // read only
		if _, err := tx.Exec(ctx, `SET LOCAL pg_trgm.similarity_threshold = 0.5;
			SET LOCAL recall.entity_probe = 'scope'; SET LOCAL recall.title_probe = 'scope'`); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			var plan []byte
			if err := tx.QueryRow(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+q).Scan(&plan); err != nil {
				t.Fatal(err)
			}
			var out []struct {
				Plan struct {
					Hit  int `json:"Shared Hit Blocks"`
					Read int `json:"Shared Read Blocks"`
				}
			}
			if err := json.Unmarshal(plan, &out); err != nil || len(out) != 1 {
				t.Fatalf("EXPLAIN's plan: %v (%s)", err, plan)
			}
			buffers = out[0].Plan.Hit + out[0].Plan.Read
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(string_agg(x, ',' ORDER BY x), '') FROM (`+q+`) AS r(x)`).Scan(&found); err != nil {
			t.Fatal(err)
		}
		return found, buffers
	}
	probes := []string{
		`SELECT id || ':' || round(sim::numeric, 4) FROM recall.probe_entities(ARRAY['harbour crane', 'crane', 'harbour', 'report', 'harbour crane report', 'crane report', 'the harbour crane', 'does the harbour crane report', 'what does'], true, 0.6)`,
		`SELECT id || ':' || round(sim::numeric, 4) FROM recall.probe_titles('what does the harbour crane report say', 16, 4, 0.5)`,
	}
	type result struct {
		found   string
		buffers int
	}
	var before []result
	for _, q := range probes {
		f, b := measure(q)
		if f == "" {
			t.Fatalf("%s found nothing: the fixture measures nothing", q)
		}
		before = append(before, result{f, b})
	}

	r := rand.New(rand.NewPCG(7, 7))
	batch := &pgx.Batch{}
	for i := range 3000 {
		batch.Queue(`INSERT INTO recall.entities (external_id, scopes, name) VALUES ($1, '{mine}', $2)`, fmt.Sprintf("x%d", i), foreignName(r))
		batch.Queue(`INSERT INTO recall.sources (external_id, scopes, title) VALUES ($1, '{mine}', $2)`, fmt.Sprintf("x%d", i), foreignName(r))
	}
	if err := db.Owner.SendBatch(ctx, batch).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `ANALYZE recall.entities; ANALYZE recall.sources;
		ANALYZE recall.entity_trigrams; ANALYZE recall.title_trigrams`); err != nil {
		t.Fatal(err)
	}
	for i, q := range probes {
		f, b := measure(q)
		if f != before[i].found {
			t.Errorf("%s found %s, then %s with 3,000 names of other letters added", q, before[i].found, f)
		}
		if b > before[i].buffers+200 {
			t.Errorf("%s touched %d buffers, then %d with 3,000 names of other letters added: want about as many", q, before[i].buffers, b)
		}
		t.Logf("%s: %d buffers, then %d", q, before[i].buffers, b)
	}
}

// foreignName is a name of two or three words in letters "harbour crane" and "what does the
// report say" do not use.
func foreignName(r *rand.Rand) string {
	const letters = "fgijklmqvxz"
	var words []string
	for range 2 + r.IntN(2) {
		var b strings.Builder
		for range 3 + r.IntN(5) {
			b.WriteByte(letters[r.IntN(len(letters))])
		}
		words = append(words, b.String())
	}
	return strings.Join(words, " ")
}
