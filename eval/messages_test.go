package eval

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/recall-engine/recall/statement"
)

// TestSplitMessages: a turn is cut after sentence-final punctuation followed by a space and
// around a bracketed part, never inside brackets or inside a number; the speaker's label
// starts every message; a part without a letter or digit joins the one before it.
func TestSplitMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Caroline: Hey Mel! Good to see you! How have you been?",
			[]string{"Caroline: Hey Mel!", "Caroline: Good to see you!", "Caroline: How have you been?"}},
		{"Melanie: We painted last weekend. [shares image: a photo of a lake. At dawn!] Isn't it nice?!",
			[]string{"Melanie: We painted last weekend.", "Melanie: [shares image: a photo of a lake. At dawn!]", "Melanie: Isn't it nice?!"}},
		{"Jon: It cost 3.5 million... Wow", []string{"Jon: It cost 3.5 million...", "Jon: Wow"}},
		{"Just one line without a label", []string{"Just one line without a label"}},
		{"Ana: Really?! :)", []string{"Ana: Really?! :)"}},
		{"Ana: Wow! ... Sure.", []string{"Ana: Wow! ...", "Ana: Sure."}},
		{"Note. Second: not a label. Third", []string{"Note.", "Second: not a label.", "Third"}},
		{"", nil},
	} {
		if got := SplitMessages(c.text); !slices.Equal(got, c.want) {
			t.Errorf("SplitMessages(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// TestMessages: a turn becomes its messages, ids #1.., each with the turn's metadata (a copy)
// and its parent; a document without a session, and a turn of one message, stay whole; the
// queries and judgments stay the turns'. A ranking of messages scores by turns: a turn is
// found at the place of its first message, and its later messages are unjudged.
func TestMessages(t *testing.T) {
	t.Parallel()
	d := &Dataset{
		Corpus: []Doc{
			{ID: "t1", Text: "Ana: I moved to Rome. It is lovely.", Metadata: map[string]any{"session": "s1", "speaker": "Ana"}},
			{ID: "t2", Text: "Ben: Great!", Metadata: map[string]any{"session": "s1", "speaker": "Ben"}},
			{ID: "n1", Text: "A note. Two sentences.", Metadata: map[string]any{}},
		},
		Queries: map[string]string{"q": "Where did Ana move?"}, QueryMeta: map[string]map[string]any{"q": {}},
		Qrels: map[string]Qrels{"q": {"t1": 1, "t2": 1}},
	}
	m, err := Messages(d, "session", "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, doc := range m.Corpus {
		ids = append(ids, doc.ID+"="+doc.Text)
	}
	want := []string{"t1#1=Ana: I moved to Rome.", "t1#2=Ana: It is lovely.", "t2=Ben: Great!", "n1=A note. Two sentences."}
	if !slices.Equal(ids, want) {
		t.Fatalf("corpus %q, want %q", ids, want)
	}
	m.Corpus[0].Metadata["speaker"] = "changed"
	if m.Corpus[1].Metadata["speaker"] != "Ana" || d.Corpus[0].Metadata["speaker"] != "Ana" {
		t.Fatal("the messages share one metadata map")
	}
	if m.Parent["t1#2"] != "t1" || m.Parent["t2"] != "t2" || m.Parent["n1"] != "n1" || len(m.Parent) != 4 {
		t.Fatalf("parents %v", m.Parent)
	}
	if _, err := Messages(d, "", ""); err == nil {
		t.Fatal("no session field: want an error")
	}

	ranked := []string{"t1#2", "x", "t1#1", "t2"}
	search := m.Search(func(context.Context, Query, statement.Plan, int) ([]string, error) { return ranked, nil })
	got, err := search(context.Background(), Query{ID: "q"}, statement.Maximal, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"t1", "x", "t1#1", "t2"}; !slices.Equal(got, want) {
		t.Fatalf("by parent %q, want %q", got, want)
	}
	// recall@2: one of the two turns in the first two places; recall@4: both.
	if r2, r4 := Recall(got, d.Qrels["q"], 2), Recall(got, d.Qrels["q"], 4); r2 != 0.5 || r4 != 1 {
		t.Fatalf("recall@2 %v, @4 %v", r2, r4)
	}
	if got := ToParents(ranked, nil); !slices.Equal(got, ranked) {
		t.Fatalf("without parents %q", got)
	}
}

// TestMessagesByAnswer: with an answer field, a judged turn's judgment moves to its messages
// sharing the most words with the answer (ties: with the question; ties again: each of
// them); a turn of one message keeps it; rankings are then scored by message.
func TestMessagesByAnswer(t *testing.T) {
	t.Parallel()
	d := &Dataset{
		Corpus: []Doc{
			{ID: "t1", Text: "Ana: Hey Ben! I moved to Rome last May. The food is great.", Metadata: map[string]any{"session": "s"}},
			{ID: "t2", Text: "Ben: Nice. Nice.", Metadata: map[string]any{"session": "s"}},
			{ID: "t3", Text: "Ana: Rome it is!", Metadata: map[string]any{"session": "s"}},
		},
		Queries:   map[string]string{"q": "Where did Ana move in May?", "r": "What did Ben say?", "u": "Which food?"},
		QueryMeta: map[string]map[string]any{"q": {"answer": "Rome"}, "r": {"answer": 2023}, "u": {}},
		Qrels:     map[string]Qrels{"q": {"t1": 1, "t3": 2}, "r": {"t2": 1}, "u": {"t1": 1}},
	}
	m, err := Messages(d, "session", "answer")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Qrels{
		"q": {"t1#2": 1, "t3": 2},   // "moved to Rome last May": the answer's word, and two of the question's
		"r": {"t2#1": 1, "t2#2": 1}, // the answer in neither, the question's "Ben" in both (the label)
		"u": {"t1#3": 1},            // no answer: the question's word
	}
	for q, w := range want {
		if !maps.Equal(m.Qrels[q], w) {
			t.Errorf("%s: judged %v, want %v", q, m.Qrels[q], w)
		}
	}
	if m.Parent != nil {
		t.Fatalf("parents %v: rankings should be scored by message", m.Parent)
	}
	if !maps.Equal(d.Qrels["q"], Qrels{"t1": 1, "t3": 2}) {
		t.Fatalf("the turns' judgments changed: %v", d.Qrels["q"])
	}
}
