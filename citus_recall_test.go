package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// TestCitusRecall: on the distributed schema a caller who sees one scope set gets, from the
// routed statement, the pack a single server gives for the same writes: the same memories in
// the same order with the same fused scores and lane ranks, every plan, random questions
// over three scope sets of turns, notes, entities and relations. Every item is of the
// caller's set; the access counts the recalls leave are the same; EXPLAIN shows the
// statement sent to one shard; a caller of two sets is refused a recall with ErrManySets,
// and browses and reads a memory's detail (read set by set, merged) as on one server.
func TestCitusRecall(t *testing.T) {
	t.Parallel()
	cdb, sdb := distributedPair(t)
	ctx := context.Background()
	engines, emb := enginePair(t, recall.Config{FunctionalPredicates: []string{"lives_in"}}, cdb, sdb)
	var err error
	for _, e := range engines {
		if err := e.Warm(ctx); err != nil {
			t.Fatalf("warm: %v", err)
		}
	}
	r := rand.New(rand.NewPCG(34, 3))
	sets := []string{"a", "b", "c"}
	writer := recall.User{ID: "w", Read: sets, Write: sets}
	words, names, start := writeHarbor(t, engines, r, writer, sets)
	now := start.Add(30 * 24 * time.Hour)
	plans := []statement.Plan{statement.Maximal}
	for _, l := range statement.Lanes() {
		plans = append(plans, statement.Only(l))
	}
	for qi := range 12 {
		q := names[r.IntN(len(names))] + " " + words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + "?"
		sc := sets[qi%len(sets)]
		if qi%4 == 1 {
			// The title exactly (a direct source), and a near one.
			q = fmt.Sprintf("What was said in Harbor chat %d of %s, or in harbor chat %d, about the %s?", r.IntN(3), sc, r.IntN(3), words[r.IntN(len(words))])
		}
		if qi%4 == 2 {
			q = "What happened on May 2, 2026 with the " + words[r.IntN(len(words))] + "?"
		}
		if qi%4 == 3 {
			q = "Who lives in Edo near the " + words[r.IntN(len(words))] + "?"
		}
		user := recall.User{ID: "r" + sc, Read: []string{sc}, Write: []string{sc}}
		for _, plan := range plans {
			opts := func() *recall.Options {
				return &recall.Options{Now: now, Plan: plan, NoOrder: plan != statement.Maximal}
			}
			got, err := engines[0].Recall(ctx, user, q, 600, opts())
			if err != nil {
				t.Fatalf("%q, plan %v, on the cluster: %v", q, plan, err)
			}
			want, err := engines[1].Recall(ctx, user, q, 600, opts())
			if err != nil {
				t.Fatalf("%q, plan %v, on one server: %v", q, plan, err)
			}
			if g, w := packLines(got), packLines(want); !slices.Equal(g, w) {
				t.Fatalf("%q as %s, plan %v:\n cluster %v\n single  %v", q, sc, plan, g, w)
			}
			for _, it := range got.Items {
				if !strings.HasPrefix(it.ExternalID, sc+"-") {
					t.Fatalf("%q as %s: the cluster packed %s", q, sc, it.ExternalID)
				}
			}
			if len(got.Warnings) != 0 {
				t.Fatalf("%q as %s: warnings on the cluster: %v", q, sc, got.Warnings)
			}
		}
	}
	// The operator's trace: the same candidates in the same fused order, the same decisions.
	traceLines := func(e *recall.Engine) []string {
		tr, err := e.Trace(ctx, recall.User{ID: "rc", Read: []string{"c"}}, "Who visited the harbor with Bob Stone?", 600, &recall.Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		// On the cluster the set's shards were read on their worker (statement.RunDirect).
		if strings.Contains(tr.SQL, "recall.probe_entities_shard") != (e == engines[0]) {
			t.Fatalf("the trace's SQL is not the text that ran (cluster: %v)", e == engines[0])
		}
		var out []string
		for _, c := range tr.Candidates {
			out = append(out, fmt.Sprintf("%s #%d merit %d %v", c.ExternalID, c.FusedRank, c.MeritRank, c.Decision))
		}
		return out
	}
	if g, w := traceLines(engines[0]), traceLines(engines[1]); !slices.Equal(g, w) || len(w) == 0 {
		t.Fatalf("trace:\n cluster %v\n single  %v", head(g), head(w))
	}
	if g, w := accessRows(t, cdb), accessRows(t, sdb); !slices.Equal(g, w) || len(w) == 0 {
		t.Fatalf("access counts:\n cluster %v\n single  %v", head(g), head(w))
	}

	// Summaries of one set, written on each, the same; then recalls at the summaries' altitude.
	writerA := recall.User{ID: "wa", Read: []string{"a"}, Write: []string{"a"}}
	var results []recall.SummarizeResult
	for i, e := range engines {
		res, err := e.Summarize(ctx, writerA, recall.SummarizeOptions{Scopes: []string{"a"}})
		if err != nil {
			t.Fatalf("summarize on engine %d: %v", i, err)
		}
		results = append(results, res)
	}
	if fmt.Sprint(results[0]) != fmt.Sprint(results[1]) || results[1].Written == 0 {
		t.Fatalf("summarize: cluster %+v, single server %+v", results[0], results[1])
	}
	if g, w := rowsOf(t, cdb, "memories"), rowsOf(t, sdb, "memories"); !slices.Equal(g, w) {
		t.Fatalf("memories after summarize differ:\n cluster %v\n single  %v", head(g), head(w))
	}
	for _, q := range []string{"What happened with Alice Martin and the ferry?", "Harbor chat 1"} {
		var packs [2]*recall.Pack
		for i, e := range engines {
			if packs[i], err = e.Recall(ctx, writerA, q, 300, &recall.Options{Now: now, Altitude: recall.AltitudeSummaries}); err != nil {
				t.Fatalf("%q at the summaries' altitude on engine %d: %v", q, i, err)
			}
		}
		if g, w := packLines(packs[0]), packLines(packs[1]); !slices.Equal(g, w) || len(w) == 0 {
			t.Fatalf("%q at the summaries' altitude:\n cluster %v\n single  %v", q, g, w)
		}
	}

	// Browse and a memory's detail, routed to the set's shard, as on one server; the chat1 of
	// set b and a's too have a memory of id "both" (Engine.Memory: one per set).
	for _, sc := range []string{"a", "b"} {
		b := recall.Batch{Scopes: []string{sc}, Sources: []recall.Source{{ID: "chat1"}},
			Memories: []recall.Memory{{ID: "both", Text: "Bob Stone moved the crane in " + sc + ".", Source: "chat1", Position: 9}}}
		for i, e := range engines {
			if _, err := e.Write(ctx, writer, b); err != nil {
				t.Fatalf("write both in %s on engine %d: %v", sc, i, err)
			}
		}
	}
	reader := recall.User{ID: "rb", Read: []string{"b"}}
	for _, q := range []recall.BrowseQuery{{Limit: 7}, {Limit: 5, Offset: 4, Text: "ferry"}, {Source: "chat1", Limit: 20}} {
		var res [2]recall.BrowseResult
		for i, e := range engines {
			if res[i], err = e.Browse(ctx, reader, q); err != nil {
				t.Fatalf("browse %+v on engine %d: %v", q, i, err)
			}
		}
		if g, w := jsonOf(t, res[0]), jsonOf(t, res[1]); g != w || len(res[1].Memories) == 0 {
			t.Fatalf("browse %+v:\n cluster %s\n single  %s", q, g, w)
		}
	}
	ab := recall.User{ID: "ab", Read: []string{"a", "b"}}
	for _, c := range []struct {
		who  recall.User
		id   string
		want int
	}{{reader, "b-1-0", 1}, {reader, "b-2-3", 1}, {reader, "a-0-0", 0}, {reader, "both", 1}, {ab, "both", 2}, {ab, "c-0-0", 0}, {ab, "a-2-5", 1}} {
		var d [2][]recall.MemoryDetail
		for i, e := range engines {
			if d[i], err = e.Memory(ctx, c.who, c.id, ""); err != nil {
				t.Fatalf("memory %s as %v on engine %d: %v", c.id, c.who.Read, i, err)
			}
			for j := range d[i] {
				d[i][j].CreatedAt = time.Time{} // the wall clock of each write
			}
		}
		if g, w := jsonOf(t, d[0]), jsonOf(t, d[1]); g != w || len(d[1]) != c.want {
			t.Fatalf("memory %s as %v (want %d):\n cluster %s\n single  %s", c.id, c.who.Read, c.want, g, w)
		}
	}

	// A caller of two scope sets gets one server's pack, wherever their shards are.
	two := recall.User{ID: "ab", Read: []string{"a", "b"}}
	var packs [2]string
	for i, e := range engines {
		p, err := e.Recall(ctx, two, "Alice Martin ferry?", 600, &recall.Options{Now: now})
		if err != nil {
			t.Fatalf("a caller of two sets, engine %d: %v", i, err)
		}
		packs[i] = strings.Join(packLines(p), "\n")
	}
	if packs[0] != packs[1] || packs[1] == "" {
		t.Fatalf("a caller of two sets:\n cluster %s\n single  %s", packs[0], packs[1])
	}
	// Browse and a memory's detail read each set on its shard and merge: one server's answer.
	for _, q := range []recall.BrowseQuery{{Limit: 7}, {Limit: 6, Offset: 20}, {Source: "chat1", Limit: 30}, {Text: "ferry", Limit: 200}} {
		var res [2]recall.BrowseResult
		for i, e := range engines {
			if res[i], err = e.Browse(ctx, two, q); err != nil {
				t.Fatalf("browse %+v by a caller of two sets on engine %d: %v", q, i, err)
			}
		}
		if g, w := jsonOf(t, res[0]), jsonOf(t, res[1]); g != w || len(res[1].Memories) == 0 {
			t.Fatalf("browse %+v by a caller of two sets:\n cluster %s\n single  %s", q, g, w)
		}
	}

	// The routed statement goes to one shard.
	st, err := statement.Build(statement.Shape{Dim: 64, Fuzzy: true, Plan: statement.Maximal})
	if err != nil {
		t.Fatal(err)
	}
	text, err := st.Routed([]string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	vec, err := emb.Embed(ctx, []string{"Alice Martin ferry"}, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	args, err := st.Args(statement.Query{Text: "alice martin ferry", Raw: "Alice Martin ferry", Vector: vec[0], Now: now}, statement.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := cdb.Runtime.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read only
	if err := scope.Apply(ctx, tx, []string{"b"}, nil, statement.DefaultSettings().Session()...); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, "EXPLAIN "+text, args)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "Task Count: 1\n") || strings.Count(plan, "Task Count:") != 1 {
		t.Fatalf("the routed statement is not sent to one shard:\n%s", plan)
	}
}

// packLines is a pack as comparable lines: each item's external id, fused score (to 1e-9),
// statement rank, lane ranks and attachment.
// harborWords and harborNames are what writeHarbor's sentences and the questions about them
// are made of.
var (
	harborWords = strings.Fields("ferry crane harbor storm budget inspection schedule pier moved visited fixed delayed Lisbon Tokyo")
	harborNames = []string{"Alice Martin", "Bob Stone", "Carol Diaz"}
)

// writeHarbor writes the same batches through every engine as writer: for each scope in
// sets, three sources ("chat0".."chat2", titled "Harbor chat N of <scope>") of eight random
// memories each (turns of two speakers, a sentence each; every fourth a note without a place,
// of a dozen sentences, long enough for passages; every third a question), with entities (Alice Martin, Lisbon, Tokyo alias Edo) and a lives_in relation. It
// returns the words and names the sentences are made of and the first memory's time.
func writeHarbor(t *testing.T, engines []*recall.Engine, r *rand.Rand, writer recall.User, sets []string) ([]string, []string, time.Time) {
	t.Helper()
	ctx := context.Background()
	words, names := harborWords, harborNames
	sentence := func() string {
		var w []string
		for range 4 + r.IntN(6) {
			w = append(w, words[r.IntN(len(words))])
		}
		return names[r.IntN(len(names))] + " " + strings.Join(w, " ") + "."
	}
	start := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for si, sc := range sets {
		for round := range 3 {
			src := fmt.Sprintf("chat%d", round)
			b := recall.Batch{Scopes: []string{sc}, Sources: []recall.Source{{ID: src, Title: fmt.Sprintf("Harbor chat %d of %s", round, sc)}},
				Entities: []recall.Entity{{ID: "alice", Name: "Alice Martin"}, {ID: "lisbon", Name: "Lisbon"}, {ID: "tokyo", Name: "Tokyo", Aliases: []string{"Edo"}}}}
			for i := range 8 {
				at := start.Add(time.Duration(si*100+round*10+i) * time.Hour)
				m := recall.Memory{ID: fmt.Sprintf("%s-%d-%d", sc, round, i), Text: sentence(), OccurredStart: &at}
				if i%4 != 3 {
					m.Source, m.Position, m.Speaker = src, i+1, []string{"Ana", "Bo"}[i%2]
				} else {
					// A note of a dozen sentences, over 80 words: read as passages too.
					for range 11 {
						m.Text += " " + sentence()
					}
				}
				if i%3 == 0 {
					m.Text = strings.TrimSuffix(m.Text, ".") + "?"
				}
				b.Memories = append(b.Memories, m)
			}
			city := []string{"lisbon", "tokyo"}[(si+round)%2]
			b.Relations = []recall.Relation{{From: "alice", To: city, Predicate: "lives_in", Memory: b.Memories[0].ID}}
			for i, e := range engines {
				if _, err := e.Write(ctx, writer, b); err != nil {
					t.Fatalf("write %s round %d on engine %d: %v", sc, round, i, err)
				}
			}
		}
	}
	return words, names, start
}

func packLines(p *recall.Pack) []string {
	ext := map[int64]string{}
	for _, it := range p.Items {
		ext[it.ID] = it.ExternalID
	}
	var out []string
	for _, it := range p.Items {
		var lanes []string
		for _, h := range it.Lanes {
			lanes = append(lanes, fmt.Sprint(h.Rank))
		}
		passage := ""
		if p := it.Passage; p != nil {
			passage = fmt.Sprintf("passage %d-%d", p.Start, p.End)
		}
		out = append(out, fmt.Sprintf("%s %.9f #%d [%s] %s %s %s", it.ExternalID, math.Round(it.Score*1e9)/1e9, it.StatementRank,
			strings.Join(lanes, " "), it.Context, ext[it.AttachedTo], passage))
	}
	return out
}

// accessRows lists the access counts as the owner, by external id.
func accessRows(t *testing.T, db *testdb.DB) []string {
	t.Helper()
	rows, err := db.Owner.Query(context.Background(), `SELECT m.external_id || ' ' || a.access_count || ' ' || a.last_accessed::text
		FROM recall.memory_access a JOIN recall.memories m ON m.id = a.memory_id AND m.scopes = a.scopes ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
