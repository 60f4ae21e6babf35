package recall

import (
	"errors"
	"fmt"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/statement"
)

// InputError is bad input to Recall or Trace: Field names the input ("query", "budget",
// "user.read_scopes[1]"), Problem says what is wrong, and Limit is the limit it breaks (0
// when the problem is not a limit).
type InputError struct {
	Field   string
	Problem string
	Limit   int
}

func (e *InputError) Error() string {
	if e.Limit > 0 {
		return fmt.Sprintf("recall: %s: %s (limit %d)", e.Field, e.Problem, e.Limit)
	}
	return fmt.Sprintf("recall: %s: %s", e.Field, e.Problem)
}

// DimensionError is returned when the embedder's dimension differs from every dimension the
// database stores embeddings in (statement.DimensionError).
type DimensionError = statement.DimensionError

// ErrTimeout is wrapped by a call the server stopped at its statement timeout
// (Settings.Timeout); ErrReadOnly by a write to a read-only database (a standby, or one
// set read-only); ErrUnavailable by a call whose connection was lost or refused (the
// server restarting, a backend terminated: retry in a moment; a write that failed so
// committed nothing). A call whose context ended wraps the context's error instead
// (context.DeadlineExceeded, context.Canceled), whatever the server answered.
var (
	ErrTimeout     = dberr.ErrTimeout
	ErrReadOnly    = dberr.ErrReadOnly
	ErrUnavailable = dberr.ErrUnavailable
)

// ErrManySets is returned on a Citus cluster whose tables are distributed by a recall of a
// caller who sees several scope sets when the engine reads through the coordinator only
// (Config.RoutedReads): the routed statement is of one set. Otherwise the engine reads them on
// their workers, in rounds when they are on several (docs/SCALING.md). Browse and a memory's
// detail read each of the caller's sets on its shard and merge them either way.
var ErrManySets = statement.ErrManySets

// Sentinel errors of the stages, returned (wrapped) in Strict mode and reported as warnings
// otherwise.
var (
	ErrEmbed  = errors.New("recall: embedding the query failed")
	ErrRerank = errors.New("recall: reranking failed")
	ErrAccess = errors.New("recall: recording access failed")
)
