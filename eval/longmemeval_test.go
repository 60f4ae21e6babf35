package eval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadLongMemEval reads a small file in LongMemEval's format: each question its own
// scope holding its haystack, a document per turn with its session, date (RFC 3339) and
// role; judged by the turns marked has_answer, else by its answer sessions' turns; an
// abstention question ("_abs") left unjudged though it marks a turn and names an answer
// session, as some of the release's do; a turn with no text skipped, the next keeping its
// number; a session the haystack holds twice read as two. Malformed files are refused naming the question.
func TestLoadLongMemEval(t *testing.T) {
	d, err := Load(filepath.Join("testdata", "longmemeval.json"), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Corpus) != 10 || len(d.Queries) != 3 {
		t.Fatalf("%d documents, %d questions", len(d.Corpus), len(d.Queries))
	}
	want := Doc{ID: "q-degree:s-career:1", Text: "I graduated with a degree in Business Administration and want to move into marketing.",
		Metadata: map[string]any{"conv": "q-degree", "session": "s-career", "date": "2023-05-22T10:05:00Z", "speaker": "user"}}
	if !reflect.DeepEqual(d.Corpus[2], want) {
		t.Fatalf("third document %+v, want %+v", d.Corpus[2], want)
	}
	wantQrels := map[string]Qrels{
		"q-degree": {"q-degree:s-career:1": 1},                                                               // the marked turn, not its whole session
		"q-dog":    {"q-dog:s-puppy:1": 1, "q-dog:s-puppy:2": 1, "q-dog:s-trip:1": 1, "q-dog:s-trip~2:1": 1}, // a session held twice: both judged
	}
	if !reflect.DeepEqual(d.Qrels, wantQrels) {
		t.Fatalf("qrels %v, want %v", d.Qrels, wantQrels)
	}
	if last := d.Corpus[len(d.Corpus)-1]; last.ID != "q-car_abs:s-weather:3" {
		t.Fatalf("last document %q, want q-car_abs:s-weather:3 (the empty second turn skipped, the third keeping its number)", last.ID)
	}
	if m := d.QueryMeta["q-dog"]; m["conv"] != "q-dog" || m["category_name"] != "temporal-reasoning" || m["question_date"] != "2023-06-10T09:00:00Z" || m["answer"] != 3.0 {
		t.Fatalf("q-dog's metadata %v", m)
	}
	if got := d.Judged(); len(got) != 2 {
		t.Fatalf("%d judged questions, want 2 (the abstention is not)", len(got))
	}
	for name, c := range map[string]struct{ text, want string }{
		"lengths": {`[{"question_id": "a", "question": "q?", "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["s"], "haystack_dates": [], "haystack_sessions": [[]]}]`, `"a"`},
		"date":    {`[{"question_id": "b", "question": "q?", "question_date": "30 May 2023"}]`, "question_date"},
		"not it":  {`{"corpus": []}`, "LongMemEval"},
	} {
		p := filepath.Join(t.TempDir(), "x.json")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p, "test"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, c.want)
		}
	}
}
