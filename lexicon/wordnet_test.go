package lexicon_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/recall-engine/recall/lexicon"
)

// TestExpansionTable: the expansion of each word and question of a hand-made WordNet
// (testdata/wn, in wndb's format), worked out by hand from its files: first senses only,
// morphology regular and irregular, compounds and the question's own words left out, names
// past the first word left alone, the limits kept.
func TestExpansionTable(t *testing.T) {
	t.Parallel()
	w, err := lexicon.Load("testdata/wn")
	if err != nil {
		t.Fatal(err)
	}
	syn, hypo, hyper := lexicon.Relations{Synonyms: true}, lexicon.Relations{Hyponyms: true}, lexicon.Relations{Hypernyms: true}
	all := lexicon.Relations{Synonyms: true, Hyponyms: true, Hypernyms: true}
	for _, c := range []struct {
		word string
		rel  lexicon.Relations
		want []string
	}{
		{"dog", syn, nil},                             // its synonyms are compounds
		{"dog", hypo, []string{"puppy"}},              // the first sense's, not the frump's
		{"dog", hyper, []string{"pet"}},               // same part of speech only (not the verb walk)
		{"Pets", hypo, []string{"dog"}},               // lowered, plural detached
		{"animal", syn, []string{"beast"}},            // the other word of the synset
		{"geese", hyper, []string{"animal", "beast"}}, // the irregular plural (noun.exc)
		{"walked", hypo, []string{"stroll"}},          // a verb, its past detached
		{"cat", hyper, []string{"pet"}},               // an instance hypernym counts
		{"unicorn", all, nil},                         // not in the database
		{"dog", all, []string{"puppy", "pet"}},
	} {
		if got := w.Related(c.word, c.rel, 10); !slices.Equal(got, c.want) {
			t.Errorf("Related(%q, %+v) = %v, want %v", c.word, c.rel, got, c.want)
		}
	}
	for _, c := range []struct {
		question     string
		rel          lexicon.Relations
		perWord, max int
		want         []string
	}{
		{"What kind of pets does John walk?", lexicon.Relations{Synonyms: true, Hyponyms: true}, 4, 12, []string{"dog", "stroll"}},
		{"pet dog", all, 4, 12, []string{"animal", "beast", "puppy"}}, // never a word of the question
		{"pet dog", all, 1, 12, []string{"puppy"}},                    // pet's one word is dog, the question's own
		{"pet dog", all, 4, 2, []string{"animal", "beast"}},
		{"john likes dogs", syn, 4, 12, []string{"toilet"}}, // a lowercase name is not told from a word
		{"Was it a cat?", hyper, 4, 12, []string{"pet"}},
	} {
		if got := w.Expand(c.question, c.rel, c.perWord, c.max); !slices.Equal(got, c.want) {
			t.Errorf("Expand(%q, %+v, %d, %d) = %v, want %v", c.question, c.rel, c.perWord, c.max, got, c.want)
		}
	}
	if _, err := lexicon.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "wordnet-base") {
		t.Errorf("an empty directory: %v, want an error naming wordnet-base", err)
	}
}
