package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/testkit/testdb"
)

// TestValidity: a recall as of a time packs exactly the memories that hold then by the rule
// in Go (within valid_from / valid_until, not superseded by then: a superseding memory's
// valid_from, else its occurred_start), over a random history of 30 memories with validity
// windows and supersession chains, at eight times; the default is now. A supersession across
// scope sets, an empty window and a memory superseding itself are refused; deleting the
// superseding memory makes the one it replaced hold again.
func TestValidity(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 1))
	day := func(d int) *time.Time { v := now.AddDate(0, 0, d); return &v }
	type hist struct {
		from, until, occurred *time.Time
		supersededAt          *time.Time
		by                    string
	}
	h := map[string]*hist{}
	var b recall.Batch
	for i := range 30 {
		id := fmt.Sprintf("v%d", i)
		m := recall.Memory{ID: id, Text: fmt.Sprintf("Office move plan %d: the team sits on floor %d.", i, i), OccurredStart: day(-200 + 5*i)}
		x := &hist{occurred: m.OccurredStart}
		if r.IntN(3) == 0 {
			m.ValidFrom = day(-200 + r.IntN(200))
			x.from = m.ValidFrom
		}
		if r.IntN(3) == 0 {
			lo := -200
			if x.from != nil {
				lo = int(x.from.Sub(now).Hours()/24) + 1
			}
			m.ValidUntil = day(lo + r.IntN(100))
			x.until = m.ValidUntil
		}
		// Some supersede an earlier memory not yet superseded.
		if i > 0 && r.IntN(3) == 0 {
			old := fmt.Sprintf("v%d", r.IntN(i))
			if h[old].by == "" {
				m.Supersedes = []string{old}
				h[old].by = id
				h[old].supersededAt = m.ValidFrom
				if m.ValidFrom == nil {
					h[old].supersededAt = m.OccurredStart
				}
			}
		}
		h[id] = x
		b.Memories = append(b.Memories, m)
	}
	// Each memory is the evidence of a relation (migration 00012: a relation holds while its
	// evidence holds). The history is written in two batches, so the first batch's relations
	// exist when the second supersedes their evidence; v0's relation is written last, after
	// any supersession of v0.
	var res recall.WriteResult
	for _, part := range [][]recall.Memory{b.Memories[:15], b.Memories[15:]} {
		pb := recall.Batch{Memories: part, Entities: []recall.Entity{{ID: "team", Name: "the team"}}}
		for _, m := range part {
			pb.Entities = append(pb.Entities, recall.Entity{ID: "floor-" + m.ID, Name: "floor " + m.ID})
			if m.ID != "v0" {
				pb.Relations = append(pb.Relations, recall.Relation{From: "team", To: "floor-" + m.ID, Predicate: "sits_on", Memory: m.ID})
			}
		}
		r, err := e.Write(ctx, member, pb)
		if err != nil {
			t.Fatal(err)
		}
		res.Superseded += r.Superseded
	}
	if _, err := e.Write(ctx, member, recall.Batch{Relations: []recall.Relation{{From: "team", To: "floor-v0", Predicate: "sits_on", Memory: "v0"}}}); err != nil {
		t.Fatal(err)
	}
	superseded := 0
	for _, x := range h {
		if x.by != "" {
			superseded++
		}
	}
	if superseded < 3 || res.Superseded != superseded {
		t.Fatalf("%d supersessions written (result says %d): the history checks too little", superseded, res.Superseded)
	}
	holds := func(id string, at time.Time) bool {
		x := h[id]
		return (x.from == nil || !x.from.After(at)) && (x.until == nil || x.until.After(at)) && (x.by == "" || x.supersededAt.After(at))
	}
	// relationsHold compares each relation's window with its evidence's under the rule.
	relationsHold := func(at time.Time) {
		t.Helper()
		rows, err := db.Owner.Query(ctx, `SELECT m.external_id, (r.valid_from IS NULL OR r.valid_from <= $1) AND (r.valid_until IS NULL OR r.valid_until > $1)
			FROM recall.relations r JOIN recall.memories m ON m.id = r.memory_id`, at)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id string
			var ok bool
			if err := rows.Scan(&id, &ok); err != nil {
				t.Fatal(err)
			}
			n++
			if ok != holds(id, at) {
				t.Errorf("as of %v: the relation of %s holds %v, its evidence %v", at.Format(time.DateOnly), id, ok, holds(id, at))
			}
		}
		if rows.Err() != nil || n != len(h) {
			t.Fatalf("%d relations read (%v), want %d", n, rows.Err(), len(h))
		}
	}
	check := func(at time.Time, opts *recall.Options) {
		t.Helper()
		relationsHold(at)
		p, err := e.Recall(ctx, member, "office move plan team floor", 100000, opts)
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, it := range p.Items {
			got = append(got, it.ExternalID)
		}
		for id := range h {
			if holds(id, at) {
				want = append(want, id)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("as of %v: packed %v, want %v", at.Format(time.DateOnly), got, want)
		}
	}
	check(now, nil)
	for _, d := range []int{-250, -180, -120, -90, -40, -5, 30} {
		check(*day(d), &recall.Options{AsOf: *day(d)})
	}

	var we *recall.WriteError
	other := recall.User{ID: "o", Read: []string{"acme", "other"}, Write: []string{"acme", "other"}}
	for _, c := range []struct {
		name  string
		user  recall.User
		batch recall.Batch
		field string
	}{
		{"across scope sets", other, recall.Batch{Scopes: []string{"other"}, Memories: []recall.Memory{{ID: "x", Text: "t", Supersedes: []string{"v1"}}}}, "supersedes[0]"},
		{"empty window", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", ValidFrom: day(1), ValidUntil: day(1)}}}, "valid_until"},
		{"itself", member, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "t", Supersedes: []string{"x"}}}}, "supersedes[0]"},
	} {
		if _, err := e.Write(ctx, c.user, c.batch); !errors.As(err, &we) || we.Field != c.field {
			t.Errorf("%s: %v, want a WriteError on %s", c.name, err, c.field)
		}
	}

	// The newest supersession undone: its old memory holds again.
	var old, by string
	for id, x := range h {
		if x.by != "" && (by == "" || x.by > by) {
			old, by = id, x.by
		}
	}
	if _, err := e.Delete(ctx, member, nil, []string{by}); err != nil {
		t.Fatal(err)
	}
	delete(h, by)
	h[old].by, h[old].supersededAt = "", nil
	check(now, nil)
}

