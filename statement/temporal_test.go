package statement_test

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

type timed struct {
	id         int64
	start, end time.Time // end == start when the memory has no occurred_end
	scopes     []string
	// refStart, refEnd: the span [refStart, refEnd) the text refers to; zero when none.
	refStart, refEnd time.Time
}

// temporalReference is the temporal lane's documented rule in Go: candidates are the k
// visible memories starting nearest the window's middle on each side (start >= middle, before
// t_end + slack; start < middle, ending at or after t_start - slack), ranked by the gap to the
// window, then the distance of the start to the middle, then id; the first k. Equal starts
// are taken in id order away from the middle (ascending after it, descending before it).
// Besides, per visible scope set, the refers memories whose referred span starts before
// t_end + slack and ends after t_start - slack nearest the middle by its start (then id) are
// candidates by that span; a memory that is a candidate both ways takes the smaller gap and
// the smaller distance.
func temporalReference(ms []timed, visible func([]string) bool, t0, t1 time.Time, slack time.Duration, k, refers int) []int64 {
	mid := t0.Add(t1.Sub(t0) / 2)
	var after, before []timed
	for _, m := range ms {
		if !visible(m.scopes) {
			continue
		}
		if !m.start.Before(mid) && m.start.Before(t1.Add(slack)) {
			after = append(after, m)
		}
		if m.start.Before(mid) && !m.end.Before(t0.Add(-slack)) {
			before = append(before, m)
		}
	}
	sort.Slice(after, func(i, j int) bool {
		if !after[i].start.Equal(after[j].start) {
			return after[i].start.Before(after[j].start)
		}
		return after[i].id < after[j].id
	})
	sort.Slice(before, func(i, j int) bool {
		if !before[i].start.Equal(before[j].start) {
			return before[i].start.After(before[j].start)
		}
		return before[i].id > before[j].id
	})
	var cands []timed
	cands = append(cands, after[:min(k, len(after))]...)
	cands = append(cands, before[:min(k, len(before))]...)
	bySet := map[string][]timed{}
	for _, m := range ms {
		if !visible(m.scopes) || m.refStart.IsZero() || !m.refStart.Before(t1.Add(slack)) || !m.refEnd.After(t0.Add(-slack)) {
			continue
		}
		key := strings.Join(m.scopes, ",")
		bySet[key] = append(bySet[key], timed{id: m.id, start: m.refStart, end: m.refEnd.Add(-time.Microsecond)})
	}
	dist := func(m timed) float64 { return math.Abs(m.start.Sub(mid).Seconds()) }
	for _, set := range bySet {
		sort.Slice(set, func(i, j int) bool {
			if dist(set[i]) != dist(set[j]) {
				return dist(set[i]) < dist(set[j])
			}
			return set[i].id < set[j].id
		})
		cands = append(cands, set[:min(refers, len(set))]...)
	}
	gap := func(m timed) float64 {
		return math.Max(math.Max(t0.Sub(m.end).Seconds(), m.start.Sub(t1).Seconds()), 0)
	}
	type best struct{ gap, dist float64 }
	byID := map[int64]best{}
	for _, c := range cands {
		b, ok := byID[c.id]
		if !ok {
			b = best{math.Inf(1), math.Inf(1)}
		}
		byID[c.id] = best{math.Min(b.gap, gap(c)), math.Min(b.dist, dist(c))}
	}
	var out []int64
	for id := range byID {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := byID[out[i]], byID[out[j]]
		if a.gap != b.gap {
			return a.gap < b.gap
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return out[i] < out[j]
	})
	return out[:min(k, len(out))]
}

