package records

import (
	"context"

	"github.com/recall-engine/recall/write"
)

// A Flight is at most one write in flight while the caller prepares the next batch
// (LoadStaged; a load that makes its own batches, as aizk-eval's). The caller notes what it
// needs of the batch in flight as its tag. The zero value holds none.
type Flight[T any] struct {
	tag  T
	done chan struct{}
	res  write.Result
	err  error
}

// Start writes with commit in the background, noting tag. The write in flight before it must
// have landed (Land).
func (f *Flight[T]) Start(ctx context.Context, commit Commit, tag T) {
	done := make(chan struct{})
	f.tag, f.done = tag, done
	go func() {
		defer close(done)
		f.res, f.err = commit(ctx)
	}()
}

// Land waits for the write in flight and returns its tag and what it returned; ok is false
// when none was in flight.
func (f *Flight[T]) Land() (tag T, res write.Result, ok bool, err error) {
	if f.done == nil {
		return tag, res, false, nil
	}
	<-f.done
	f.done = nil
	return f.tag, f.res, true, f.err
}
