package recall_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/recall-engine/recall"
)

// TestExpiry: a memory is left out of recall from its expires_at on (the rule in Go: expired
// when expires_at is at or before the recall's now), never packed and never brought as a
// neighbour, while every memory that has not expired still is; Prune deletes exactly the
// expired ones of the scope set, with the summary that covers one, and nothing of another
// scope set.
func TestExpiry(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(35, 4))
	// 30 notes about the harbour, a third never expiring, the rest expiring from 10 days
	// before now to 10 days after; and a conversation whose answer turn expired.
	expires := map[string]*time.Time{}
	b := recall.Batch{Sources: []recall.Source{{ID: "chat"}}}
	for i := range 30 {
		m := recall.Memory{ID: fmt.Sprintf("n%d", i), Text: fmt.Sprintf("Harbour note %d: the ferry schedule changed again.", i)}
		if i%3 != 0 {
			at := now.Add(time.Duration(r.IntN(20*24)-10*24) * time.Hour)
			m.ExpiresAt = &at
		}
		expires[m.ID] = m.ExpiresAt
		b.Memories = append(b.Memories, m)
	}
	gone := now.Add(-time.Hour)
	b.Memories = append(b.Memories,
		recall.Memory{ID: "q", Source: "chat", Position: 1, Speaker: "Ana", Text: "Ana: When does the last ferry leave the harbour?"},
		recall.Memory{ID: "a", Source: "chat", Position: 2, Speaker: "Bo", Text: "Bo: At nine.", ExpiresAt: &gone},
		recall.Memory{ID: "sum", Kind: "summary", Text: "Summary: harbour notes about the ferry.", Covers: []string{"n1", "n2"}},
	)
	expires["q"], expires["a"], expires["sum"] = nil, &gone, nil
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	other := recall.User{ID: "o", Read: []string{"other"}, Write: []string{"other"}}
	if _, err := e.Write(ctx, other, recall.Batch{Memories: []recall.Memory{{ID: "x", Text: "Harbour note elsewhere.", ExpiresAt: &gone}}}); err != nil {
		t.Fatal(err)
	}
	expired := func(id string, at time.Time) bool { return expires[id] != nil && !expires[id].After(at) }
	for _, at := range []time.Time{now, now.Add(-11 * 24 * time.Hour), now.Add(5 * 24 * time.Hour), now.Add(11 * 24 * time.Hour)} {
		p, err := e.Recall(ctx, member, "harbour ferry schedule note", 100000, &recall.Options{Now: at})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range p.Items {
			got = append(got, it.ExternalID)
			if expired(it.ExternalID, at) {
				t.Errorf("at %v: expired memory %s packed", at, it.ExternalID)
			}
		}
		for id := range expires {
			if id[0] == 'n' && !expired(id, at) && !slices.Contains(got, id) {
				t.Errorf("at %v: memory %s has not expired but is not packed (%d items)", at, id, len(p.Items))
			}
		}
	}
	// The question's answer turn expired: the question comes alone.
	p, err := e.Recall(ctx, member, "When does the last ferry leave?", 100000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(p.Items, func(it recall.Item) bool { return it.ExternalID == "q" }) {
		t.Fatalf("the question turn is not packed: %v", p.Items)
	}
	if slices.ContainsFunc(p.Items, func(it recall.Item) bool { return it.ExternalID == "a" }) {
		t.Fatal("the expired answer came as a neighbour")
	}

	want := 0
	for id := range expires {
		if expired(id, now) {
			want++
		}
	}
	n, err := e.Prune(ctx, member, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if n != want {
		t.Fatalf("pruned %d, want %d", n, want)
	}
	ids, err := e.MemoryIDs(ctx, member, nil)
	if err != nil {
		t.Fatal(err)
	}
	for id := range expires {
		// The summary covers n1 and n2: it goes when either expired.
		left := !expired(id, now)
		if id == "sum" {
			left = !expired("n1", now) && !expired("n2", now)
		}
		if slices.Contains(ids, id) != left {
			t.Errorf("after prune memory %s is there: %v, want %v", id, slices.Contains(ids, id), left)
		}
	}
	if c := count(t, db, `SELECT count(*) FROM recall.memories WHERE scopes = '{other}'`); c != 1 {
		t.Fatalf("prune of acme's scope set left %d memories of another, want 1", c)
	}
	if n, err := e.Prune(ctx, member, nil, time.Time{}); err != nil || n != 0 {
		t.Fatalf("a second prune: %d, %v", n, err)
	}
}
