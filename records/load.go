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
// which stores it as one transaction (a batch also ends at ten times batch rows of other
// kinds). A file that opens with an export header (recall export) is restored as exported
// (write.Batch.AsExported), and must end with the export's end record, whose counts it
// checks. After each batch, progress (when not nil) gets the lines and bytes read so far and
// the sum of the results. A malformed line, or a batch the writer refuses, stops the load
// with a *LineError naming the line (for a refused batch, the line of the row the refusal
// names); the batches before it stay written. Input that cannot be read to its end stops the
// load with a *ReadError after the whole lines before the failed read are written (a line
// the read stopped in is not parsed). It returns the sum of the written batches' results and
// the count of non-blank lines written. The CLI's `recall ingest` and the HTTP API's POST
// /v1/ingest both load through it.
func Load(ctx context.Context, r io.Reader, name string, format Format, batch int, proto write.Batch,
	store func(context.Context, write.Batch) (write.Result, error), progress func(lines int, read int64, res write.Result)) (write.Result, int, error) {
	return LoadFrom(ctx, r, name, format, batch, proto, store, progress, Resume{})
}

// Resume continues a load that stopped at a line (a ReadError's Written + 1, or the line of a
// LineError once it is fixed), so that what it writes is what the whole load would have:
// the same ids ("<conversation>:<line>" for a turn without one) and the same places.
type Resume struct {
	// From is the first line to write (0 or 1: the whole input).
	From int
	// Rest says the input is the rest of the file, its first line line From (a body sent
	// again from there): lines are numbered from From, and an ordered memory without a place
	// takes the places after the greatest one stored in its source, which Places tells. An
	// export is not resumed so: its header would be missing (resume it whole, without Rest).
	// Without Rest, the input is the whole file, and the lines before From are read only to
	// number ids and places.
	Rest   bool
	Places func(ctx context.Context, sources []string) (map[string]int, error)
}

// LoadFrom is Load resumed at from.
func LoadFrom(ctx context.Context, r io.Reader, name string, format Format, batch int, proto write.Batch,
	store func(context.Context, write.Batch) (write.Result, error), progress func(lines int, read int64, res write.Result), from Resume) (write.Result, int, error) {
	stage := func(_ context.Context, b write.Batch) (Commit, error) {
		return func(ctx context.Context) (write.Result, error) { return store(ctx, b) }, nil
	}
	return LoadStaged(ctx, r, name, format, batch, proto, stage, progress, from)
}

// Stage prepares a batch to be written (checks it, embeds its texts: Engine.Prepare) and
// returns what writes it; a refused batch is a *write.Error.
type Stage func(context.Context, write.Batch) (Commit, error)

// Commit writes a prepared batch as one transaction.
type Commit func(context.Context) (write.Result, error)

