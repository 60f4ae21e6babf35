package statement

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// ErrDimension is returned by Args for a query vector of another dimension than the
// statement's.
var ErrDimension = errors.New("statement: query vector dimension differs from the statement's")

// Args returns the statement's binds for q and s, exactly the names st uses. s must be valid
// (Settings.Validate: the engine validates settings when they are set, not on every call).
func (st *Statement) Args(q Query, s Settings) (pgx.NamedArgs, error) {
	if err := q.Filters.Validate(); err != nil {
		return nil, err
	}
	if st.Shape.Dim > 0 && len(q.Vector) != st.Shape.Dim {
		return nil, fmt.Errorf("%w: %d, statement %d", ErrDimension, len(q.Vector), st.Shape.Dim)
	}
	all := s.binds()
	for k, v := range q.Filters.binds() {
		all[k] = v
	}
	if q.Filters.active() {
		// A filter may hide most of a term's best postings or an entity's newest memories:
		// read them all so the lanes are full.
		all["bm25_postings"] = nil
		all["bm25_whole"] = math.MaxInt32 // every posting is a candidate: read the lists once each
		all["mention_postings"] = nil
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	mentions := q.Mentions
	if mentions == nil {
		mentions = Mentions(q.Raw)
	}
	all["qtext"], all["qlower"], all["qentities"], all["now"] = q.Text, strings.ToLower(q.Raw), mentions, now
	all["t_start"], all["t_end"] = nullTime(q.WindowStart), nullTime(q.WindowEnd)
	all["as_of"] = now
	if !q.AsOf.IsZero() {
		all["as_of"] = q.AsOf
	}
	all["xtext"] = strings.Join(q.Expansion, " ")
	all["graph_context"] = q.GraphContext
	all["keep_stale"] = q.KeepStale
	all["entity_names"] = true // runPipelined defers them (Query.DeferNames)
	if st.Shape.Dim > 0 {
		all["qvec"] = pgvector.NewVector(q.Vector)
	}
	args := make(pgx.NamedArgs, len(st.Binds))
	for _, n := range st.Binds {
		v, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("statement: no value for bind @%s", n)
		}
		args[n] = v
	}
	return args, nil
}
