package records

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/recall-engine/recall/write"
)

// Load reads JSONL records of format from r (named name in errors), fills batches of at
// most batch memories (each a copy of proto with the rows added) and hands each to write,
// which stores it as one transaction. After each batch, progress (when not nil) gets the
// lines and bytes read so far and the sum of the results. A malformed line, or a batch the
// writer refuses, stops the load with a *LineError naming the line (for a refused batch,
// the line of the row the refusal names); the batches before it stay written. Input that
// cannot be read to its end stops the load with a *ReadError after the whole lines before
// the failed read are written (a line the read stopped in is not parsed). It returns
// the sum of the written batches' results and the count of non-blank lines read. The CLI's
// `recall ingest` and the HTTP API's POST /v1/ingest both load through it.
func Load(ctx context.Context, r io.Reader, name string, format Format, batch int, proto write.Batch,
	store func(context.Context, write.Batch) (write.Result, error), progress func(lines int, read int64, res write.Result)) (write.Result, int, error) {
	if batch <= 0 {
		batch = 500
	}
	br := bufio.NewReaderSize(r, 1<<20)
	var (
		p       pending
		seq     Sequencer
		read    int64
		lines   int
		total   write.Result
		last    int // the line of the last records added to p
		written int // the line of the last records written
	)
	flush := func() error {
		if p.empty() {
			return nil
		}
		b := proto
		b.Sources, b.Memories, b.Entities, b.Relations = p.b.Sources, p.b.Memories, p.b.Entities, p.b.Relations
		res, err := store(ctx, b)
		if err != nil {
			var we *write.Error
			if errors.As(err, &we) {
				return &LineError{File: name, Line: p.lineOf(we.Item), Problem: we.Field + ": " + we.Problem}
			}
			return err
		}
		total.Add(res)
		p, written = pending{}, last
		if progress != nil {
			progress(lines, read, total)
		}
		return nil
	}
	for line := 1; ; line++ {
		if err := ctx.Err(); err != nil {
			return total, lines, err
		}
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			// b is what came before the failure: perhaps a part of a line. The whole lines
			// before it are written, so the caller can resume after them.
			if ferr := flush(); ferr != nil {
				return total, lines, ferr
			}
			return total, lines, &ReadError{File: name, Line: line, Written: written, Err: err}
		}
		read += int64(len(b))
		if len(strings.TrimSpace(string(b))) > 0 {
			recs, perr := Parse(b, format, name, line, Options{})
			if perr != nil {
				return total, lines, perr
			}
			for _, rec := range recs {
				seq.Place(&rec)
				p.add(rec)
			}
			lines, last = lines+1, line
			if len(p.b.Memories) >= batch {
				if err := flush(); err != nil {
					return total, lines, err
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	return total, lines, flush()
}

// pending is a batch being filled, with the line of each row for error messages.
type pending struct {
	b                                   write.Batch
	srcLines, memLines, entLines, rLine []int
	srcAt                               map[string]int
}

func (p *pending) add(r Record) {
	switch {
	case r.Source != nil:
		if p.srcAt == nil {
			p.srcAt = map[string]int{}
		}
		if i, ok := p.srcAt[r.Source.ID]; ok { // the same source again (BEIR titles, turns): last wins
			p.b.Sources[i], p.srcLines[i] = *r.Source, r.Line
			return
		}
		p.srcAt[r.Source.ID] = len(p.b.Sources)
		p.b.Sources = append(p.b.Sources, *r.Source)
		p.srcLines = append(p.srcLines, r.Line)
	case r.Memory != nil:
		p.b.Memories = append(p.b.Memories, *r.Memory)
		p.memLines = append(p.memLines, r.Line)
	case r.Entity != nil:
		p.b.Entities = append(p.b.Entities, *r.Entity)
		p.entLines = append(p.entLines, r.Line)
	case r.Relation != nil:
		p.b.Relations = append(p.b.Relations, *r.Relation)
		p.rLine = append(p.rLine, r.Line)
	}
}

func (p *pending) empty() bool {
	return len(p.b.Sources)+len(p.b.Memories)+len(p.b.Entities)+len(p.b.Relations) == 0
}

// lineOf maps a write.Error's item ("memories[3]") back to its line.
func (p *pending) lineOf(item string) int {
	name, idx, ok := strings.Cut(strings.TrimSuffix(item, "]"), "[")
	if !ok {
		return 0
	}
	i, err := strconv.Atoi(idx)
	if err != nil {
		return 0
	}
	lines := map[string][]int{"sources": p.srcLines, "memories": p.memLines, "entities": p.entLines, "relations": p.rLine}[name]
	if i < 0 || i >= len(lines) {
		return 0
	}
	return lines[i]
}