// TestSupersede: Engine.Supersede marks stored memories as superseded by a stored memory of
// the same scope set, from the time given, else the newer memory's valid_from, else its
// occurred_start; recall then answers as the rule says at times before and after; ids that
// are not the scope set's stored memories, the newer memory among the older, and no older
// memory are refused, naming the field, and write nothing.
func TestSupersede(t *testing.T) {
	t.Parallel()
	_, e := newWriteEngine(t)
	ctx := context.Background()
	day := func(d int) *time.Time { v := now.AddDate(0, 0, d); return &v }
	b := recall.Batch{Memories: []recall.Memory{
		{ID: "lisbon", Text: "Alice lives in Lisbon, near the river.", OccurredStart: day(-300)},
		{ID: "porto", Text: "Alice lives in Porto for the winter.", OccurredStart: day(-200)},
		{ID: "berlin", Text: "Alice lives in Berlin now.", OccurredStart: day(-100), ValidFrom: day(-90)},
		{ID: "madrid", Text: "Alice lives in Madrid since spring.", OccurredStart: day(-20)},
		{ID: "lease", Text: "Alice lives in a flat whose lease offer ran out.", ExpiresAt: day(-5)},
	}}
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	other := recall.User{ID: "o", Read: []string{"acme", "other"}, Write: []string{"acme", "other"}}
	if _, err := e.Write(ctx, other, recall.Batch{Scopes: []string{"other"}, Memories: []recall.Memory{{ID: "paris", Text: "Alice lives in Paris."}}}); err != nil {
		t.Fatal(err)
	}
	var we *recall.WriteError
	for _, c := range []struct {
		name  string
		by    string
		olds  []string
		field string
	}{
		{"unknown older", "berlin", []string{"lisbon", "nowhere"}, "supersedes[1]"},
		{"unknown newer", "nowhere", []string{"lisbon"}, "by"},
		{"older of another scope set", "berlin", []string{"paris"}, "supersedes[0]"},
		{"itself", "berlin", []string{"berlin"}, "supersedes[0]"},
		{"nothing older", "berlin", nil, "supersedes"},
		{"empty id", "", []string{"lisbon"}, "by"},
	} {
		if n, err := e.Supersede(ctx, member, nil, c.by, c.olds, nil); !errors.As(err, &we) || we.Field != c.field || n != 0 {
			t.Errorf("%s: %d, %v; want a WriteError on %s", c.name, n, err, c.field)
		}
	}
	// Berlin (valid from day -90) supersedes Lisbon and Porto; Madrid supersedes Berlin from
	// day -10, a time given.
	if n, err := e.Supersede(ctx, member, nil, "berlin", []string{"lisbon", "porto"}, nil); err != nil || n != 2 {
		t.Fatalf("berlin: %d, %v", n, err)
	}
	if n, err := e.Supersede(ctx, member, nil, "madrid", []string{"berlin"}, day(-10)); err != nil || n != 1 {
		t.Fatalf("madrid: %d, %v", n, err)
	}
	type hist struct{ from, until *time.Time }
	h := map[string]hist{"lisbon": {nil, day(-90)}, "porto": {nil, day(-90)}, "berlin": {day(-90), day(-10)}, "madrid": {nil, nil}}
	for _, d := range []int{-150, -90, -50, -10, -5} {
		at := *day(d)
		p, err := e.Recall(ctx, member, "Where does Alice live?", 100000, &recall.Options{AsOf: at})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for id, x := range h {
			if (x.from == nil || !x.from.After(at)) && (x.until == nil || x.until.After(at)) {
				want = append(want, id)
			}
		}
		got := p.IDs()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("as of day %d: packed %v, want %v", d, got, want)
		}
	}
	// What a recall left out, and why: in the trace; and packed, marked, with MarkStale.
	date := func(d int) string { return day(d).UTC().Format(time.DateOnly) }
	why := map[string]string{
		"lisbon": "superseded by berlin on " + date(-90), "porto": "superseded by berlin on " + date(-90),
		"berlin": "superseded by madrid on " + date(-10), "lease": "expired on " + date(-5), "madrid": "",
	}
	tr, err := e.Trace(ctx, member, "Where does Alice live?", 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]string{}
	for _, l := range tr.Left {
		left[l.ExternalID] = l.Why
	}
	for id, w := range why {
		if left[id] != w {
			t.Errorf("trace: %s left out %q, want %q", id, left[id], w)
		}
	}
	if got := tr.Pack.IDs(); !slices.Equal(got, []string{"madrid"}) {
		t.Errorf("the trace's pack is %v, want the recall's [madrid]", got)
	}
	p, err := e.Recall(ctx, member, "Where does Alice live?", 100000, &recall.Options{MarkStale: true})
	if err != nil {
		t.Fatal(err)
	}
	marked := map[string]string{}
	for _, it := range p.Items {
		marked[it.ExternalID] = it.Stale
	}
	if len(marked) != len(why) {
		t.Errorf("marking: packed %v, want all of %v", p.IDs(), why)
	}
	for id, w := range why {
		if m, ok := marked[id]; !ok || m != w {
			t.Errorf("marking: %s packed %v, stale %q, want %q", id, ok, m, w)
		}
	}
	// The current fact comes first, each memory it replaced right after it: madrid, berlin,
	// then lisbon and porto (in their rank order); the expired lease keeps its place.
	var chain []string
	for _, id := range p.IDs() {
		if id != "lease" {
			chain = append(chain, id)
		}
	}
	if len(chain) != 4 || chain[0] != "madrid" || chain[1] != "berlin" || !slices.Contains(chain[2:], "lisbon") || !slices.Contains(chain[2:], "porto") {
		t.Errorf("marking: packed %v, want madrid, berlin, then lisbon and porto", p.IDs())
	}
}

