package records_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/write"
)

// stagedTurns is n turn lines "t1".."tn" of one conversation, with bad (if > 0) malformed.
func stagedTurns(n, bad int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i == bad {
			b.WriteString("{not json\n")
			continue
		}
		fmt.Fprintf(&b, `{"speaker": "Ana", "text": "t%d", "conversation": "c"}`+"\n", i)
	}
	return b.String()
}

// stagedLoad loads text in batches of two through a stage that records each batch's texts
// when prepared and when written, writes them one at a time (it fails the test if two
// writes overlap), and refuses the batch whose first text is refuse, naming its second row.
type stagedLoad struct {
	prepared, written [][]string
	progress          [][2]int // (lines, memories so far) at each progress call
	writing           atomic.Int32
	refuse            string
	// prepared2 is closed when the second batch is prepared; the first batch's write waits
	// for it, so a load that prepared only after writing would stop there.
	prepared2 chan struct{}
}

func (s *stagedLoad) run(t *testing.T, text string) (write.Result, int, error) {
	t.Helper()
	s.prepared2 = make(chan struct{})
	stage := func(_ context.Context, b write.Batch) (records.Commit, error) {
		texts := make([]string, len(b.Memories))
		for i, m := range b.Memories {
			texts[i] = m.Text
		}
		s.prepared = append(s.prepared, texts)
		if len(s.prepared) == 2 {
			close(s.prepared2)
		}
		return func(context.Context) (write.Result, error) {
			if s.writing.Add(1) != 1 {
				t.Errorf("two batches written at once")
			}
			defer s.writing.Add(-1)
			if len(s.written) == 0 && len(texts) == 2 {
				select {
				case <-s.prepared2:
				case <-time.After(10 * time.Second):
					t.Errorf("the second batch was not prepared while the first was written")
				}
			}
			if texts[0] == s.refuse {
				return write.Result{}, &write.Error{Item: "memories[1]", Field: "text", Problem: "refused"}
			}
			s.written = append(s.written, texts)
			return write.Result{Memories: len(texts)}, nil
		}, nil
	}
	return records.LoadStaged(context.Background(), strings.NewReader(text), "f", records.Turns, 2, write.Batch{}, stage,
		func(lines int, _ int64, res write.Result) {
			s.progress = append(s.progress, [2]int{lines, res.Memories})
		}, records.Resume{})
}

// TestLoadStaged: a staged load prepares each batch while the one before it is written,
// writes them in the file's order one at a time, reports each batch's progress once it is
// written, and stops as the plain load does: at a refused batch (its row's line, written
// through the batch before) or a malformed line (written through the batches before it,
// the one in flight landed first), the earlier failure reported when both come.
func TestLoadStaged(t *testing.T) {
	t.Parallel()
	t.Run("whole", func(t *testing.T) {
		var s stagedLoad
		res, lines, err := s.run(t, stagedTurns(5, 0))
		want := [][]string{{"t1", "t2"}, {"t3", "t4"}, {"t5"}}
		if err != nil || res.Memories != 5 || lines != 5 || !slices.EqualFunc(s.written, want, slices.Equal) {
			t.Fatalf("%v, %d memories, %d lines, written %q", err, res.Memories, lines, s.written)
		}
		if !slices.Equal(s.progress, [][2]int{{2, 2}, {4, 4}, {5, 5}}) {
			t.Errorf("progress %v, want each batch's lines and memories once it is written", s.progress)
		}
	})
	t.Run("refused", func(t *testing.T) {
		s := stagedLoad{refuse: "t3"}
		res, _, err := s.run(t, stagedTurns(7, 0))
		var le *records.LineError
		if !errors.As(err, &le) || le.Line != 4 || le.Written != 2 || !strings.Contains(le.Problem, "refused") {
			t.Fatalf("%v (%+v), want line 4 refused, written through line 2", err, le)
		}
		if res.Memories != 2 || !slices.EqualFunc(s.written, [][]string{{"t1", "t2"}}, slices.Equal) {
			t.Errorf("%d memories, written %q: want the first batch only", res.Memories, s.written)
		}
		if len(s.prepared) > 3 {
			t.Errorf("prepared %q: past the batch after the refused one", s.prepared)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		var s stagedLoad
		res, _, err := s.run(t, stagedTurns(7, 6))
		var le *records.LineError
		if !errors.As(err, &le) || le.Line != 6 || le.Written != 4 {
			t.Fatalf("%v (%+v), want line 6 malformed, written through line 4", err, le)
		}
		if res.Memories != 4 || !slices.EqualFunc(s.written, [][]string{{"t1", "t2"}, {"t3", "t4"}}, slices.Equal) {
			t.Errorf("%d memories, written %q: want the two batches before line 6", res.Memories, s.written)
		}
	})
	t.Run("refused before a malformed line", func(t *testing.T) {
		s := stagedLoad{refuse: "t3"}
		_, _, err := s.run(t, stagedTurns(7, 6))
		var le *records.LineError
		if !errors.As(err, &le) || le.Line != 4 || le.Written != 2 {
			t.Fatalf("%v (%+v), want the earlier failure: line 4 refused, written through line 2", err, le)
		}
	})
}
