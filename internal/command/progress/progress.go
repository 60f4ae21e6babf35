// Package progress draws the progress of long work: a bar redrawn in place with rate and ETA
// on a terminal, plain lines (at most one per interval) otherwise, so logs stay readable.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar is one piece of work of a known total. Safe for concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	label    string
	total    int64
	bytes    bool
	start    time.Time
	last     time.Time
	done     int64
	every    time.Duration
	finished bool
	drawn    int64 // done at the last draw (-1: never drawn)
}

// New starts a bar on w for total units (bytes formats them as sizes). On a terminal it
// redraws every 100 ms; otherwise it prints a line every 5 seconds.
func New(w io.Writer, label string, total int64, bytes bool) *Bar {
	b := &Bar{w: w, label: label, total: total, bytes: bytes, start: time.Now(), every: 5 * time.Second, drawn: -1}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.tty, b.every = true, 100*time.Millisecond
	}
	return b
}

// Set records done units and redraws when due.
func (b *Bar) Set(done int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = done
	if time.Since(b.last) >= b.every {
		b.last = time.Now()
		b.draw()
	}
}

// Add records n more units.
func (b *Bar) Add(n int64) {
	b.mu.Lock()
	d := b.done + n
	b.mu.Unlock()
	b.Set(d)
}

// Finish draws the final state and ends the line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.drawn != b.done || b.tty {
		b.draw()
	}
	if b.tty {
		fmt.Fprintln(b.w)
	}
}

func (b *Bar) amount(n int64) string {
	if !b.bytes {
		return fmt.Sprint(n)
	}
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func (b *Bar) draw() {
	b.drawn = b.done
	el := time.Since(b.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(b.done) / el
	}
	pct := 100.0
	if b.total > 0 {
		pct = 100 * float64(b.done) / float64(b.total)
	}
	eta := "-"
	if rate > 0 && b.total > b.done {
		eta = (time.Duration(float64(b.total-b.done)/rate) * time.Second).Round(time.Second).String()
	}
	unit := "/s"
	rs := fmt.Sprintf("%.0f%s", rate, unit)
	if b.bytes {
		rs = b.amount(int64(rate)) + unit
	}
	line := fmt.Sprintf("%s %s/%s (%.0f%%) %s ETA %s", b.label, b.amount(b.done), b.amount(b.total), pct, rs, eta)
	if b.tty {
		const width = 24
		fill := int(pct / 100 * width)
		fill = min(max(fill, 0), width)
		fmt.Fprintf(b.w, "\r\033[K%s [%s%s] %s", b.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
			strings.TrimPrefix(line, b.label+" "))
		return
	}
	fmt.Fprintln(b.w, line)
}
