package hf

import (
	"fmt"
	"math"

	"github.com/gomlx/go-huggingface/tokenizers/api"
)

// Batch is a padded batch of token ids for a BERT-style model: N rows of Seq tokens.
type Batch struct {
	N, Seq           int
	IDs, Types, Mask []int64
	cls, sep, pad    int
	roberta          bool
	rows, typeRows   [][]int64
}

// specials returns the ids of the classification, separator and padding tokens: BERT's
// [CLS] [SEP] [PAD], or RoBERTa's <s> </s> <pad>.
func (d *Dir) specials() (cls, sep, pad int, roberta bool, err error) {
	for _, set := range [][3]string{{"[CLS]", "[SEP]", "[PAD]"}, {"<s>", "</s>", "<pad>"}} {
		c, ok1 := d.tok.TokenToID(set[0])
		s, ok2 := d.tok.TokenToID(set[1])
		p, ok3 := d.tok.TokenToID(set[2])
		if ok1 && ok2 && ok3 {
			return c, s, p, set[0] == "<s>", nil
		}
	}
	return 0, 0, 0, false, &ModelError{Dir: d.Path, File: "tokenizer.json", Problem: "no [CLS]/[SEP]/[PAD] or <s>/</s>/<pad> tokens"}
}

func (d *Dir) ids(text string) []int64 {
	t := *d.tok
	_ = t.With(api.EncodeOptions{})
	raw := t.Encode(text)
	out := make([]int64, len(raw))
	for i, id := range raw {
		out[i] = int64(id)
	}
	return out
}

func (d *Dir) newBatch() (*Batch, error) {
	cls, sep, pad, roberta, err := d.specials()
	if err != nil {
		return nil, err
	}
	return &Batch{cls: cls, sep: sep, pad: pad, roberta: roberta}, nil
}

func (b *Batch) add(ids, types []int64) {
	b.rows = append(b.rows, ids)
	b.typeRows = append(b.typeRows, types)
	b.Seq = max(b.Seq, len(ids))
}

func (b *Batch) finish() {
	b.N = len(b.rows)
	b.IDs = make([]int64, b.N*b.Seq)
	b.Types = make([]int64, b.N*b.Seq)
	b.Mask = make([]int64, b.N*b.Seq)
	for i, r := range b.rows {
		for j := range b.Seq {
			k := i*b.Seq + j
			if j < len(r) {
				b.IDs[k], b.Types[k], b.Mask[k] = r[j], b.typeRows[i][j], 1
			} else {
				b.IDs[k] = int64(b.pad)
			}
		}
	}
	b.rows, b.typeRows = nil, nil
}

// Single encodes texts (already fitted to the model) as [CLS] text [SEP], padded.
func (d *Dir) Single(texts []string) (*Batch, error) {
	b, err := d.newBatch()
	if err != nil {
		return nil, err
	}
	for _, t := range texts {
		ids := append(append([]int64{int64(b.cls)}, d.ids(t)...), int64(b.sep))
		b.add(ids, make([]int64, len(ids)))
	}
	b.finish()
	return b, nil
}

// Pairs encodes (query, doc) pairs as [CLS] query [SEP] doc [SEP] with token types 0 then 1
// (RoBERTa: <s> query </s></s> doc </s>, types all 0), padded.
func (d *Dir) Pairs(query string, docs []string) (*Batch, error) {
	b, err := d.newBatch()
	if err != nil {
		return nil, err
	}
	q := d.ids(query)
	for _, doc := range docs {
		ids := append([]int64{int64(b.cls)}, q...)
		ids = append(ids, int64(b.sep))
		if b.roberta {
			ids = append(ids, int64(b.sep))
		}
		first := len(ids)
		ids = append(append(ids, d.ids(doc)...), int64(b.sep))
		types := make([]int64, len(ids))
		if !b.roberta {
			for j := first; j < len(types); j++ {
				types[j] = 1
			}
		}
		b.add(ids, types)
	}
	b.finish()
	return b, nil
}

// MeanPool averages token vectors over the attention mask and normalizes each to unit
// length: out is [N, Seq, hidden] row-major.
func (b *Batch) MeanPool(out []float32, hidden int) ([][]float32, error) {
	if len(out) != b.N*b.Seq*hidden {
		return nil, fmt.Errorf("output of %d floats for a [%d, %d, %d] batch", len(out), b.N, b.Seq, hidden)
	}
	res := make([][]float32, b.N)
	for i := range b.N {
		acc := make([]float64, hidden)
		n := 0
		for j := range b.Seq {
			if b.Mask[i*b.Seq+j] == 0 {
				continue
			}
			n++
			row := out[(i*b.Seq+j)*hidden : (i*b.Seq+j+1)*hidden]
			for h, x := range row {
				acc[h] += float64(x)
			}
		}
		v := make([]float32, hidden)
		var norm float64
		for h := range acc {
			acc[h] /= float64(max(n, 1))
			norm += acc[h] * acc[h]
		}
		norm = math.Sqrt(norm)
		for h := range acc {
			if norm > 0 {
				v[h] = float32(acc[h] / norm)
			}
		}
		res[i] = v
	}
	return res, nil
}

// Rows splits a [N, width] output into rows, each normalized to unit length.
func (b *Batch) Rows(out []float32, width int) ([][]float32, error) {
	if len(out) != b.N*width {
		return nil, fmt.Errorf("output of %d floats for a [%d, %d] batch", len(out), b.N, width)
	}
	res := make([][]float32, b.N)
	for i := range res {
		row := out[i*width : (i+1)*width]
		var norm float64
		for _, x := range row {
			norm += float64(x) * float64(x)
		}
		norm = math.Sqrt(norm)
		v := make([]float32, width)
		for h, x := range row {
			if norm > 0 {
				v[h] = float32(float64(x) / norm)
			}
		}
		res[i] = v
	}
	return res, nil
}
