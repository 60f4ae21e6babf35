// Package synth generates a deterministic synthetic corpus for benchmarks: memories whose
// words follow a Zipf law over a pseudo-word vocabulary mixed with topic words, embeddings
// clustered around topic centroids (so the HNSW index sees realistic neighbourhoods), sources
// with titles, people entities mentioned by name in the text, co-occurrence relations,
// occurred times over two years, tags, kinds, and two scopes: 99% of memories in "big", 1% in
// "small". The small scope is a tenant of its own size: its memories are grouped into its own
// sources PerSrc at a time and name people of its own set (SmallEntities), so a caller of it
// at N sees what the whole corpus of N/100 holds (memories, titles, people), not the big
// scope's titles and people copied beside it. The same Config always gives the same rows.
//
// Load writes as the schema owner with COPY (the owner is not subject to row security; the
// runtime role could not COPY into tables with row security), so 1M memories load in minutes.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Version changes whenever the generated data changes, so cached databases are rebuilt.
// Version 2: the small scope holds its own sources and people (version 1 copied every source
// and person into it, so its caller saw 50,000 titles and 10,000 people beside 10,000
// memories at 1M).
const Version = 2

// Scope names used by the corpus.
const (
	BigScope   = "big"
	SmallScope = "small"
)

// Config sizes the corpus. Zero fields take the defaults of Defaults.
type Config struct {
	N        int    // memories
	Seed     uint64 // PRNG seed
	Dim      int    // embedding dimension
	Vocab    int    // vocabulary size
	Topics   int    // topics (embedding clusters, topic words, entity groups)
	Entities int    // people; default max(200, N/100)
	PerSrc   int    // memories per source
	// Embed, when set, embeds the memory texts (Dim must be its dimension) in place of the
	// topic-clustered random vectors, so a real embedder's queries find them.
	Embed func(texts []string) ([][]float32, error)
}

// Defaults fills the zero fields of c.
func (c Config) Defaults() Config {
	if c.Seed == 0 {
		c.Seed = 42
	}
	if c.Dim == 0 {
		c.Dim = 384
	}
	if c.Vocab == 0 {
		c.Vocab = 30000
	}
	if c.Topics == 0 {
		c.Topics = 200
	}
	if c.Entities == 0 {
		c.Entities = max(200, c.N/100)
	}
	if c.PerSrc == 0 {
		c.PerSrc = 20
	}
	return c
}

// Base is the start of the occurred-time range (two years from it).
var Base = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

var kinds = []string{"world", "experience", "observation"}

// Corpus holds the generator's dictionaries; memories are produced on the fly from the seed.
type Corpus struct {
	Cfg       Config
	Words     []string    // by global frequency rank
	TopicWord [][]int     // per topic: its 40 characteristic words (indexes into Words)
	Centroids [][]float32 // per topic: unit vector
	People    []string    // entity names, "First Last"
	zipf      *rand.Zipf
	zr        *rand.Rand
}

// New builds the dictionaries for cfg (after Defaults).
func New(cfg Config) *Corpus {
	cfg = cfg.Defaults()
	r := rand.New(rand.NewPCG(cfg.Seed, 1))
	c := &Corpus{Cfg: cfg}
	seen := map[string]bool{}
	for len(c.Words) < cfg.Vocab {
		w := word(r, 2+r.IntN(3))
		if !seen[w] {
			seen[w] = true
			c.Words = append(c.Words, w)
		}
	}
	c.TopicWord = make([][]int, cfg.Topics)
	c.Centroids = make([][]float32, cfg.Topics)
	for t := range cfg.Topics {
		for range 40 {
			// Mid-frequency words characterise a topic, as in real text.
			c.TopicWord[t] = append(c.TopicWord[t], 200+r.IntN(cfg.Vocab-200))
		}
		c.Centroids[t] = gaussUnit(r, cfg.Dim)
	}
	for len(c.People) < cfg.Entities {
		n := capital(word(r, 2+r.IntN(2))) + " " + capital(word(r, 2+r.IntN(2)))
		if !seen[n] {
			seen[n] = true
			c.People = append(c.People, n)
		}
	}
	c.zr = rand.New(rand.NewPCG(cfg.Seed, 2))
	c.zipf = rand.NewZipf(c.zr, 1.07, 2, uint64(cfg.Vocab-1))
	return c
}

var syllables = strings.Fields(`ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu
ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo
za zo zu bar ber kin lor mar nel ran sel tor vin dal gor han mel per sun tal wen`)

func word(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	return b.String()
}

func capital(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func gaussUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return normalize(v)
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) / n)
	}
	return v
}

// near returns a unit vector around centroid: centroid + spread * gaussian noise per axis
// scaled to unit length overall.
func near(r *rand.Rand, centroid []float32, spread float64) []float32 {
	v := make([]float32, len(centroid))
	s := spread / math.Sqrt(float64(len(v)))
	for i := range v {
		v[i] = centroid[i] + float32(s*r.NormFloat64())
	}
	return normalize(v)
}

// Memory is one generated memory.
type Memory struct {
	ExternalID string
	Scopes     []string
	Source     int // index of its source
	Kind       string
	Text       string
	Embedding  []float32
	Start      time.Time
	End        *time.Time
	Tags       []string
	People     []int // indexes into Corpus.People
	Topic      int
}