// TestFunctionalPredicates: with lives_in functional, a relation written later for the same
// subject and another object supersedes the evidence of the earlier ones from the new
// evidence's time; recall answers accordingly now and before. A predicate that is not
// functional, another subject, and evidence older than the current one (history written
// out of order) supersede nothing.
func TestFunctionalPredicates(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	emb, err := embed.NewHashing(256)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, Now: func() time.Time { return now },
		FunctionalPredicates: []string{"lives_in"}})
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) *time.Time { v := now.AddDate(0, 0, d); return &v }
	ents := []recall.Entity{{ID: "ana", Name: "Ana Lima"}, {ID: "bo", Name: "Bo Chen"}, {ID: "lisbon", Name: "Lisbon"},
		{ID: "berlin", Name: "Berlin"}, {ID: "porto", Name: "Porto"}, {ID: "tea", Name: "green tea"}}
	write := func(id, text string, at *time.Time, rels ...recall.Relation) recall.WriteResult {
		t.Helper()
		for i := range rels {
			rels[i].Memory = id
		}
		res, err := e.Write(ctx, member, recall.Batch{Entities: ents, Relations: rels,
			Memories: []recall.Memory{{ID: id, Text: text, OccurredStart: at}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	write("m1", "Ana Lima lives in Lisbon, by the river.", day(-300), recall.Relation{From: "ana", To: "lisbon", Predicate: "lives_in"})
	write("b1", "Bo Chen lives in Lisbon too.", day(-290), recall.Relation{From: "bo", To: "lisbon", Predicate: "lives_in"})
	write("t1", "Ana Lima likes green tea.", day(-280), recall.Relation{From: "ana", To: "tea", Predicate: "likes"})
	if res := write("m2", "Ana Lima lives in Berlin now.", day(-100), recall.Relation{From: "ana", To: "berlin", Predicate: "lives_in"}); res.Superseded != 1 {
		t.Fatalf("m2 superseded %d memories, want 1 (m1)", res.Superseded)
	}
	// Out of order: a stay in Porto before Berlin supersedes nothing of Berlin's.
	if res := write("m0", "Ana Lima lived in Porto for a while.", day(-200), recall.Relation{From: "ana", To: "porto", Predicate: "lives_in"}); res.Superseded != 0 {
		t.Fatalf("m0, older than m2, superseded %d memories", res.Superseded)
	}
	superseded := func(id string) string {
		var by string
		if err := db.Owner.QueryRow(ctx, `SELECT coalesce(b.external_id, '') FROM recall.memories m
			LEFT JOIN recall.memories b ON b.id = m.superseded_by WHERE m.external_id = $1`, id).Scan(&by); err != nil {
			t.Fatal(err)
		}
		return by
	}
	for id, want := range map[string]string{"m1": "m2", "b1": "", "t1": "", "m2": "", "m0": ""} {
		if got := superseded(id); got != want {
			t.Errorf("%s superseded by %q, want %q", id, got, want)
		}
	}
	for _, c := range []struct {
		asOf        *time.Time
		want, never string
	}{{nil, "m2", "m1"}, {day(-150), "m1", ""}} { // m2 has no valid_from: it holds before it too
		var opts *recall.Options
		if c.asOf != nil {
			opts = &recall.Options{AsOf: *c.asOf}
		}
		p, err := e.Recall(ctx, member, "Where does Ana Lima live?", 100000, opts)
		if err != nil {
			t.Fatal(err)
		}
		ids := p.IDs()
		if !slices.Contains(ids, c.want) || (c.never != "" && slices.Contains(ids, c.never)) {
			t.Errorf("as of %v: %v, want %s and never %s", c.asOf, ids, c.want, c.never)
		}
	}
	// The relations follow their evidence: the graph context of a question about Ana lists
	// Ana lives_in Lisbon (m1's) only as of a time when m1 held, and Berlin (m2's) at both.
	for _, c := range []struct {
		asOf    *time.Time
		lisbon  bool
		context string
	}{{nil, false, "now"}, {day(-150), true, "150 days ago"}} {
		opts := &recall.Options{GraphContext: true}
		if c.asOf != nil {
			opts.AsOf = *c.asOf
		}
		p, err := e.Recall(ctx, member, "Where does Ana Lima live?", 100000, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, tr := range p.GraphContext {
			got[tr.Subject+" "+tr.Predicate+" "+tr.Object] = true
		}
		if got["Ana Lima lives_in Lisbon"] != c.lisbon || !got["Ana Lima lives_in Berlin"] {
			t.Errorf("graph context %s: %v, want Ana Lima lives_in Lisbon %v and lives_in Berlin", c.context, got, c.lisbon)
		}
	}
}
