package synth

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestDeterministic: the same configuration gives the same memories and queries; different
// seeds give different ones; every memory names its people and has a unit embedding.
func TestDeterministic(t *testing.T) {
	a, b := New(Config{N: 1000}), New(Config{N: 1000})
	c := New(Config{N: 1000, Seed: 7})
	for _, i := range []int{0, 1, 99, 500, 999} {
		ma, mb := a.Memory(i), b.Memory(i)
		if !reflect.DeepEqual(ma, mb) {
			t.Fatalf("memory %d differs between two generators of the same config", i)
		}
		if reflect.DeepEqual(ma.Text, c.Memory(i).Text) {
			t.Fatalf("memory %d is the same under another seed", i)
		}
		for _, p := range ma.People {
			if !strings.Contains(ma.Text, a.People[p]) {
				t.Fatalf("memory %d mentions %q without naming it", i, a.People[p])
			}
		}
		var n float64
		for _, x := range ma.Embedding {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Fatalf("memory %d: embedding norm² %v", i, n)
		}
		if !reflect.DeepEqual(a.Query(i), b.Query(i)) {
			t.Fatalf("query %d differs", i)
		}
	}
	if got := a.Memory(99).Scopes[0]; got != SmallScope {
		t.Fatalf("memory 99 in %q, want the small scope", got)
	}
}

// TestZipf: word frequencies fall with rank roughly as a power law: the most common word is
// far more frequent than the 100th, which is more frequent than the 1000th.
func TestZipf(t *testing.T) {
	c := New(Config{N: 2000})
	count := map[string]int{}
	for i := range 2000 {
		for _, w := range strings.Fields(c.Memory(i).Text) {
			count[w]++
		}
	}
	f := func(rank int) int { return count[c.Words[rank]] }
	if f(2) <= 5*f(100) || f(100) <= 2*f(1000) {
		t.Fatalf("frequencies by rank: 2:%d 100:%d 1000:%d", f(2), f(100), f(1000))
	}
}

// TestSmallScopeIsItsOwnCorpus: the small scope's memory k has the source, the topic and the
// people of memory k of a corpus of N/100, so its caller at N sees that corpus's shape.
func TestSmallScopeIsItsOwnCorpus(t *testing.T) {
	c := New(Config{N: 100000})
	one := New(Config{N: 1000})
	if c.SmallEntities() != len(one.People) || !reflect.DeepEqual(c.People[:c.SmallEntities()], one.People) {
		t.Fatalf("small people: %d, want the %d of the corpus of 1,000", c.SmallEntities(), len(one.People))
	}
	seen := map[int]bool{}
	for i := 99; i < c.Cfg.N; i += 100 {
		m, k := c.Memory(i), SmallIndex(i)
		if m.Scopes[0] != SmallScope {
			t.Fatalf("memory %d in %v", i, m.Scopes)
		}
		if m.Source != k/c.Cfg.PerSrc || m.Topic != one.Topic(k) {
			t.Fatalf("small memory %d: source %d topic %d, want %d and %d", k, m.Source, m.Topic, k/c.Cfg.PerSrc, one.Topic(k))
		}
		for _, p := range m.People {
			if p >= c.SmallEntities() {
				t.Fatalf("small memory %d names person %d of %d", k, p, c.SmallEntities())
			}
		}
		seen[m.Source] = true
	}
	if len(seen) != c.SmallSources() || c.SmallSources() != 50 {
		t.Fatalf("small memories in %d sources, SmallSources %d, want 50", len(seen), c.SmallSources())
	}
	for i := range 50 {
		q := c.QueryIn(SmallScope, i)
		if !slices.Contains(c.People[:c.SmallEntities()], q.Person) {
			t.Fatalf("small query %d asks of %q, not a small person", i, q.Person)
		}
		if b := c.Query(i); b.Text != q.Text || !reflect.DeepEqual(b.Vector, q.Vector) {
			t.Fatalf("query %d: words or vector differ between scopes", i)
		}
	}
}
