package records_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/write"
)

// TestExportFraming: what Encoder writes, Load reads back as exported (write.Batch.AsExported
// on every batch, the rows as written); a file whose framing is wrong is refused at the line
// that breaks it, and one without its end record as cut.
func TestExportFraming(t *testing.T) {
	t.Parallel()
	when := time.Date(2024, 5, 1, 9, 30, 0, 123456000, time.UTC)
	rows := []records.Record{
		{Header: &records.ExportHeader{Version: records.ExportVersion, Scopes: []string{"team"}, At: when}},
		{Source: &write.Source{ID: "s1", Title: "Diary", OccurredAt: &when}},
		{Entity: &write.Entity{ID: "auto:ana lima", Name: "Ana Lima", Kind: "person"}},
		{Memory: &write.Memory{ID: "m1", Source: "s1", Position: 1, Text: "Ana <met> Bo & Cy.", Speaker: "Ana Lima", Embedding: []float32{0.1, -3.25e-7},
			OccurredStart: &when, Entities: []string{"auto:ana lima"}}},
		{Memory: &write.Memory{ID: "m2", Text: "Moved.", Supersedes: []string{"m1"}, SupersedesAt: &when, DuplicateOf: "m1"}},
		{Relation: &write.Relation{From: "auto:ana lima", To: "auto:bo", Predicate: "co_mentioned", Weight: 1, Memory: "m1"}},
		{End: &records.ExportEnd{Sources: 1, Entities: 1, Memories: 2, Relations: 1}},
	}
	var buf bytes.Buffer
	enc := records.NewEncoder(&buf)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	load := func(body string) ([]write.Batch, error) {
		var got []write.Batch
		_, _, err := records.Load(context.Background(), strings.NewReader(body), "f", records.Auto, 1, write.Batch{}, func(_ context.Context, b write.Batch) (write.Result, error) {
			got = append(got, b)
			return write.Result{}, nil
		}, nil)
		return got, err
	}
	got, err := load(file)
	if err != nil {
		t.Fatal(err)
	}
	var mems []write.Memory
	for _, b := range got {
		if !b.AsExported {
			t.Fatalf("a batch of the export not restored as exported: %+v", b)
		}
		mems = append(mems, b.Memories...)
	}
	if len(mems) != 2 || mems[0].Text != "Ana <met> Bo & Cy." || mems[0].Embedding[1] != -3.25e-7 || !mems[0].OccurredStart.Equal(when) ||
		!mems[1].SupersedesAt.Equal(when) || mems[1].DuplicateOf != "m1" || mems[0].Entities[0] != "auto:ana lima" {
		t.Fatalf("memories read back: %+v", mems)
	}
	lines := strings.SplitAfter(strings.TrimSpace(file), "\n")
	for name, c := range map[string]struct {
		body, want string
	}{
		"cut":           {strings.Join(lines[:len(lines)-1], ""), "f:6: the export ends without its end record"},
		"short counts":  {strings.Join(append(slices.Clone(lines[:4]), lines[5:]...), ""), "f:6: the export's end counts"},
		"after its end": {file + `{"type": "memory", "id": "m3", "text": "late"}` + "\n", "f:8: a record after the export's end"},
		"header late":   {lines[1] + lines[0], "f:2: an export header after other records"},
		"two headers":   {lines[0] + lines[0], "f:2: an export header after other records"},
		"version":       {strings.Replace(lines[0], `"version":1`, `"version":9`, 1), "f:1: export version 9"},
		"end alone":     {lines[6], "f:1: an export end without its header"},
	} {
		if _, err := load(c.body); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestResume: a load of conversation turns without ids or places, stopped at a line and
// resumed, writes what the whole load writes: resumed over the whole file (the lines before
// read only to number them), or over the rest of it with the places stored so far.
func TestResume(t *testing.T) {
	t.Parallel()
	var file strings.Builder
	for i := range 12 {
		fmt.Fprintf(&file, `{"conversation": "c%d", "speaker": "Ana", "text": "turn %d"}`+"\n", i%2, i+1)
	}
	type row struct {
		id, source string
		place      int
	}
	load := func(body string, from records.Resume) []row {
		var got []row
		_, _, err := records.LoadFrom(context.Background(), strings.NewReader(body), "chat.jsonl", records.Auto, 2, write.Batch{},
			func(_ context.Context, b write.Batch) (write.Result, error) {
				for _, m := range b.Memories {
					got = append(got, row{m.ID, m.Source, m.Position})
				}
				return write.Result{}, nil
			}, nil, from)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	whole := load(file.String(), records.Resume{})
	if len(whole) != 12 || whole[11] != (row{"c1:12", "c1", 6}) {
		t.Fatalf("the whole load: %v", whole)
	}
	lines := strings.SplitAfter(file.String(), "\n")
	for _, from := range []int{2, 7, 8, 12} {
		// Places stored by the first part: the greatest of each conversation's.
		stored := map[string]int{}
		for _, r := range whole[:from-1] {
			stored[r.source] = max(stored[r.source], r.place)
		}
		places := func(_ context.Context, sources []string) (map[string]int, error) {
			out := map[string]int{}
			for _, s := range sources {
				out[s] = stored[s]
			}
			return out, nil
		}
		if got := load(file.String(), records.Resume{From: from}); !slices.Equal(got, whole[from-1:]) {
			t.Errorf("from line %d of the whole file: %v, want %v", from, got, whole[from-1:])
		}
		rest := strings.Join(lines[from-1:], "")
		if got := load(rest, records.Resume{From: from, Rest: true, Places: places}); !slices.Equal(got, whole[from-1:]) {
			t.Errorf("the rest from line %d: %v, want %v", from, got, whole[from-1:])
		}
		if got := load(rest, records.Resume{}); slices.Equal(got, whole[from-1:]) {
			t.Errorf("the rest from line %d loaded as a file of its own gave the same rows: the test proves nothing", from)
		}
	}
}
