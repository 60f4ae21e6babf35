package recall

import (
	"context"

	"github.com/recall-engine/recall/statement"
)

// Explain is where the statement of one recall spends its time: the profile Postgres gives
// of it (statement.Profile, per WITH query and probe, each with its lane), the statement's
// shape, and what came before it ran (the embedding and the entity probe of the question).
type Explain struct {
	Query   string
	Shape   statement.Shape
	Profile statement.Profile
	Timings Timings // Embed and Entities: what the recall does before its statement
}

// Explain runs the statement a recall of query by user would run, under EXPLAIN ANALYZE, as
// the caller, and returns its profile; it orders, packs and records nothing. opts may be nil
// (its pack options do not change the statement).
func (e *Engine) Explain(ctx context.Context, user User, query string, opts *Options) (*Explain, error) {
	if opts == nil {
		opts = &Options{}
	}
	r := &run{pack: &Pack{Query: query, Budget: DefaultBudget}}
	if err := e.prepare(ctx, r, user, query, DefaultBudget, opts); err != nil {
		return nil, err
	}
	who := statement.Scopes{Read: r.req.who.read, Write: r.req.who.write}
	p, err := statement.RunProfile(ctx, e.cfg.Pool, who, r.req.st, r.req.q, r.req.settings)
	if err != nil {
		return nil, err
	}
	return &Explain{Query: query, Shape: r.req.st.Shape, Profile: p, Timings: r.pack.Timings}, nil
}
