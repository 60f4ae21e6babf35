package write

// trigramPairs returns the pairs (names[i], others[j], not equal) whose trigram similarity,
// as pg_trgm measures it, may reach floor: the candidates the database then measures. For
// names of ASCII letters, digits and separators it counts pg_trgm's own trigrams (each run
// of letters and digits, lowered, padded with two spaces before and one after, its distinct
// three-letter windows; similarity = shared / (a + b - shared)), so a pair below floor is
// left out only when pg_trgm would leave it out too (floor is the threshold less a margin);
// a pair with any other character is always a candidate. The shared trigrams are counted
// through an index of the others' trigrams, so the work follows the pairs that share some.
func trigramPairs(names, others []string, floor float64) (a, b []string) {
	index := map[string][]int{} // trigram -> the others holding it
	size := make([]int, len(others))
	plain := make([]bool, len(others))
	for j, o := range others {
		g, ok := asciiTrigrams(o)
		size[j], plain[j] = len(g), ok
		for x := range g {
			index[x] = append(index[x], j)
		}
	}
	shared := make([]int, len(others))
	for _, n := range names {
		g, ok := asciiTrigrams(n)
		clear(shared)
		for x := range g {
			for _, j := range index[x] {
				shared[j]++
			}
		}
		for j, o := range others {
			if o == n {
				continue
			}
			s := float64(shared[j])
			if !ok || !plain[j] || s > 0 && s/(float64(len(g)+size[j])-s) >= floor {
				a, b = append(a, n), append(b, o)
			}
		}
	}
	return a, b
}

// asciiTrigrams is pg_trgm's trigram set of s, and whether s is ASCII (else the set is not
// pg_trgm's and the caller must not rely on it).
func asciiTrigrams(s string) (map[string]bool, bool) {
	out := map[string]bool{}
	word := make([]byte, 0, len(s))
	flush := func() {
		if len(word) == 0 {
			return
		}
		p := "  " + string(word) + " "
		for i := 0; i+3 <= len(p); i++ {
			out[p[i:i+3]] = true
		}
		word = word[:0]
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return out, false
		case c >= 'A' && c <= 'Z':
			word = append(word, c+'a'-'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			word = append(word, c)
		default:
			flush()
		}
	}
	flush()
	return out, true
}
