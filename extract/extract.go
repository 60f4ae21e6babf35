// Package extract finds entity names in text without a language model: runs of capitalised
// words ("Alice Martin", "Port of Lisbon", "NASA"), with possessives trimmed and
// sentence-initial function words, contractions (I'm, Don't), months and weekdays left out;
// a line break or a colon starts a sentence as a full stop does (a list item's "Use ...",
// "Tip: Consider ..."). It is deterministic: the same text gives the same names in the same
// order.
package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Version changes whenever the same text gives other names, so databases kept for
// benchmarks are rebuilt (aizk-eval's loadVersion moves with it). 2: contractions, and single
// words at a line's or a colon's start, are left out; "New" may start a name.
const Version = 2

// MaxNames bounds the names taken from one text.
const MaxNames = 32

// A run of capitalised words longer than MaxNameWords words or MaxNameBytes bytes is not a
// name (a heading, a shouted paragraph, "Harbor Harbor Harbor ..."): it is left out, so an
// extracted entity's name always fits the schema.
const (
	MaxNameWords = 8
	MaxNameBytes = 128
)

// connectors may join capitalised words inside a name ("Port of Lisbon", "Ana de Sousa").
var connectors = set("of de da do dos das del della di du van von der den la le y al bin")

// calendar words are capitalised but name dates, not entities: alone they are dropped,
// before another capitalised word they may start a name ("June Park").
var calendar = set(`monday tuesday wednesday thursday friday saturday sunday january february
march april may june july august september october november december`)

// notNames are capitalised words that are not names on their own: function words that
// start sentences and pronouns. Not "new" and "old", which start names (New York, Old
// Trafford): alone at a sentence's start they are weak, as any single word there is.
var notNames = set(`a an the this that these those there here it its i we you he she they
my our your his her their me us him them who what when where why how which while if then
so but and or nor yet for as at by in on of to from with without about after before during
since until upon into onto over under between among through across also however although
though because yes no not all any each every some many most more few both either neither
one two three four five six seven eight nine ten first second third last next is
was are were be been being have has had do does did will would shall should can could may
might must let please thanks thank hello hi dear ok okay today yesterday tomorrow tonight
mr mrs ms dr st furthermore moreover interestingly therefore thus hence taken notably
importantly additionally finally overall despite whereas consequently nevertheless
nonetheless similarly likewise indeed conversely specifically collectively together
accordingly altogether recently currently previously herein using based compared following
according including such our`)

