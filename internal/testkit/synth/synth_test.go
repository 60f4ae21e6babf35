package synth

import (
	"math"
	"reflect"
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