// TestTemporalMatchesReference: the temporal lane's ranks equal the Go rule for several
// windows and depths, for a caller who sees only part of the rows, with intervals.
func TestTemporalMatchesReference(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testdb.New(t)
	fixture{scopes: []string{"acme"}, n: 150, seed: 21, dim: dim, base: base}.load(t, db.Runtime)
	fixture{scopes: []string{"other"}, n: 150, seed: 22, dim: dim, base: base}.load(t, db.Runtime)
	// A reader of acme sees two scope sets, {acme} and {acme,shared}, walked separately.
	fixture{scopes: []string{"acme", "shared"}, n: 80, seed: 23, dim: dim, base: base}.load(t, db.Runtime)
	// A third of the memories last 1 to 100 hours; one in seventeen lasts 100 to 300 days, so
	// it reaches windows it started long before (past the slack).
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.memories SET occurred_end = occurred_start + make_interval(hours => (1 + id % 100)::int) WHERE id % 3 = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.memories SET occurred_end = occurred_start + make_interval(days => (100 + id % 200)::int) WHERE id % 17 = 0`); err != nil {
		t.Fatal(err)
	}
	// One in five refers to a day 0 to 39 days before it happened ("last week"), one in
	// eleven to a month (the later one wins where both apply).
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.memories SET refers_start = date_trunc('day', occurred_start) - make_interval(days => (id % 40)::int), refers_end = date_trunc('day', occurred_start) - make_interval(days => (id % 40)::int - 1) WHERE id % 5 = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Owner.Exec(ctx, `UPDATE recall.memories SET refers_start = date_trunc('month', occurred_start) - interval '1 month', refers_end = date_trunc('month', occurred_start) WHERE id % 11 = 0`); err != nil {
		t.Fatal(err)
	}
	var ms []timed
	rows, err := db.Owner.Query(ctx, `SELECT id, occurred_start, coalesce(occurred_end, occurred_start), scopes,
		coalesce(refers_start, '-infinity'), coalesce(refers_end, '-infinity') FROM recall.memories`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m timed
		var rs, re pgtype.Timestamptz
		if err := rows.Scan(&m.id, &m.start, &m.end, &m.scopes, &rs, &re); err != nil {
			t.Fatal(err)
		}
		if rs.InfinityModifier == pgtype.Finite {
			m.refStart, m.refEnd = rs.Time, re.Time
		}
		ms = append(ms, m)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	visible := func(s []string) bool { return slices.Contains(s, "acme") }
	st, err := statement.Build(statement.Shape{Dim: dim, Plan: statement.Only(statement.Temporal)})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tc := range []struct {
		start  time.Time
		length time.Duration
		k      int
		slack  time.Duration
		refers int
	}{
		{base.Add(40 * 24 * time.Hour), 7 * 24 * time.Hour, 10, 30 * 24 * time.Hour, 50},
		{base.Add(200 * 24 * time.Hour), 24 * time.Hour, 25, 5 * 24 * time.Hour, 3},
		{base.Add(300 * 24 * time.Hour), 30 * 24 * time.Hour, 200, 60 * 24 * time.Hour, 50},
		{base.Add(150 * 24 * time.Hour), 24 * time.Hour, 5, 60 * 24 * time.Hour, 0},
		{base.Add(250 * 24 * time.Hour), 12 * time.Hour, 8, 90 * 24 * time.Hour, 2},
		{base.Add(-2 * 24 * time.Hour), 2 * 24 * time.Hour, 5, 10 * 24 * time.Hour, 50},
		{base.Add(200 * 24 * time.Hour), 24 * time.Hour, 60, 24 * time.Hour, 0},
		{base.Add(330 * 24 * time.Hour), 2 * 24 * time.Hour, 40, 12 * time.Hour, 7},
		{base.Add(100 * 24 * time.Hour), 3 * 24 * time.Hour, 300, 20 * 24 * time.Hour, 300},
	} {
		s := statement.DefaultSettings()
		s.TemporalK, s.TemporalSlack, s.TemporalRefers, s.K = tc.k, tc.slack.Seconds(), tc.refers, 500
		q := statement.Query{Text: "x", Raw: "x", Vector: unitVector(1, dim), WindowStart: tc.start, WindowEnd: tc.start.Add(tc.length)}
		out, err := statement.Run(ctx, db.Runtime, statement.Scopes{Read: []string{"acme"}}, st, q, s)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int64, len(out))
		for _, c := range out {
			r := c.Lanes[statement.Temporal].Rank
			if r < 1 || r > len(out) {
				t.Fatalf("rank %d out of range", r)
			}
			got[r-1] = c.ID
		}
		want := temporalReference(ms, visible, tc.start, tc.start.Add(tc.length), tc.slack, tc.k, tc.refers)
		if len(got) != len(want) {
			t.Fatalf("window %v: %d rows, reference %d", tc.start, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("window %v: rank %d is memory %d, reference %d", tc.start, i+1, got[i], want[i])
			}
		}
		checked += len(want)
	}
	if checked < 50 {
		t.Fatalf("only %d ranks checked: the windows miss the fixture", checked)
	}
}
