package records_test

import (
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/write"
)

func at(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, line string
		format     records.Format
		o          records.Options
		want       []records.Record
	}{
		{"native memory", `{"type": "memory", "id": "m1", "text": "hi", "occurred_start": "2024-03-01", "tags": ["a"]}`, records.Auto, records.Options{},
			[]records.Record{{Line: 7, Memory: &write.Memory{ID: "m1", Text: "hi", OccurredStart: at("2024-03-01T00:00:00Z"), Tags: []string{"a"}}}}},
		{"native relation", `{"type": "relation", "from": "a", "to": "b", "predicate": "knows"}`, records.Native, records.Options{},
			[]records.Record{{Line: 7, Relation: &write.Relation{From: "a", To: "b", Predicate: "knows"}}}},
		{"beir titled", `{"_id": "d1", "title": "T", "text": "body"}`, records.Auto, records.Options{},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "d1", Title: "T"}}, {Line: 7, Memory: &write.Memory{ID: "d1", Source: "d1", Text: "body"}}}},
		{"beir blank text takes the title", `{"_id": "d2", "title": "Only a title", "text": " "}`, records.BEIR, records.Options{},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "d2", Title: "Only a title"}}, {Line: 7, Memory: &write.Memory{ID: "d2", Source: "d2", Text: "Only a title"}}}},
		{"beir speaker and time fields", `{"_id": "c:D1:3", "title": "", "text": "Ana: yes", "metadata": {"who": "Ana", "when": "1:56 pm on 8 May, 2023"}}`,
			records.BEIR, records.Options{SpeakerField: "who", TimeField: "when"},
			[]records.Record{{Line: 7, Memory: &write.Memory{ID: "c:D1:3", Text: "Ana: yes", Speaker: "Ana", OccurredStart: at("2023-05-08T13:56:00Z"),
				Metadata: map[string]any{"who": "Ana", "when": "1:56 pm on 8 May, 2023"}}}}},
		{"beir supersedes and valid_from fields", `{"_id": "p:2", "text": "I moved to Oslo.", "metadata": {"sup": ["p:1"], "from": "2023-06-02"}}`,
			records.BEIR, records.Options{SupersedesField: "sup", ValidFromField: "from"},
			[]records.Record{{Line: 7, Memory: &write.Memory{ID: "p:2", Text: "I moved to Oslo.", Supersedes: []string{"p:1"}, ValidFrom: at("2023-06-02T00:00:00Z"),
				Metadata: map[string]any{"sup": []any{"p:1"}, "from": "2023-06-02"}}}}},
		{"turn", `{"speaker": "Bo", "text": "hello", "date": "2024-01-02", "conversation": "chat"}`, records.Auto, records.Options{},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "chat", Title: "chat"}},
				{Line: 7, Memory: &write.Memory{ID: "chat:7", Source: "chat", Kind: "experience", Text: "hello", Speaker: "Bo", OccurredStart: at("2024-01-02T00:00:00Z")}, Ordered: true}}},
		{"turn that expires", `{"speaker": "Bo", "text": "the code is 1234", "conversation": "chat", "expires_at": "9 May, 2023"}`, records.Turns, records.Options{},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "chat", Title: "chat"}},
				{Line: 7, Memory: &write.Memory{ID: "chat:7", Source: "chat", Kind: "experience", Text: "the code is 1234", Speaker: "Bo", ExpiresAt: at("2023-05-09T00:00:00Z")}, Ordered: true}}},
		{"turn that replaces another", `{"speaker": "Bo", "text": "we moved to Oslo", "conversation": "chat", "id": "t9", "supersedes": ["t2"], "valid_from": "2023-06-01", "valid_until": "2024-01-01"}`, records.Auto, records.Options{},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "chat", Title: "chat"}},
				{Line: 7, Memory: &write.Memory{ID: "t9", Source: "chat", Kind: "experience", Text: "we moved to Oslo", Speaker: "Bo", Supersedes: []string{"t2"},
					ValidFrom: at("2023-06-01T00:00:00Z"), ValidUntil: at("2024-01-01T00:00:00Z")}, Ordered: true}}},
		{"turn of a session, placed", `{"speaker": "Bo", "text": "hi", "conversation": "chat", "session": "s2", "position": 4}`, records.Turns, records.Options{},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "chat:s2", Title: "chat"}},
				{Line: 7, Memory: &write.Memory{ID: "chat:7", Source: "chat:s2", Kind: "experience", Text: "hi", Speaker: "Bo", Position: 4}, Ordered: true}}},
		{"beir session field", `{"_id": "c:D2:1", "title": "", "text": "Ana: hi", "metadata": {"session": "session_2", "when": "2023-05-08"}}`,
			records.BEIR, records.Options{SessionField: "session", TimeField: "when"},
			[]records.Record{{Line: 7, Source: &write.Source{ID: "session_2", OccurredAt: at("2023-05-08T00:00:00Z")}},
				{Line: 7, Memory: &write.Memory{ID: "c:D2:1", Source: "session_2", Text: "Ana: hi", OccurredStart: at("2023-05-08T00:00:00Z"),
					Metadata: map[string]any{"session": "session_2", "when": "2023-05-08"}}, Ordered: true}}},
	} {
		got, err := records.Parse([]byte(c.line), c.format, "f.jsonl", 7, c.o)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line   string
		format records.Format
	}{
		{`not json`, records.Auto},
		{`{"x": 1}`, records.Auto},
		{`{"type": "memory", "id": "m", "text": "t", "colour": "red"}`, records.Native},
		{`{"type": "thing"}`, records.Native},
		{`{"title": "no id"}`, records.BEIR},
		{`{"text": "no speaker"}`, records.Turns},
		{`{"speaker": "a", "text": "t", "date": "yesterday"}`, records.Turns},
		{`{"speaker": "a", "text": "t", "expires_at": "soon"}`, records.Turns},
		{`{"speaker": "a", "text": "t", "valid_from": "later"}`, records.Turns},
		{`{"speaker": "a", "text": "t", "supersedes": "t1"}`, records.Turns},
		{`{"_id": "d"} {"_id": "e"}`, records.BEIR},
		{`{"_id": "d"}`, "csv"},
	} {
		_, err := records.Parse([]byte(c.line), c.format, "f.jsonl", 3, records.Options{})
		var le *records.LineError
		if !errors.As(err, &le) || le.File != "f.jsonl" || le.Line != 3 {
			t.Errorf("%s (%s): %v, want a LineError at f.jsonl:3", c.line, c.format, err)
		}
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"2024-03-01T10:00:00+02:00": "2024-03-01T08:00:00Z",
		"2024-03-01 10:00":          "2024-03-01T10:00:00Z",
		"2024-03-01":                "2024-03-01T00:00:00Z",
		"1:56 pm on 8 May, 2023":    "2023-05-08T13:56:00Z",
		"10:37 am on 27 June, 2023": "2023-06-27T10:37:00Z",
		"8 May 2023":                "2023-05-08T00:00:00Z",
		"May 8, 2023":               "2023-05-08T00:00:00Z",
	} {
		got, err := records.ParseTime(s)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("%q: %v %v, want %s", s, got, err, want)
		}
	}
	if got, err := records.ParseTime("08/05/23", "02/01/06"); err != nil || got.Format(time.DateOnly) != "2023-05-08" {
		t.Errorf("a layout given: %v %v", got, err)
	}
	if _, err := records.ParseTime("last week"); err == nil {
		t.Error(`"last week" parsed as a time`)
	}
}

