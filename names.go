package recall

import (
	"context"
	"fmt"
	"time"

	"github.com/recall-engine/recall/statement"
)

// fillNames reads the entity names of the packed items when the statement left them out
// (statement.Query.DeferNames: it does where it ran in one round trip on one server), from
// the server that ran it: a recall reads the names of the ten or so memories it packs, not
// of the hundred candidates. The read counts in the statement's time. A failure is a
// warning (an error in Strict mode): the items keep no names.
func (e *Engine) fillNames(ctx context.Context, r *run) error {
	if len(r.all) == 0 || !r.all[0].NamesDeferred || len(r.pack.Items) == 0 {
		return nil
	}
	t := time.Now()
	ids := make([]int64, len(r.pack.Items))
	for i, it := range r.pack.Items {
		ids[i] = it.ID
	}
	pool := statement.Beginner(e.cfg.Pool)
	if r.pack.ServedBy == ServedByReplica {
		pool = e.cfg.Replica
	}
	names, err := statement.EntityNames(ctx, pool, statement.Scopes{Read: r.req.who.read, Write: r.req.who.write}, ids)
	r.pack.Timings.Statement += time.Since(t)
	if err != nil {
		if ctx.Err() != nil || e.cfg.Strict {
			return fmt.Errorf("recall: entity names: %w", err)
		}
		r.warn("names", fmt.Errorf("the packed items carry no entity names: %w", err))
		return nil
	}
	for i := range r.pack.Items {
		r.pack.Items[i].Entities = names[r.pack.Items[i].ID]
	}
	return nil
}