func (c *Corpus) rng(kind, i uint64) *rand.Rand { return rand.New(rand.NewPCG(c.Cfg.Seed^kind, i)) }

// IsSmall reports whether memory i is in the small scope: one memory in a hundred.
func IsSmall(i int) bool { return i%100 == 99 }

// SmallIndex is memory i's place among the small scope's memories (IsSmall(i)).
func SmallIndex(i int) int { return i / 100 }

// Small is the number of memories in the small scope.
func (c *Corpus) Small() int { return c.Cfg.N / 100 }

// SmallSources is the number of the small scope's sources.
func (c *Corpus) SmallSources() int { return (c.Small() + c.Cfg.PerSrc - 1) / c.Cfg.PerSrc }

// SmallEntities is the size of the small scope's people: the first People, as many as the
// default Entities of a corpus of Small() memories (at most all of them).
func (c *Corpus) SmallEntities() int { return min(len(c.People), max(200, c.Small()/100)) }

// Topic returns the topic of memory i (memories of a source share it).
func (c *Corpus) Topic(i int) int { return (i / c.Cfg.PerSrc * 7919) % c.Cfg.Topics }

// Memory generates memory i (0 <= i < N); the same i always gives the same memory.
func (c *Corpus) Memory(i int) Memory {
	r := c.rng(3, uint64(i))
	t, source, people := c.Topic(i), i/c.Cfg.PerSrc, len(c.People)
	scope := BigScope
	if IsSmall(i) {
		// Memory k of the small scope is placed as memory k of a corpus of N/100: its
		// source, that source's topic, and people of the small scope's own set.
		k := SmallIndex(i)
		t, source, people, scope = c.Topic(k), k/c.Cfg.PerSrc, c.SmallEntities(), SmallScope
	}
	z := rand.NewZipf(r, 1.07, 2, uint64(c.Cfg.Vocab-1))
	n := 20 + r.IntN(60)
	words := make([]string, 0, n+8)
	for range n {
		if r.Float64() < 0.25 {
			tw := c.TopicWord[t]
			words = append(words, c.Words[tw[int(float64(len(tw))*r.Float64()*r.Float64())]])
		} else {
			words = append(words, c.Words[z.Uint64()])
		}
	}
	per := max(1, people/c.Cfg.Topics)
	m := Memory{
		ExternalID: fmt.Sprintf("m%d", i),
		Scopes:     []string{scope},
		Source:     source,
		Kind:       kinds[r.IntN(len(kinds))],
		Embedding:  near(r, c.Centroids[t], 0.9),
		Start:      Base.Add(time.Duration(r.Int64N(int64(2 * 365 * 24 * time.Hour)))).Truncate(time.Second),
		Topic:      t,
	}
	// One to three people of the topic (a few from anywhere), named in the text.
	for range 1 + r.IntN(3) {
		p := (t*per + int(float64(per)*r.Float64()*r.Float64())) % people
		if r.Float64() < 0.1 {
			p = r.IntN(people)
		}
		if !contains(m.People, p) {
			m.People = append(m.People, p)
			at := r.IntN(len(words) + 1)
			words = append(words[:at], append([]string{c.People[p]}, words[at:]...)...)
		}
	}
	m.Text = strings.Join(words, " ")
	if r.Float64() < 0.3 {
		e := m.Start.Add(time.Duration(1+r.IntN(72)) * time.Hour)
		m.End = &e
	}
	for range r.IntN(3) {
		tag := fmt.Sprintf("tag%d", r.IntN(20))
		if !containsS(m.Tags, tag) {
			m.Tags = append(m.Tags, tag)
		}
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	return m
}

// SourceTitle is the title of source s: a few words of its topic.
func (c *Corpus) SourceTitle(s int) string {
	r := c.rng(4, uint64(s))
	t := c.Topic(s * c.Cfg.PerSrc)
	ws := make([]string, 3+r.IntN(3))
	for i := range ws {
		ws[i] = c.Words[c.TopicWord[t][r.IntN(len(c.TopicWord[t]))]]
	}
	return strings.Join(ws, " ")
}

// Query is a generated question: words of a topic and a vector near its centroid.
type Query struct {
	Text   string
	Raw    string
	Vector []float32
	Person string
}

// Query generates query i for a caller of the big scope: two topic words and two common
// words, a person of the topic, and a vector near the topic's centroid.
func (c *Corpus) Query(i int) Query { return c.QueryIn(BigScope, i) }

// QueryIn is query i for a caller of scope: the same words and vector in either scope, the
// person one of that scope's people.
func (c *Corpus) QueryIn(scope string, i int) Query {
	people := len(c.People)
	if scope == SmallScope {
		people = c.SmallEntities()
	}
	r := c.rng(5, uint64(i))
	t := r.IntN(c.Cfg.Topics)
	tw := c.TopicWord[t]
	words := []string{
		c.Words[tw[r.IntN(len(tw))]], c.Words[tw[r.IntN(len(tw))]],
		c.Words[2+r.IntN(200)], c.Words[200+r.IntN(2000)],
	}
	per := max(1, people/c.Cfg.Topics)
	p := c.People[(t*per+r.IntN(per))%people]
	text := strings.Join(words, " ")
	return Query{Text: text, Raw: "what did " + p + " say about " + text, Vector: near(r, c.Centroids[t], 0.9), Person: p}
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func containsS(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
