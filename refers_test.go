package recall_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/recall-engine/recall"
)

// TestRefersTimes: the span a memory's text refers to is read at write time relative to when
// it was said (mentioned_at, else occurred_start), kept as the caller set it, absent without
// an expression or a time to read it against, and read again when the memory is rewritten.
func TestRefersTimes(t *testing.T) {
	t.Parallel()
	db, e := newWriteEngine(t)
	ctx := context.Background()
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	batch := recall.Batch{Memories: []recall.Memory{
		{ID: "group", Text: "Caroline: I went to a support group yesterday.", Speaker: "Caroline", OccurredStart: at("2023-05-08T13:56:00Z")},
		{ID: "moved", Text: "We moved here last month.", OccurredStart: at("2020-01-01T00:00:00Z"), MentionedAt: at("2023-04-18T09:00:00Z")},
		{ID: "plain", Text: "No time is named here.", OccurredStart: at("2023-05-08T13:56:00Z")},
		{ID: "set", Text: "I saw it yesterday.", OccurredStart: at("2023-05-08T13:56:00Z"), RefersStart: day("2021-02-03"), RefersEnd: day("2021-02-05")},
		{ID: "unplaced", Text: "I saw it yesterday."},
		{ID: "dated", Text: "The launch is on 2 June 2023, two weeks ago was the dry run.", OccurredStart: at("2023-05-20T08:00:00Z")},
	}}
	if _, err := e.Write(ctx, member, batch); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"group":    {"2023-05-07", "2023-05-08"},
		"moved":    {"2023-03-01", "2023-04-01"},
		"plain":    {},
		"set":      {"2021-02-03", "2021-02-05"},
		"unplaced": {},
		"dated":    {"2023-06-02", "2023-06-03"},
	}
	check := func() {
		t.Helper()
		rows, err := db.Owner.Query(ctx, `SELECT external_id, refers_start, refers_end FROM recall.memories`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id string
			var s, en pgtype.Timestamptz
			if err := rows.Scan(&id, &s, &en); err != nil {
				t.Fatal(err)
			}
			n++
			w := want[id]
			got := [2]string{}
			if s.Valid {
				got = [2]string{s.Time.UTC().Format(time.DateOnly), en.Time.UTC().Format(time.DateOnly)}
				if !s.Time.Equal(*day(got[0])) || !en.Time.Equal(*day(got[1])) {
					t.Errorf("%s: refers [%v, %v) is not whole days", id, s.Time, en.Time)
				}
			}
			if got != w {
				t.Errorf("%s: refers %v, want %v", id, got, w)
			}
		}
		if rows.Err() != nil || n != len(want) {
			t.Fatalf("%d memories (%v), want %d", n, rows.Err(), len(want))
		}
	}
	check()
	// Rewritten, a memory's span is read again from its new text.
	batch.Memories[0].Text = "Caroline: I went to a support group."
	batch.Memories[2].Text = "Two days ago it rained."
	if _, err := e.Write(ctx, member, batch); err != nil {
		t.Fatal(err)
	}
	want["group"], want["plain"] = [2]string{}, [2]string{"2023-05-06", "2023-05-07"}
	check()
}
