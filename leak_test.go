package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
)

// envInt reads an integer test knob of at least least, def when unset.
func envInt(tb testing.TB, name string, def, least int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		tb.Fatalf("%s=%q: want an integer >= %d", name, v, least)
	}
	return n
}

// TestNothingLeaksAcrossScopes: random users over overlapping scope sets recall and trace
// random questions (names, titles, dates, conversation turns, so every lane has something
// to find), and every memory in a pack, every omitted one, every trace candidate and context
// neighbour, every source title and entity name shown, is one the caller may see by the rule
// computed here in Go (its scope set shares a scope with the caller's read scopes).
// RECALL_RLS_SEED picks another world, RECALL_RLS_N more calls (default 40).
func TestNothingLeaksAcrossScopes(t *testing.T) {
	t.Parallel()
	seed := envInt(t, "RECALL_RLS_SEED", 1, 1)
	calls := envInt(t, "RECALL_RLS_N", 40, 1)
	r := rand.New(rand.NewPCG(uint64(seed), 19))
	db, e := newWriteEngine(t)
	ctx := context.Background()
	all := []string{"a", "b", "c", "d", "e"}
	subset := func(max int) []string {
		s := slices.Clone(all)
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		out := s[:1+r.IntN(max)]
		slices.Sort(out)
		return out
	}
	names := []string{"Alice Martin", "Bob Stone", "Carol Diaz", "Lisbon", "Tokyo", "Gull Island", "Nadia Okafor"}
	titles := []string{"Harbor Report", "Quarterly Planning Notes", "Ferry Schedule", "Crane Inspection Log"}
	words := strings.Fields("ferry crane harbor storm budget dredging inspection schedule boat pier meeting moved visited fixed cancelled delayed")
	writer := recall.User{ID: "w", Read: all, Write: all}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for set := range 12 {
		scopes := subset(3)
		b := recall.Batch{Scopes: scopes}
		for s := range 2 {
			b.Sources = append(b.Sources, recall.Source{ID: fmt.Sprintf("s%d", s), Title: titles[r.IntN(len(titles))]})
		}
		for m := range 15 {
			at := base.AddDate(0, 0, r.IntN(365))
			text := fmt.Sprintf("%s %s the %s near %s.", names[r.IntN(len(names))], words[r.IntN(len(words))], words[r.IntN(len(words))], names[r.IntN(len(names))])
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("set%d-m%d", set, m), Source: fmt.Sprintf("s%d", m%2),
				Position: m/2 + 1, Speaker: names[r.IntN(3)], Text: text, OccurredStart: &at})
		}
		if _, err := e.Write(ctx, writer, b); err != nil {
			t.Fatalf("set %d %v: %v", set, scopes, err)
		}
	}
	// The owner's view: every memory's scopes, and the scopes of each source title and
	// entity name.
	memScopes := map[int64][]string{}
	named := map[string][][]string{}
	read := func(sql string, each func(id int64, name string, scopes []string)) {
		rows, err := db.Owner.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		var id int64
		var name string
		var sc []string
		if _, err := pgx.ForEachRow(rows, []any{&id, &name, &sc}, func() error { each(id, name, sc); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	read(`SELECT id, '', scopes FROM recall.memories`, func(id int64, _ string, sc []string) { memScopes[id] = sc })
	read(`SELECT id, 'title:' || title, scopes FROM recall.sources
		UNION ALL SELECT id, 'entity:' || name, scopes FROM recall.entities`, func(_ int64, n string, sc []string) { named[n] = append(named[n], sc) })
	sees := func(readScopes, rowScopes []string) bool {
		for _, s := range rowScopes {
			if slices.Contains(readScopes, s) {
				return true
			}
		}
		return false
	}
	checkID := func(user recall.User, where string, id int64) {
		t.Helper()
		sc, ok := memScopes[id]
		if !ok || !sees(user.Read, sc) {
			t.Fatalf("%s: memory %d (scopes %v) reached a reader of %v", where, id, sc, user.Read)
		}
	}
	checkName := func(user recall.User, where, key string) {
		t.Helper()
		for _, sc := range named[key] {
			if sees(user.Read, sc) {
				return
			}
		}
		t.Fatalf("%s: %q (in %v) reached a reader of %v", where, key, named[key], user.Read)
	}
	checked := 0
	for i := range calls {
		readSet := subset(2)
		user := recall.User{ID: fmt.Sprintf("u%d", i), Read: readSet, Write: readSet[:1]}
		q := fmt.Sprintf("What did %s say about the %s %s?", names[r.IntN(len(names))], titles[r.IntN(len(titles))], words[r.IntN(len(words))])
		if r.IntN(3) == 0 {
			q += " in May 2023"
		}
		budget := 50 + r.IntN(1500)
		var p *recall.Pack
		if i%2 == 0 {
			var err error
			if p, err = e.Recall(ctx, user, q, budget, nil); err != nil {
				t.Fatal(err)
			}
		} else {
			tr, err := e.Trace(ctx, user, q, budget, nil)
			if err != nil {
				t.Fatal(err)
			}
			p = tr.Pack
			for _, c := range tr.Candidates {
				checkID(user, "trace candidate", c.ID)
				checked++
			}
			for _, c := range tr.Context {
				checkID(user, "trace context", c.ID)
			}
		}
		for _, it := range p.Items {
			checkID(user, "packed item", it.ID)
			if it.SourceTitle != "" {
				checkName(user, "source title", "title:"+it.SourceTitle)
			}
			for _, n := range it.Entities {
				checkName(user, "entity name", "entity:"+n)
			}
			checked++
		}
		for _, o := range p.Omitted {
			checkID(user, "omitted item", o.ID)
			checked++
		}
	}
	if checked < calls*5 {
		t.Fatalf("only %d ids checked over %d calls: the world gives the lanes too little", checked, calls)
	}
	t.Logf("seed %d: %d calls, %d ids checked", seed, calls, checked)
}

// TestRecallsWithWritersAndDeletes: recallers run while writers delete and rewrite memories
// the questions find. Access recording is strict (a failure would be an error): a packed
// memory deleted meanwhile is skipped, never the pack's recording. Memories no writer touches
// end with access counts exactly equal to the packs that held them.
func TestRecallsWithWritersAndDeletes(t *testing.T) {
	t.Parallel()
	db, lenient := newWriteEngine(t)
	ctx := context.Background()
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: lenient.Embedder(), Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	user := recall.User{ID: "u", Read: []string{"team"}, Write: []string{"team"}}
	var stable, churn []recall.Memory
	for i := range 20 {
		stable = append(stable, recall.Memory{ID: fmt.Sprintf("stable%d", i), Text: fmt.Sprintf("the harbor crane %d was inspected before the storm", i)})
		churn = append(churn, recall.Memory{ID: fmt.Sprintf("churn%d", i), Text: fmt.Sprintf("the ferry %d to the harbor was delayed by the storm", i)})
	}
	if _, err := e.Write(ctx, user, recall.Batch{Memories: append(slices.Clone(stable), churn...)}); err != nil {
		t.Fatal(err)
	}
	const recallers, rounds, writers = 8, 40, 2
	held := make([]map[string]int, recallers)
	errs := make(chan error, recallers+writers)
	done := make(chan struct{})
	var wg, wwg sync.WaitGroup
	for w := range writers {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				m := churn[(w+i*writers)%len(churn)]
				if _, err := e.Delete(ctx, user, nil, []string{m.ID}); err != nil {
					errs <- fmt.Errorf("delete: %w", err)
					return
				}
				if _, err := e.Write(ctx, user, recall.Batch{Memories: []recall.Memory{m}}); err != nil {
					errs <- fmt.Errorf("write: %w", err)
					return
				}
			}
		}()
	}
	for g := range recallers {
		held[g] = map[string]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				q := []string{"harbor storm", "crane inspected", "ferry delayed"}[(g+i)%3]
				p, err := e.Recall(ctx, user, q, 300, nil)
				if err != nil {
					errs <- fmt.Errorf("recall: %w", err)
					return
				}
				if p.Accessed > int64(len(p.Items)) {
					errs <- fmt.Errorf("accessed %d of %d items", p.Accessed, len(p.Items))
					return
				}
				for _, it := range p.Items {
					held[g][it.ExternalID]++
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	wwg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, h := range held {
		for id, n := range h {
			if strings.HasPrefix(id, "stable") {
				want[id] += n
			}
		}
	}
	got := map[string]int{}
	rows, err := db.Owner.Query(ctx, `SELECT m.external_id, a.access_count FROM recall.memory_access a
		JOIN recall.memories m ON m.id = a.memory_id`)
	if err != nil {
		t.Fatal(err)
	}
	var id string
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&id, &n}, func() error { got[id] = n; return nil }); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, m := range stable {
		if got[m.ID] != want[m.ID] {
			t.Fatalf("%s: access count %d, packed %d times", m.ID, got[m.ID], want[m.ID])
		}
		total += want[m.ID]
	}
	if total == 0 {
		t.Fatal("no stable memory was ever packed: the test checks nothing")
	}
	t.Logf("%d recalls, stable memories packed %d times", recallers*rounds, total)
}

