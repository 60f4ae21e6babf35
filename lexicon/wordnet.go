// Package lexicon expands a question's words with related words from WordNet (Princeton
// WordNet 3.0, as Debian's wordnet-base installs it in /usr/share/wordnet), for the BM25
// lane's query-side expansion (statement Settings.ExpansionWeight): a question about a "pet"
// may be answered by a memory about a "dog". Only the question changes; the memories, their
// postings and each scope set's statistics are what they were.
//
// The database files are read as wndb(5WN) describes them: index.POS lists each lemma's
// synsets, most frequent sense first; data.POS holds each synset's words and pointers (@
// hypernym, @i instance hypernym, ~ hyponym, ~i instance hyponym); POS.exc the irregular
// forms ("geese" is "goose"). Nouns and verbs are read; adjectives and adverbs are not.
package lexicon

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// DefaultDir is where Debian's wordnet-base installs the database.
const DefaultDir = "/usr/share/wordnet"

// Relations say which related words an expansion takes from a word's first sense.
type Relations struct {
	Synonyms  bool // the other words of the synset
	Hyponyms  bool // the words of the synsets below it (kinds and instances of it)
	Hypernyms bool // the words of the synsets above it
}

// WordNet holds the noun and verb synsets of a WordNet database.
type WordNet struct {
	pos map[byte]*part // 'n', 'v'
}

type part struct {
	index   map[string][]int64 // lemma -> synset offsets, most frequent sense first
	synsets map[int64]synset
	exc     map[string][]string // inflected form -> base forms
}

type synset struct {
	words            []string // lemmas, lowered, "_" between the words of a compound
	hypernyms, hypos []int64
}

// Load reads the noun and verb files of the WordNet database in dir.
func Load(dir string) (*WordNet, error) {
	w := &WordNet{pos: map[byte]*part{}}
	for _, p := range []struct {
		code byte
		name string
	}{{'n', "noun"}, {'v', "verb"}} {
		pt := &part{index: map[string][]int64{}, synsets: map[int64]synset{}, exc: map[string][]string{}}
		if err := eachLine(filepath.Join(dir, "index."+p.name), func(f []string) error { return pt.addIndex(f) }); err != nil {
			return nil, err
		}
		if err := eachLine(filepath.Join(dir, "data."+p.name), func(f []string) error { return pt.addData(f) }); err != nil {
			return nil, err
		}
		if err := eachLine(filepath.Join(dir, p.name+".exc"), func(f []string) error {
			if len(f) >= 2 {
				pt.exc[f[0]] = append(pt.exc[f[0]], f[1:]...)
			}
			return nil
		}); err != nil {
			return nil, err
		}
		if len(pt.index) == 0 || len(pt.synsets) == 0 {
			return nil, fmt.Errorf("lexicon: %s: no %s lemmas or synsets: not a WordNet database", dir, p.name)
		}
		w.pos[p.code] = pt
	}
	return w, nil
}

// eachLine calls f with the fields of every line of file that is not part of its licence
// header (those lines start with a space).
func eachLine(file string, f func([]string) error) error {
	fh, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("lexicon: %w (install Debian's wordnet-base, or name a WordNet 3.0 dict directory)", err)
	}
	defer fh.Close() //nolint:errcheck // read only
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		if err := f(strings.Fields(line)); err != nil {
			return fmt.Errorf("lexicon: %s:%d: %w", file, n, err)
		}
	}
	return sc.Err()
}

// addIndex reads "lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offset...".
func (pt *part) addIndex(f []string) error {
	if len(f) < 6 {
		return fmt.Errorf("index line of %d fields", len(f))
	}
	pcnt, err := strconv.Atoi(f[3])
	if err != nil || 4+pcnt+2 > len(f) {
		return fmt.Errorf("index line: bad pointer count %q", f[3])
	}
	var offs []int64
	for _, s := range f[4+pcnt+2:] {
		o, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("index line: bad offset %q", s)
		}
		offs = append(offs, o)
	}
	pt.index[f[0]] = offs
	return nil
}

