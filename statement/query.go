package statement

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// Query is one recall's input to the statement.
type Query struct {
	Text     string    // search text: BM25 (after the speaker rewrite)
	Raw      string    // the raw question: titles, entity mentions
	Vector   []float32 // query embedding; its length must equal the statement's dimension
	Mentions []string  // lowered entity mentions; nil: Mentions(Raw)
	// Window is the query's time window [Start, End); zero: no temporal lane input.
	WindowStart, WindowEnd time.Time
	Filters                Filters
	Now                    time.Time // for recency and expiry; zero: time.Now()
	// AsOf is the time the recall answers for: memories outside their validity or
	// superseded at it are left out (zero: Now).
	AsOf time.Time
	// GraphContext asks for each candidate's graph context (Candidate.GraphContext).
	GraphContext bool
	// KeepStale keeps the candidates that do not hold at AsOf (expired, superseded, outside
	// their validity), each with Candidate.Stale saying why, where the statement otherwise
	// leaves them out. Neighbours always hold.
	KeepStale bool
	// Expansion are words related to the question's (package lexicon), which the BM25 and
	// context lanes add to the question's terms at Settings.ExpansionWeight; none: the
	// question's terms alone.
	Expansion []string
	// DeferNames leaves the candidates' entity names out of the statement where the caller
	// can read them for the few it keeps (EntityNames): on a connection known to be one
	// server, each candidate then comes with NamesDeferred. Elsewhere (Citus, a first use
	// of a connection, a trace) the statement reads them as without it.
	DeferNames bool
}

// Mentions returns the lowered word n-grams (1 to 4 words) of s, the candidate entity
// mentions matched exactly against entity names and aliases, with possessives dropped
// ("Jon's" is "jon") and, after an n-gram ending in a plural, the n-gram with its singular
// ("the Smiths" also gives "smith", "dogs" "dog"). At most 256, in order of appearance.
func Mentions(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && r != '-' && r != '.' && r != '&'
	})
	for i, w := range words {
		w = strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"), "'’")
		words[i] = strings.Trim(w, "'’-.&")
	}
	seen := map[string]bool{}
	out := []string{}
	add := func(g string) bool {
		if g == "" || strings.HasPrefix(g, " ") || strings.HasSuffix(g, " ") || seen[g] {
			return false
		}
		seen[g] = true
		out = append(out, g)
		return len(out) == 256
	}
	for i := range words {
		for n := 1; n <= 4 && i+n <= len(words); n++ {
			g := strings.Join(words[i:i+n], " ")
			if add(g) {
				return out
			}
			if one := singular(words[i+n-1]); one != words[i+n-1] {
				if add(strings.Join(append(slices.Clone(words[i:i+n-1]), one), " ")) {
					return out
				}
			}
		}
	}
	return out
}

// singular strips an English plural's s from a word of four letters or more ("dogs",
// "parties"), leaving words that only end in s ("glass", "bus", "this") alone.
func singular(w string) string {
	switch {
	case len(w) < 4 || !strings.HasSuffix(w, "s"):
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	}
	return w[:len(w)-1]
}

// asOf is the time the recall's memories must hold at: AsOf, or Now when it is unset.
func (q Query) asOf() time.Time {
	if q.AsOf.IsZero() {
		return q.Now
	}
	return q.AsOf
}
