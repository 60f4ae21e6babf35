package recall

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestUntilDone: a read whose cancel takes long to finish (here, a read that ignores its
// context for a second) is answered at the caller's deadline with the context's error, while
// the read goes on in the background; a read that finishes first gives its result.
func TestUntilDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var finished atomic.Bool
	release := make(chan struct{})
	_, err := untilDone(ctx, func() (int, error) {
		<-release // the cancel's round trip, as long as the test likes
		finished.Store(true)
		return 1, nil
	})
	if !errors.Is(err, context.DeadlineExceeded) || finished.Load() {
		t.Fatalf("err %v, read finished %v: want the deadline before the read finished", err, finished.Load())
	}
	close(release)
	v, err := untilDone(context.Background(), func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("a read without a deadline: %d, %v", v, err)
	}
	quick, cancel2 := context.WithTimeout(context.Background(), time.Minute)
	defer cancel2()
	v, err = untilDone(quick, func() (int, error) { return 8, errors.New("boom") })
	if v != 8 || err == nil || err.Error() != "boom" {
		t.Fatalf("a read that fails first: %d, %v", v, err)
	}
}
