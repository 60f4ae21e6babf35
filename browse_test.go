package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall"
)

// TestBrowse writes random memories into two scope sets and compares every page Browse
// returns, under each filter, with the rule in Go: the memories of the scope sets the user
// reads that pass every filter, newest first by occurred_start (those without a time first),
// then newest id; a source's in place order. A user of one scope set never sees the other's,
// nor its sources; bad filters are refused naming the field.
func TestBrowse(t *testing.T) {
	t.Parallel()
	_, e := newWriteEngine(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(36, 1))
	both := recall.User{ID: "b", Read: []string{"team", "other"}, Write: []string{"team", "other"}}
	type mem struct {
		id, scope, kind, text, source string
		tags                          []string
		at                            *time.Time
		pos, seq                      int
	}
	var all []mem
	seq := 0
	for _, sc := range []string{"team", "other"} {
		var b recall.Batch
		b.Scopes = []string{sc}
		b.Sources = []recall.Source{{ID: sc + "-chat", Title: "Chat of " + sc}, {ID: sc + "-notes", Title: "Notes"}}
		for i := range 40 {
			seq++
			m := mem{id: fmt.Sprintf("%s-%d", sc, i), scope: sc, kind: []string{"world", "experience"}[r.IntN(2)], seq: seq,
				text: fmt.Sprintf("%s note %d about %s", sc, i, []string{"Sailing", "tea", "the harbour"}[r.IntN(3)])}
			if r.IntN(4) > 0 {
				at := time.Date(2024, 1, 1+r.IntN(60), 0, 0, 0, 0, time.UTC)
				m.at = &at
			}
			if r.IntN(3) == 0 {
				m.tags = []string{"boat"}
			}
			if i%2 == 0 {
				m.source, m.pos = sc+"-chat", i/2+1
			}
			all = append(all, m)
			b.Memories = append(b.Memories, recall.Memory{ID: m.id, Kind: m.kind, Text: m.text, Tags: m.tags, OccurredStart: m.at,
				Source: m.source, Position: m.pos})
		}
		if _, err := e.Write(ctx, both, b); err != nil {
			t.Fatal(err)
		}
	}
	// The rule, in Go.
	want := func(user recall.User, q recall.BrowseQuery) []string {
		var out []mem
		for _, m := range all {
			ok := slices.Contains(user.Read, m.scope) && (q.Scope == "" || q.Scope == m.scope) &&
				(q.Source == "" || q.Source == m.source) && (q.Kind == "" || q.Kind == m.kind) &&
				(q.Tag == "" || slices.Contains(m.tags, q.Tag)) &&
				(q.Text == "" || strings.Contains(strings.ToLower(m.text), strings.ToLower(q.Text))) &&
				(q.From == nil || (m.at != nil && !m.at.Before(*q.From))) && (q.To == nil || (m.at != nil && m.at.Before(*q.To)))
			if ok {
				out = append(out, m)
			}
		}
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i], out[j]
			if q.Source != "" && a.pos != b.pos {
				return a.pos < b.pos
			}
			switch {
			case (a.at == nil) != (b.at == nil):
				return a.at == nil
			case a.at != nil && !a.at.Equal(*b.at):
				return a.at.After(*b.at)
			}
			return a.seq > b.seq
		})
		ids := []string{}
		for _, m := range out {
			ids = append(ids, m.id)
		}
		return ids
	}
	from, to := time.Date(2024, 1, 20, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 10, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		user recall.User
		q    recall.BrowseQuery
	}{
		{member, recall.BrowseQuery{}},
		{both, recall.BrowseQuery{}},
		{both, recall.BrowseQuery{Scope: "other"}},
		{member, recall.BrowseQuery{Source: "team-chat"}},
		{member, recall.BrowseQuery{Source: "other-chat"}},
		{both, recall.BrowseQuery{Kind: "experience", Tag: "boat"}},
		{both, recall.BrowseQuery{Text: "SAILING"}},
		{member, recall.BrowseQuery{From: &from, To: &to}},
	} {
		w := want(c.user, c.q)
		var got []string
		for off := 0; ; off += 7 {
			q := c.q
			q.Limit, q.Offset = 7, off
			res, err := e.Browse(ctx, c.user, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range res.Memories {
				got = append(got, m.ID)
				if !slices.Contains(c.user.Read, m.Scopes[0]) {
					t.Fatalf("%s browsed %s of scope set %v", c.user.ID, m.ID, m.Scopes)
				}
			}
			for _, s := range res.Sources {
				if sc, _, _ := strings.Cut(s.ID, "-"); !slices.Contains(c.user.Read, sc) {
					t.Fatalf("%s sees source %s", c.user.ID, s.ID)
				}
			}
			if !res.More {
				break
			}
		}
		if len(w) == 0 && c.q.Source != "other-chat" {
			t.Fatalf("%+v: the rule selects nothing: the case checks too little", c.q)
		}
		if !slices.Equal(got, w) && (len(got) != 0 || len(w) != 0) {
			t.Errorf("%s %+v:\n got  %v\n want %v", c.user.ID, c.q, got, w)
		}
	}
	var ie *recall.InputError
	for _, q := range []recall.BrowseQuery{{Limit: 201}, {Offset: -1}, {Text: strings.Repeat("x", 513)}, {From: &to, To: &from}} {
		if _, err := e.Browse(ctx, member, q); !errors.As(err, &ie) {
			t.Errorf("%+v: %v, want an InputError", q, err)
		}
	}

	// A memory with its neighbours (three places each way), entities and relations.
	if _, err := e.Write(ctx, member, recall.Batch{Entities: []recall.Entity{{ID: "ana", Name: "Ana Lima"}, {ID: "oslo", Name: "Oslo"}},
		Relations: []recall.Relation{{From: "ana", To: "oslo", Predicate: "lives_in", Memory: "team-10"}},
		Memories:  []recall.Memory{{ID: "team-10", Source: "team-chat", Position: 6, Text: "Ana Lima lives in Oslo.", Kind: "experience"}}}); err != nil {
		t.Fatal(err)
	}
	ds, err := e.Memory(ctx, member, "team-10", "")
	if err != nil || len(ds) != 1 {
		t.Fatalf("memory team-10: %v, %v", ds, err)
	}
	var near []int
	for _, n := range ds[0].Neighbours {
		near = append(near, n.Position)
	}
	if !slices.Equal(near, []int{3, 4, 5, 6, 7, 8, 9}) || ds[0].Neighbours[3].ID != "team-10" {
		t.Errorf("neighbours at %v, want places 3 to 9 with team-10 at 6", near)
	}
	var names []string
	for _, en := range ds[0].Entities {
		names = append(names, en.Name)
	}
	slices.Sort(names)
	lives := slices.IndexFunc(ds[0].Relations, func(r recall.RelationRef) bool { return r.Predicate == "lives_in" })
	if !slices.Equal(names, []string{"Ana Lima", "Oslo"}) || lives < 0 || ds[0].Relations[lives].Subject != "Ana Lima" ||
		ds[0].Relations[lives].Object != "Oslo" || ds[0].Relations[lives].Evidence != "team-10" || !ds[0].Relations[lives].Holds {
		t.Errorf("entities %v, relations %+v", names, ds[0].Relations)
	}
	// Another scope set's memory is not there for this user, as if it did not exist.
	if ds, err := e.Memory(ctx, member, "other-10", ""); err != nil || len(ds) != 0 {
		t.Errorf("member reads other-10: %v, %v", ds, err)
	}
	if ds, err := e.Memory(ctx, both, "other-10", ""); err != nil || len(ds) != 1 {
		t.Errorf("both reads other-10: %v, %v", ds, err)
	}
}