// headings are the section headings of structured abstracts and reports ("BACKGROUND",
// "MAIN OUTCOME MEASURES"). Written in capitals they end the sentence before them and are
// not names; the word after one starts a sentence.
var headings = set(`abstract aim aims background conclusion conclusions context data design
discussion evidence extraction findings importance interpretation intervention interventions
introduction limitations main materials measurement measurements measures method methods
methodology objective objectives outcome outcomes participants patients purpose rationale
registration relevance results review selection setting settings significance sources study
summary synthesis trial`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

type word struct {
	text   string
	start  bool // first word of a sentence
	capped bool
}

// contractions are the endings of a pronoun's or verb's contraction (I'm, I've, you'll,
// we'd, they're, don't): a capitalised word with one is a function word, not a name.
var contractions = set("m ve ll d re t")

// contraction reports whether w is a function word contracted: its part before the
// apostrophe a function word (I'm, You'll, It'd) or its ending n't (Don't, Can't).
func contraction(w string) bool {
	at := strings.LastIndexAny(w, "'’")
	if at <= 0 {
		return false
	}
	_, n := utf8.DecodeRuneInString(w[at:])
	stem, end := strings.ToLower(w[:at]), strings.ToLower(w[at+n:])
	if !contractions[end] {
		return false
	}
	return notNames[stem] || end == "t" && strings.HasSuffix(stem, "n")
}

func words(text string) []word {
	var out []word
	start := true
	for text != "" {
		// A line break ends a name and starts a sentence: a list item ("- Use a ...", "1.
		// Consider ...") or a heading's next line starts with a capital as a sentence does.
		i := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			break
		}
		if strings.ContainsRune(text[:i], '\n') && len(out) > 0 {
			out = append(out, word{})
			start = true
		}
		text = text[i:]
		j := strings.IndexFunc(text, unicode.IsSpace)
		if j < 0 {
			j = len(text)
		}
		f := text[:j]
		text = text[j:]
		// Sentence punctuation (closing quotes, brackets and emphasis after it allowed) or a
		// colon after the word makes the next word a sentence start: after a colon a sentence
		// often follows ("**Fruit tart**: Use a pre-made crust", "Step 2: Keep ...").
		closed := strings.TrimRight(f, "\"'”’)]*_")
		end := closed != "" && strings.ContainsAny(closed[len(closed)-1:], ".!?:")
		notWord := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
		w := strings.TrimFunc(f, notWord)
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
		lead := strings.IndexFunc(f, func(r rune) bool { return !notWord(r) })
		if lead != 0 {
			out = append(out, word{}) // "(Bob", "\"Bob", a lone mark: a boundary before
		}
		if headings[strings.ToLower(w)] && w == strings.ToUpper(w) {
			out = append(out, word{}) // a heading: a boundary, and the next word starts a sentence
			start = true
			continue
		}
		if w != "" {
			r, _ := utf8.DecodeRuneInString(w)
			capped := unicode.IsUpper(r) && utf8.RuneCountInString(w) > 1 && !contraction(w)
			out = append(out, word{text: w, start: start, capped: capped})
			start = false
		}
		last, _ := utf8.DecodeLastRuneInString(f)
		if end || notWord(last) && last != '\'' {
			out = append(out, word{}) // boundary
			if end {
				start = true
			}
		}
	}
	return out
}

// Names returns the entity names in text, in order of first appearance, without repeats
// (compared case-insensitively), at most MaxNames. It leaves out single capitalised words
// that start a sentence ("Storm warning: ..."), which are as often common nouns as names;
// Find reports those separately.
func Names(text string) []string {
	strong, _ := Find(text)
	return strong
}

// Find returns the names of Names (strong) and, separately, the single capitalised words
// that start a sentence (weak): a caller may link weak names to entities it already knows
// without creating new ones.
func Find(text string) (strong, weak []string) {
	ws := words(text)
	seen, weakSeen := map[string]bool{}, map[string]bool{}
	for i := 0; i < len(ws); {
		if !ws[i].capped {
			i++
			continue
		}
		// A run of capitalised words, possibly joined by connectors.
		j := i + 1
		for j < len(ws) {
			if ws[j].capped {
				j++
				continue
			}
			if connectors[strings.ToLower(ws[j].text)] && j+1 < len(ws) && ws[j+1].capped {
				j += 2
				continue
			}
			break
		}
		run := ws[i:j]
		// Leading and trailing function words ("The", "When") are not part of a name.
		for len(run) > 0 && notNames[strings.ToLower(run[0].text)] {
			run = run[1:]
		}
		for len(run) > 0 && (notNames[strings.ToLower(run[len(run)-1].text)] || calendar[strings.ToLower(run[len(run)-1].text)]) {
			run = run[:len(run)-1]
		}
		i = j
		if len(run) == 0 || len(run) > MaxNameWords {
			continue
		}
		parts := make([]string, len(run))
		for k, w := range run {
			parts[k] = w.text
		}
		name := strings.Join(parts, " ")
		if len(name) > MaxNameBytes {
			continue
		}
		key := strings.ToLower(name)
		if len(run) == 1 && run[0].start {
			if !seen[key] && !weakSeen[key] {
				weakSeen[key] = true
				weak = append(weak, name)
			}
			continue
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		strong = append(strong, name)
		if len(strong) == MaxNames {
			break
		}
	}
	// A word that starts one sentence and appears inside another is a name.
	kept := weak[:0]
	for _, w := range weak {
		if !seen[strings.ToLower(w)] {
			kept = append(kept, w)
		}
	}
	return strong, kept
}