// LoadStaged is LoadFrom with the writing in two stages: each batch is prepared while the
// one before it is written (one batch in flight at a time, written in the file's order), so
// that the work in Go (reading lines, embedding) and the server's overlap. What it writes,
// reports and returns is what LoadFrom would: a batch's progress comes once it is written,
// a failure stops the load once the batch before it is written, and of a refused batch and
// a malformed line after it, the earlier is reported.
func LoadStaged(ctx context.Context, r io.Reader, name string, format Format, batch int, proto write.Batch,
	stage Stage, progress func(lines int, read int64, res write.Result), from Resume) (res write.Result, lines int, err error) {
	l := loader{name: name, proto: proto, stage: stage, progress: progress, from: from, seeded: map[string]bool{}}
	defer func() {
		// Whatever stopped the load, the batch in flight lands (or fails) first: its error
		// is the earlier one.
		if ferr := l.land(); ferr != nil {
			err = ferr
		}
		res, lines = l.total, l.lines
		var le *LineError
		if errors.As(err, &le) {
			le.Written = l.written
		}
	}()
	if batch <= 0 {
		batch = 500
	}
	br := bufio.NewReaderSize(r, 1<<20)
	first := 1
	if from.rest() {
		first = from.Line()
	}
	for line := first; ; line++ {
		if err := ctx.Err(); err != nil {
			return l.total, l.lines, err
		}
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			// b is what came before the failure: perhaps a part of a line. The whole lines
			// before it are written, so the caller can resume after them.
			if ferr := l.flush(ctx); ferr != nil {
				return l.total, l.lines, ferr
			}
			if ferr := l.land(); ferr != nil {
				return l.total, l.lines, ferr
			}
			return l.total, l.lines, &ReadError{File: name, Line: line, Written: l.written, Err: err}
		}
		l.read += int64(len(b))
		if len(strings.TrimSpace(string(b))) > 0 {
			if err := l.line(ctx, b, format, line); err != nil {
				return l.total, l.lines, err
			}
			if len(l.p.b.Memories) >= batch || l.p.rows() >= 10*batch {
				if err := l.flush(ctx); err != nil {
					return l.total, l.lines, err
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	if err := l.flush(ctx); err != nil {
		return l.total, l.lines, err
	}
	if err := l.land(); err != nil {
		return l.total, l.lines, err
	}
	if problem := l.ex.cut(); problem != "" {
		return l.total, l.lines, &LineError{File: name, Line: l.last, Problem: problem}
	}
	return l.total, l.lines, nil
}

// Line is the first line a resumed load writes.
func (r Resume) Line() int { return max(r.From, 1) }

// rest says the input starts past the file's first line (Rest with From past 1).
func (r Resume) rest() bool { return r.Rest && r.From > 1 }

// loader is one load's state: the batch being filled, the places given, what was written.
type loader struct {
	name     string
	proto    write.Batch
	stage    Stage
	progress func(lines int, read int64, res write.Result)
	from     Resume
	seeded   map[string]bool // sources whose stored places were asked (Resume.Rest)
	any      bool            // a line was read

	p       pending
	flight  Flight[inFlight] // the batch being written
	seq     Sequencer
	ex      exportState
	read    int64
	lines   int // non-blank lines written
	total   write.Result
	last    int // the line of the last records added to p
	written int // the line of the last records written
}

// line reads one non-blank line: its records go to the batch, or, before the line a resume
// starts at, only to the numbering of places and the export's framing.
func (l *loader) line(ctx context.Context, b []byte, format Format, line int) error {
	recs, err := Parse(b, format, l.name, line, Options{})
	if err != nil {
		return err
	}
	skip := !l.from.Rest && line < l.from.Line()
	defer func() { l.any = true }()
	for _, rec := range recs {
		if rec.Header != nil && (l.any || l.from.rest()) {
			return &LineError{File: l.name, Line: line, Problem: "an export header after other records: it must open the file (an export resumes from the whole file)"}
		}
		if problem := l.ex.read(rec); problem != "" {
			return &LineError{File: l.name, Line: line, Problem: problem}
		}
		l.proto.AsExported = l.proto.AsExported || rec.Header != nil
		if err := l.seed(ctx, rec); err != nil {
			return err
		}
		l.seq.Place(&rec)
		if !skip {
			l.p.add(rec)
		}
	}
	if skip {
		l.written = line // written by the load this one resumes
		return nil
	}
	l.lines, l.last = l.lines+1, line
	return nil
}

// seed gives the Sequencer, on a resume of the rest of a file, the greatest place stored in
// the source of an ordered memory without one, the first time the source comes.
func (l *loader) seed(ctx context.Context, rec Record) error {
	if !l.from.rest() || l.from.Places == nil || rec.Memory == nil || !rec.Ordered ||
		rec.Memory.Position != 0 || rec.Memory.Source == "" || l.seeded[rec.Memory.Source] {
		return nil
	}
	src := rec.Memory.Source
	l.seeded[src] = true
	got, err := l.from.Places(ctx, []string{src})
	if err != nil {
		return err
	}
	l.seq.Seed(src, got[src])
	return nil
}

// inFlight is what the loader notes of a batch being written: its rows' lines, the line of
// its last records, and the lines and bytes read through it.
type inFlight struct {
	p           pending
	last, lines int
	read        int64
}

// flush prepares the batch being filled, waits for the one in flight to land, and starts
// writing this one.
func (l *loader) flush(ctx context.Context) error {
	if l.p.empty() {
		return nil
	}
	b := l.proto
	b.Sources, b.Memories, b.Entities, b.Relations = l.p.b.Sources, l.p.b.Memories, l.p.b.Entities, l.p.b.Relations
	commit, err := l.stage(ctx, b)
	if lerr := l.land(); lerr != nil {
		return lerr
	}
	if err != nil {
		return refused(l.name, l.p, err)
	}
	l.flight.Start(ctx, commit, inFlight{p: l.p, last: l.last, lines: l.lines, read: l.read})
	l.p = pending{}
	return nil
}

// land waits for the batch in flight, if any, and takes in what it wrote.
func (l *loader) land() error {
	f, res, ok, err := l.flight.Land()
	if !ok {
		return nil
	}
	if err != nil {
		return refused(l.name, f.p, err)
	}
	l.total.Add(res)
	l.written = f.last
	if l.progress != nil {
		l.progress(f.lines, f.read, l.total)
	}
	return nil
}

// refused is err of a batch of p: a refused row as a *LineError naming its line.
func refused(name string, p pending, err error) error {
	var we *write.Error
	if errors.As(err, &we) {
		return &LineError{File: name, Line: p.lineOf(we.Item), Problem: we.Field + ": " + we.Problem}
	}
	return err
}

// rows counts the batch's rows other than memories, which may come many to a memory
// (an export's relations).
func (p *pending) rows() int {
	return len(p.b.Sources) + len(p.b.Entities) + len(p.b.Relations)
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
