package embed

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

// Hashing is the built-in embedder: signed feature hashing of word unigrams, word bigrams
// and character n-grams, with sublinear term weights, into Dim - 1 buckets, L2-normalized. It
// needs no model file and no network, is deterministic, and costs microseconds per text.
// Cosine similarity between two of its vectors approximates a weighted overlap of words and
// word pieces, so it finds passages that share (possibly inflected) words with the query.
//
// A document's vector has one more component, the pivot (a query's has 0 there): cosine
// similarity then divides by sqrt(|d|^2 + pivot^2) instead of |d|, so a short text no longer
// wins by being short. Plain cosine favoured short texts: on LoCoMo its top ten averaged 18.9
// words against 39.2 for the evidence, 33.4 with the pivot (exact search; eval/results/README.md).
type Hashing struct {
	idf    map[string]float64 // feature -> inverse document frequency; nil: all 1
	maxIDF float64            // the weight of a feature the fitted corpus never had
	scale  float64            // the mean feature weight of a fitted corpus (1 unfitted), the pivot's unit
	dim    int
	bigram float64 // weight of word bigrams
	chars  float64 // weight of a word's character n-grams, in total
	pivot  float64 // a document vector's last component before normalizing
}

// DefaultHashingPivot is the document pivot, in feature weight units, between the mean norm of
// a conversation turn's features (15 on LoCoMo) and an abstract's (42 on SciFact). Exact
// search, R@10 without and with it: LoCoMo 0.4197 and 0.5865, SciFact test 0.5886 and 0.6002.
const DefaultHashingPivot = 20

// DefaultHashingDim is the built-in embedder's default dimension. Collisions cost quality
// (nDCG@10 on SciFact test, exact search: 0.32 at 384, 0.47 at 1024, 0.51 at 1536).
const DefaultHashingDim = 1024

// NewHashing returns the built-in embedder with dim buckets (0: DefaultHashingDim).
func NewHashing(dim int) (*Hashing, error) {
	if dim == 0 {
		dim = DefaultHashingDim
	}
	if dim < 16 || dim > 2000 {
		return nil, fmt.Errorf("embed: hashing dimension %d: want 16..2000 (the vector index's limit)", dim)
	}
	return &Hashing{dim: dim, bigram: 0.3, chars: 0.3, pivot: DefaultHashingPivot, scale: 1}, nil
}

// WithPivot returns a copy of h with document pivot p (0: plain cosine), for comparison.
func (h *Hashing) WithPivot(p float64) *Hashing {
	c := *h
	c.pivot = p
	return &c
}

// Dim implements Embedder.
func (h *Hashing) Dim() int { return h.dim }

// Name implements Embedder.
func (h *Hashing) Name() string {
	if h.pivot != DefaultHashingPivot {
		return fmt.Sprintf("hashing-v2-%d-pivot%g", h.dim, h.pivot)
	}
	return fmt.Sprintf("hashing-v2-%d", h.dim)
}

// Embed implements Embedder. A Document's vector carries the pivot, a Query's does not.
func (h *Hashing) Embed(ctx context.Context, texts []string, mode Mode) ([][]float32, error) {
	if err := CheckTexts(texts); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.embed(t, mode)
	}
	return out, nil
}

func (h *Hashing) embed(text string, mode Mode) []float32 {
	v := h.features(text)
	if mode == Document {
		v[h.dim-1] = float32(h.pivot * h.scale)
	}
	return Normalize(v)
}

// features is the text's hashed feature vector before normalization; its last component is
// left 0 for the pivot.
func (h *Hashing) features(text string) []float32 {
	words := Words(text)
	feats := map[string]float64{}
	for i, w := range words {
		feats["w:"+w]++
		if i > 0 {
			feats["b:"+words[i-1]+" "+w] += h.bigram
		}
		grams := charGrams(w)
		for _, g := range grams {
			feats["c:"+g] += h.chars / float64(len(grams))
		}
	}
	// Accumulate in a fixed order: float sums depend on it, and vectors must be reproducible.
	keys := make([]string, 0, len(feats))
	for f := range feats {
		keys = append(keys, f)
	}
	sort.Strings(keys)
	v := make([]float32, h.dim)
	for _, f := range keys {
		tf := feats[f]
		x := fnv64(f)
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		w := 1 + math.Log1p(tf) // sublinear: 1 + ln(1 + tf)
		if h.idf != nil {
			idf, ok := h.idf[f]
			if !ok {
				idf = h.maxIDF
			}
			w *= idf
		}
		v[x%uint64(h.dim-1)] += sign * float32(w)
	}
	if len(feats) == 0 {
		// Only stop words or symbols: hash the raw text so the vector is still unit length.
		v[fnv64("raw:"+strings.ToLower(text))%uint64(h.dim-1)] = 1
	}
	return v
}

// charGrams returns the 3- to 5-grams of "<w>" (word boundaries marked); words of three
// letters or fewer give none (the word feature covers them).
func charGrams(w string) []string {
	r := []rune("<" + w + ">")
	if len(r) <= 5 {
		return nil
	}
	var out []string
	for n := 3; n <= 5; n++ {
		for i := 0; i+n <= len(r); i++ {
			out = append(out, string(r[i:i+n]))
		}
	}
	return out
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	// Finalize (splitmix64) so the low bits, used for the bucket, mix every input byte.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// Words returns the lowered, lightly stemmed words of text without English stop words.
func Words(text string) []string {
	raw := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := raw[:0]
	for _, w := range raw {
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips a few English inflections (plurals, -ing, -ed, -ly) from words long enough
// to keep a stem of three letters; it is not Porter's algorithm, only enough to match
// "cells" with "cell" and "treated" with "treat".
func stem(w string) string {
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		return w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		return w[:n-2]
	case n > 4 && strings.HasSuffix(w, "ly"):
		return w[:n-2]
	case n > 4 && strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "ses"):
		return w[:n-1]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
	before being below between both but by can could did do does doing down during each few for from further
	had has have having he her here hers herself him himself his how i if in into is it its itself just me
	more most my myself no nor not now of off on once only or other our ours ourselves out over own same she
	should so some such than that the their theirs them themselves then there these they this those through
	to too under until up very was we were what when where which while who whom why will with would you your
	yours yourself yourselves also may might must shall than thus via whether`) {
		m[w] = true
	}
	return m
}()

// Fit returns a copy of h that weights every feature by its inverse document frequency in
// docs: ln(1 + N / df).
func (h *Hashing) Fit(docs []string) *Hashing {
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		words := Words(d)
		for i, w := range words {
			seen["w:"+w] = true
			if i > 0 {
				seen["b:"+words[i-1]+" "+w] = true
			}
			for _, g := range charGrams(w) {
				seen["c:"+g] = true
			}
		}
		for f := range seen {
			df[f]++
		}
	}
	c := *h
	c.idf = make(map[string]float64, len(df))
	n := float64(len(docs))
	for f, k := range df {
		c.idf[f] = math.Log(1 + n/float64(k))
	}
	c.maxIDF = math.Log(1 + n)
	var sum float64
	for _, v := range c.idf {
		sum += v
	}
	c.scale = sum / float64(max(1, len(c.idf)))
	return &c
}