// addData reads "offset lex_filenum ss_type w_cnt word lex_id ... p_cnt ptr... | gloss".
func (pt *part) addData(f []string) error {
	if len(f) < 4 {
		return fmt.Errorf("data line of %d fields", len(f))
	}
	off, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return fmt.Errorf("data line: bad offset %q", f[0])
	}
	wcnt, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil || 4+2*int(wcnt)+1 > len(f) {
		return fmt.Errorf("data line: bad word count %q", f[3])
	}
	var s synset
	for i := range int(wcnt) {
		w := strings.ToLower(f[4+2*i])
		if j := strings.IndexByte(w, '('); j > 0 { // an adjective marker, "(a)"
			w = w[:j]
		}
		s.words = append(s.words, w)
	}
	at := 4 + 2*int(wcnt)
	pcnt, err := strconv.Atoi(f[at])
	if err != nil || at+1+4*pcnt > len(f) {
		return fmt.Errorf("data line: bad pointer count %q", f[at])
	}
	for i := range pcnt {
		p := f[at+1+4*i : at+5+4*i]
		if p[2] != f[2] { // a pointer into another part of speech
			continue
		}
		o, err := strconv.ParseInt(p[1], 10, 64)
		if err != nil {
			return fmt.Errorf("data line: bad pointer offset %q", p[1])
		}
		switch p[0] {
		case "@", "@i":
			s.hypernyms = append(s.hypernyms, o)
		case "~", "~i":
			s.hypos = append(s.hypos, o)
		}
	}
	pt.synsets[off] = s
	return nil
}

// base returns the base forms of word in this part of speech that the index has: word
// itself, its irregular bases (the .exc file), and the regular detachments of wndb's
// morphology (noun "dogs" "dog", "boxes" "box", "ladies" "lady"; verb "walks" "walk",
// "walked" "walk", "making" "make").
func (pt *part) base(word string, noun bool) []string {
	var cands []string
	cands = append(cands, word)
	cands = append(cands, pt.exc[word]...)
	rules := [][2]string{{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}}
	if !noun {
		rules = [][2]string{{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}}
	}
	for _, r := range rules {
		if strings.HasSuffix(word, r[0]) && len(word) > len(r[0])+1 {
			cands = append(cands, strings.TrimSuffix(word, r[0])+r[1])
		}
	}
	var out []string
	for _, c := range cands {
		if _, ok := pt.index[c]; ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Related returns the single words related to word by rel through its first (most frequent)
// noun sense, else its first verb sense: in order synonyms, hyponyms, hypernyms, each once,
// never word or its base form, at most max. Compound lemmas ("musical_instrument") are left
// out: the BM25 lane matches single words.
func (w *WordNet) Related(word string, rel Relations, max int) []string {
	word = strings.ToLower(word)
	var out []string
	add := func(ws []string, skip []string) {
		for _, x := range ws {
			if len(out) >= max {
				return
			}
			if !strings.ContainsAny(x, "_-'.") && !slices.Contains(skip, x) && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	for _, code := range []byte{'n', 'v'} {
		pt := w.pos[code]
		bases := pt.base(word, code == 'n')
		if len(bases) == 0 {
			continue
		}
		skip := append([]string{word}, bases...)
		first, ok := pt.synsets[pt.index[bases[0]][0]]
		if !ok {
			continue
		}
		if rel.Synonyms {
			add(first.words, skip)
		}
		if rel.Hyponyms {
			for _, o := range first.hypos {
				add(pt.synsets[o].words, skip)
			}
		}
		if rel.Hypernyms {
			for _, o := range first.hypernyms {
				add(pt.synsets[o].words, skip)
			}
		}
		return out
	}
	return out
}

// Expand returns the words related (Related) to the question's content words, at most
// perWord for each and max in all, none of them a word of the question. A content word is
// a run of at least three letters that is not a stop word, nor capitalized past the
// question's first word (a name: "John" is not the toilet).
func (w *WordNet) Expand(question string, rel Relations, perWord, max int) []string {
	raw := strings.FieldsFunc(question, func(r rune) bool { return !unicode.IsLetter(r) })
	words := make([]string, len(raw))
	for i, r := range raw {
		words[i] = strings.ToLower(r)
	}
	var out []string
	for i, q := range words {
		if len(q) < 3 || stopWords[q] || (i > 0 && unicode.IsUpper([]rune(raw[i])[0])) {
			continue
		}
		for _, x := range w.Related(q, rel, perWord) {
			if len(out) >= max {
				return out
			}
			if !slices.Contains(words, x) && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

// stopWords are the words a question asks with, which expand into noise ("what", "did",
// "when", "kind").
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`about above after again against all also and any are because been before being
		below between both but can could did does doing done down during each few for from further had has have having
		her here hers herself him himself his how into its itself just kind kinds like made make many more most much
		must myself nor not now off once only other our ours ourselves out over own same she should some such than
		that the their theirs them themselves then there these they this those through too type under until very
		was way were what when where which while who whom why will with would you your yours yourself yourselves
		ever get got going new one ones say said tell told thing things time times day days year years`) {
		m[w] = true
	}
	return m
}()

// Expander expands questions with w's words of the relations rel, at most perWord for each
// question word and max in all (recall.Config.Expander).
type Expander struct {
	WordNet   *WordNet
	Relations Relations
	PerWord   int
	Max       int
}

// Expand returns the expansion of question (WordNet.Expand).
func (x Expander) Expand(question string) []string {
	return x.WordNet.Expand(question, x.Relations, x.PerWord, x.Max)
}