// TestSequencer: ordered memories are numbered per source in the order they come; a given
// position is kept and numbering goes on after it; unordered memories are left alone.
func TestSequencer(t *testing.T) {
	t.Parallel()
	var seq records.Sequencer
	mem := func(src string, pos int, ordered bool) *records.Record {
		return &records.Record{Memory: &write.Memory{Source: src, Position: pos}, Ordered: ordered}
	}
	recs := []*records.Record{mem("a", 0, true), mem("b", 0, true), mem("a", 0, true), mem("a", 7, true), mem("a", 0, true), mem("b", 0, false), mem("", 0, true)}
	for _, r := range recs {
		seq.Place(r)
	}
	var got []int
	for _, r := range recs {
		got = append(got, r.Memory.Position)
	}
	if want := []int{1, 1, 2, 7, 8, 0, 0}; !reflect.DeepEqual(got, want) {
		t.Fatalf("positions %v, want %v", got, want)
	}
}

// TestREADMEListsNativeFields: the README's list of native record fields is NativeFields.
func TestREADMEListsNativeFields(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), records.NativeFields()) {
		t.Fatalf("README.md does not list the native fields as records.NativeFields has them:\n%s", records.NativeFields())
	}
}

// TestLoadStopsAtAReadError: input that fails mid-line (a body cut at a limit) writes the
// whole lines before the failure, not the part of the line it stopped in, and says which
// line was written last.
func TestLoadStopsAtAReadError(t *testing.T) {
	text := `{"speaker": "Ana", "text": "one", "conversation": "c"}` + "\n\n" +
		`{"speaker": "Ana", "text": "two", "conversation": "c"}` + "\n" +
		`{"speaker": "Ana", "text": "three", "conversation": "c"}` + "\n" +
		`{"speaker": "Ana", "text": "fo`
	cut := errors.New("cut")
	var stored []string
	store := func(_ context.Context, b write.Batch) (write.Result, error) {
		for _, m := range b.Memories {
			stored = append(stored, m.Text)
		}
		return write.Result{Memories: len(b.Memories)}, nil
	}
	res, lines, err := records.Load(context.Background(), io.MultiReader(strings.NewReader(text), iotest.ErrReader(cut)),
		"body", records.Turns, 2, write.Batch{}, store, nil)
	var re *records.ReadError
	if !errors.As(err, &re) || !errors.Is(err, cut) || re.Line != 5 || re.Written != 4 {
		t.Fatalf("Load: %v (%+v), want a ReadError in line 5 written through line 4", err, re)
	}
	if !slices.Equal(stored, []string{"one", "two", "three"}) || res.Memories != 3 || lines != 3 {
		t.Fatalf("stored %q (%d), %d lines", stored, res.Memories, lines)
	}
}
