package eval

import (
	"fmt"
	"testing"
)

// TestMix: a second set's documents spread over the first's scopes keep each query's
// judged documents (and those linked through shared documents) in the query's scope; the
// unjudged ones go round the scopes; every document and query names its set; the first
// set's mapping fields are stripped from the second's records; ids shared by both sets are
// refused.
func TestMix(t *testing.T) {
	t.Parallel()
	a := &Dataset{Queries: map[string]string{"qa": "who?"}, QueryMeta: map[string]map[string]any{"qa": {"conv": "c1"}},
		Qrels: map[string]Qrels{"qa": {"a1": 1}}}
	for i, c := range []string{"c1", "c2", "c1", "c3"} {
		a.Corpus = append(a.Corpus, Doc{ID: fmt.Sprintf("a%d", i+1), Text: "turn", Metadata: map[string]any{"conv": c, "speaker": "Ana"}})
	}
	b := &Dataset{Queries: map[string]string{}, QueryMeta: map[string]map[string]any{}, Qrels: map[string]Qrels{}}
	for i := range 12 {
		b.Corpus = append(b.Corpus, Doc{ID: fmt.Sprintf("d%d", i), Text: "abstract", Metadata: map[string]any{"speaker": "nobody"}})
	}
	// q1 judges d0 and d5; q2 judges d5 and d9 (linked to q1 through d5); q3 judges d3.
	for q, docs := range map[string][]string{"q1": {"d0", "d5"}, "q2": {"d5", "d9"}, "q3": {"d3"}} {
		b.Queries[q], b.QueryMeta[q], b.Qrels[q] = "claim", map[string]any{"speaker": "x"}, Qrels{}
		for _, d := range docs {
			b.Qrels[q][d] = 1
		}
	}
	scope := func(m map[string]any) (string, error) { return m["conv"].(string), nil }
	mixed, err := Mix(a, b, "a", "b", "conv", []string{"speaker"}, scope)
	if err != nil {
		t.Fatal(err)
	}
	docScope := map[string]string{}
	perScope := map[string]int{}
	for _, d := range mixed.Corpus {
		sc, _ := d.Metadata["conv"].(string)
		docScope[d.ID] = sc
		if d.ID[0] == 'd' {
			perScope[sc]++
			if _, ok := d.Metadata["speaker"]; ok || d.Metadata[SetField] != "b" {
				t.Errorf("%s: metadata %v", d.ID, d.Metadata)
			}
		} else if d.Metadata[SetField] != "a" || d.Metadata["speaker"] != "Ana" {
			t.Errorf("%s: metadata %v", d.ID, d.Metadata)
		}
	}
	for q := range b.Queries {
		sc := mixed.QueryMeta[q]["conv"]
		for d := range mixed.Qrels[q] {
			if docScope[d] != sc {
				t.Errorf("%s is asked in %v, its document %s is in %s", q, sc, d, docScope[d])
			}
		}
		if mixed.QueryMeta[q][SetField] != "b" || mixed.QueryMeta[q]["speaker"] != nil {
			t.Errorf("%s: metadata %v", q, mixed.QueryMeta[q])
		}
	}
	if docScope["d0"] != docScope["d9"] {
		t.Errorf("d0 and d9 are linked through d5 (q1, q2) but in %s and %s", docScope["d0"], docScope["d9"])
	}
	// Groups {d0, d5, d9} -> c1 and {d3} -> c2 in Judged order; the 8 others c1, c2, c3, c1...
	if perScope["c1"] != 6 || perScope["c2"] != 4 || perScope["c3"] != 2 {
		t.Errorf("the unjudged documents do not go round the scopes: %v", perScope)
	}
	again, _ := Mix(a, b, "a", "b", "conv", []string{"speaker"}, scope)
	for i := range again.Corpus {
		if again.Corpus[i].Metadata["conv"] != mixed.Corpus[i].Metadata["conv"] {
			t.Fatalf("two mixes differ at %s", again.Corpus[i].ID)
		}
	}
	b.Corpus = append(b.Corpus, Doc{ID: "a2"})
	if _, err := Mix(a, b, "a", "b", "conv", nil, scope); err == nil {
		t.Error("a document id in both sets was not refused")
	}
}
