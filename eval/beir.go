package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/recall-engine/recall/records"
)

// Doc is one corpus document of a BEIR dataset (records.Doc maps it to a write batch's rows).
type Doc = records.Doc

// Dataset is a BEIR-format directory: corpus.jsonl, queries.jsonl, qrels/<split>.tsv.
type Dataset struct {
	Corpus    []Doc
	Queries   map[string]string         // id -> text
	QueryMeta map[string]map[string]any // id -> metadata
	Qrels     map[string]Qrels          // query id -> judgments
	// Parent maps each document to the one it was cut from (Messages); nil when none was.
	Parent map[string]string
}

// LoadBEIR reads dir with the qrels of split ("test", "train"). Errors name the file and line.
func LoadBEIR(dir, split string) (*Dataset, error) {
	d := &Dataset{Queries: map[string]string{}, QueryMeta: map[string]map[string]any{}, Qrels: map[string]Qrels{}}
	if err := eachLine(filepath.Join(dir, "corpus.jsonl"), func(line int, b []byte) error {
		var doc Doc
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		if doc.ID == "" {
			return fmt.Errorf("no _id")
		}
		d.Corpus = append(d.Corpus, doc)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := eachLine(filepath.Join(dir, "queries.jsonl"), func(line int, b []byte) error {
		var q Doc
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		d.Queries[q.ID] = q.Text
		d.QueryMeta[q.ID] = q.Metadata
		return nil
	}); err != nil {
		return nil, err
	}
	if err := eachLine(filepath.Join(dir, "qrels", split+".tsv"), func(line int, b []byte) error {
		f := strings.Split(string(b), "\t")
		if len(f) != 3 {
			return fmt.Errorf("want 3 tab-separated fields, got %d", len(f))
		}
		if line == 1 && f[2] == "score" {
			return nil // header
		}
		g, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil {
			return fmt.Errorf("score %q: %w", f[2], err)
		}
		if d.Qrels[f[0]] == nil {
			d.Qrels[f[0]] = Qrels{}
		}
		d.Qrels[f[0]][f[1]] = g
		return nil
	}); err != nil {
		return nil, err
	}
	return d, nil
}

func eachLine(path string, fn func(line int, b []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close() //nolint:errcheck // read-only file
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for s.Scan() {
		n++
		if len(strings.TrimSpace(s.Text())) == 0 {
			continue
		}
		if err := fn(n, s.Bytes()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", path, n+1, err)
	}
	return nil
}

// Judged returns the queries that have judgments, sorted by id (numerically when ids are
// numbers), with their metadata.
func (d *Dataset) Judged() []Query {
	var out []Query
	for id := range d.Qrels {
		if text, ok := d.Queries[id]; ok {
			out = append(out, Query{ID: id, Text: text, Meta: d.QueryMeta[id]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, ea := strconv.Atoi(out[i].ID)
		b, eb := strconv.Atoi(out[j].ID)
		if ea == nil && eb == nil {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out
}