// TestCancelAtRandomPoints: writes and recalls whose deadlines fall at random points leave
// no batch half-written, and the engine's pool keeps serving: every call after them, with
// time enough, succeeds.
func TestCancelAtRandomPoints(t *testing.T) {
	t.Parallel()
	db, lenient := newWriteEngine(t)
	ctx := context.Background()
	e, err := recall.Open(ctx, db.URL("recall_runtime"), recall.Config{Embedder: lenient.Embedder()}, recall.PoolOptions{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	user := recall.User{ID: "u", Read: []string{"team"}, Write: []string{"team"}}
	r := rand.New(rand.NewPCG(7, 11))
	const batches, size = 30, 20
	cancelled := 0
	for i := range batches {
		b := recall.Batch{}
		for m := range size {
			b.Memories = append(b.Memories, recall.Memory{ID: fmt.Sprintf("b%d-m%d", i, m),
				Text: fmt.Sprintf("Nadia Okafor moved crate %d of batch %d to the harbor before the storm", m, i)})
		}
		short, cancel := context.WithTimeout(ctx, time.Duration(r.IntN(40_000))*time.Microsecond)
		if _, err := e.Write(short, user, b); err != nil {
			cancelled++
		}
		cancel()
		var n int
		if err := db.Owner.QueryRow(ctx, `SELECT count(*) FROM recall.memories WHERE external_id LIKE $1`, fmt.Sprintf("b%d-%%", i)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 && n != size {
			t.Fatalf("batch %d: %d of %d memories written", i, n, size)
		}
		short, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(40_000))*time.Microsecond)
		if _, err := e.Recall(short, user, "who moved the crates to the harbor?", 500, nil); err != nil {
			cancelled++
		}
		cancel()
		if _, err := e.Recall(ctx, user, "storm crates", 500, nil); err != nil {
			t.Fatalf("after call %d: %v", i, err)
		}
	}
	if cancelled == 0 {
		t.Fatal("no call was cut short: the deadlines test nothing")
	}
	t.Logf("%d of %d calls cut short", cancelled, 2*batches)
}
