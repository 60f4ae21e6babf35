package recall

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/internal/telemetry"
	"github.com/recall-engine/recall/pack"
	"github.com/recall-engine/recall/statement"
	"github.com/recall-engine/recall/when"
)

// Options adjust one recall. The zero value (or nil) is the production recall.
type Options struct {
	// Filters restrict every lane: kinds, tags, metadata, occurred-time range.
	Filters statement.Filters
	// WindowStart and WindowEnd give the temporal lane a time window [start, end). Zero: the
	// window the question names, if any (package when), relative to Now.
	WindowStart, WindowEnd time.Time
	// NoQueryTime keeps the question's own time expressions out of the temporal lane.
	NoQueryTime bool
	// Now is the query time for recency (zero: Config.Now()); memories expired at it are
	// left out.
	Now time.Time
	// AsOf asks what held at another time than Now: memories not yet valid or no longer valid
	// then (Memory.ValidFrom, ValidUntil), or superseded by then (Memory.Supersedes), are left
	// out (zero: Now).
	AsOf time.Time
	// Plan narrows the lanes, for evaluation only (0: statement.Maximal). A lane whose
	// weight is 0 is not run either way (Settings.Narrow).
	Plan statement.Plan
	// NoRerank skips the rerank stage.
	NoRerank bool
	// NoOrder keeps the statement's fused order: the learned order (Config.Order) is not
	// applied. A plan of one lane never has it.
	NoOrder bool
	// Altitude chooses between summaries and the memories they cover ("": auto).
	Altitude Altitude
	// Passages chooses how a long memory the bm25 lane scored by one of its passages is
	// packed: whole, its passage, or ("": auto) the passage when it saves more than half of
	// the memory's tokens or the whole does not fit.
	Passages Passages
	// GraphContext adds the relations between the query's entities and the packed items' to
	// the pack, within the budget (Pack.GraphContext).
	GraphContext bool
	// MarkStale packs the memories that do not hold at AsOf (expired, superseded, outside
	// their validity) like any other, each marked with why (Item.Stale: "superseded by m42 on
	// 2024-05-01"), where a recall otherwise leaves them out: the current fact and, right
	// after it, the one it replaced, when both fit (pack.ReplacedAfterCurrent).
	MarkStale bool
	// ReadYourWrites, with Config.Replica, waits (at most Config.ReplicaWait) for the replica
	// to replay the user's last write through this Engine before it serves the recall; past
	// that, the primary serves it.
	ReadYourWrites bool
}

// DefaultBudget is the token budget a face uses when its caller names none: the recall
// command's --budget, aizk-eval trace's, and MCP's recall tool.
const DefaultBudget = 1000

// Recall answers query for user with the evidence that fits budget tokens: the recall
// statement as the user, merit order (cross-encoder over the head, direct sources first),
// the budget walk, then access recording in a second transaction. opts may be nil.
//
// It returns when ctx ends, with an error wrapping ctx's: the statement it started is cancelled
// on the server in the background, and the pool gets its connection back when that is done.
func (e *Engine) Recall(ctx context.Context, user User, query string, budgetTokens int, opts *Options) (*Pack, error) {
	r, err := untilDone(ctx, func() (*run, error) { return e.run(ctx, user, query, budgetTokens, opts, false) })
	if err != nil {
		return nil, err
	}
	return r.pack, nil
}

// untilDone runs a read and returns its result, or ctx's error as soon as ctx ends: the read
// goes on in the background until its cancelled statement stops (the cancel request's round
// trip, which a caller's deadline should not wait for). Only reads may be left behind so: a
// write waits for its outcome, so that what it reports is what happened.
func untilDone[T any](ctx context.Context, read func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return read()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("recall: %w", ctx.Err())
	}
}

// request is a recall after prepare: the validated caller and inputs, and the statement
// query ready to run.
type request struct {
	who      caller
	query    string
	budget   int
	settings statement.Settings
	search   string // the search text (the query with the speaker label)
	st       *statement.Statement
	q        statement.Query
	plan     statement.Plan // the plan asked, less the lanes of weight 0; st's is that less the idle lanes (Plan.For)
}

// run keeps what one recall decided, for the pack and for a trace.
type run struct {
	pack *Pack
	req  request
	all  []statement.Candidate // the statement's rows (more than K in a trace)
	sql  string                // the text that ran (the routed form on Citus)
	left []statement.Candidate // in a trace without MarkStale, the rows that do not hold
	// keepStale: the statement returns the rows that do not hold (a trace, or MarkStale);
	// markStale: the pack keeps them, marked.
	keepStale, markStale bool
	ordered              []pack.Ranked // the first K in merit order (after the cut)
	packed               pack.Result
}

func (r *run) warn(stage string, err error) { r.pack.Warn(stage, err) }

// run is Recall and Trace, stage by stage: prepare, retrieve, order, pack, record. A trace
// reads every lane's candidates and records no access.
func (e *Engine) run(ctx context.Context, user User, query string, budgetTokens int, opts *Options, trace bool) (_ *run, err error) {
	start := time.Now()
	if opts == nil {
		opts = &Options{}
	}
	name := "recall"
	if trace {
		name = "recall.trace"
	}
	ctx, span := telemetry.Start(ctx, name, attribute.Int("recall.budget", budgetTokens), telemetry.MemoryOp(telemetry.OpSearchMemory))
	defer func() { telemetry.End(span, err) }()
	r := &run{pack: &Pack{Query: query, Budget: budgetTokens}, keepStale: trace || opts.MarkStale, markStale: opts.MarkStale}
	if w, _ := e.profileWarn.Load().(string); w != "" {
		r.warn("settings", errors.New(w))
	}
	if err := e.prepare(ctx, r, user, query, budgetTokens, opts); err != nil {
		return nil, err
	}
	if err := e.retrieve(ctx, r, user, opts.ReadYourWrites, trace); err != nil {
		return nil, err
	}
	if err := e.order(ctx, r, opts); err != nil {
		return nil, err
	}
	e.packItems(ctx, r, opts)
	if err := e.fillNames(ctx, r); err != nil {
		return nil, err
	}
	if !trace {
		if err := e.record(ctx, r); err != nil {
			return nil, err
		}
	}
	r.pack.Timings.Total = time.Since(start)
	r.pack.Normalize()
	span.SetAttributes(attribute.Int("recall.candidates", len(r.all)), attribute.Int("recall.items", len(r.pack.Items)), telemetry.MemoryRecords(len(r.pack.Items)),
		attribute.Int("recall.used_tokens", r.pack.Used), attribute.String("recall.served_by", string(r.pack.ServedBy)),
		attribute.Int("recall.warnings", len(r.pack.Warnings)))
	return r, nil
}

// prepare validates the call, builds the search text, embeds it while it finds the query's
// entity mentions, checks the embedding's dimension and picks the statement.
func (e *Engine) prepare(ctx context.Context, r *run, user User, query string, budgetTokens int, opts *Options) error {
	who, err := e.checkInput(user, query, budgetTokens)
	if err != nil {
		return err
	}
	alt, err := ParseAltitude(string(opts.Altitude))
	if err != nil {
		return err
	}
	r.pack.Altitude = alt
	if r.pack.Passages, err = ParsePassages(string(opts.Passages)); err != nil {
		return err
	}
	if err := opts.Filters.Validate(); err != nil {
		var fe *statement.FilterError
		if errors.As(err, &fe) {
			return &InputError{Field: "filters." + fe.Field, Problem: fe.Problem}
		}
		return err
	}
	req := request{who: who, query: query, budget: budgetTokens, settings: e.Settings(), search: query}
	if user.Label != "" {
		req.search = query + "\nThe asking speaker is " + user.Label + "."
	}
	type embedded struct {
		vec []float32
		cut []embed.Truncation
		err error
		d   time.Duration
	}
	done := make(chan embedded, 1)
	go func() {
		t := time.Now()
		ctx, span := telemetry.Start(ctx, "recall.embed")
		vs, cut, err := embed.Report(ctx, e.cfg.Embedder, []string{req.search}, embed.Query)
		telemetry.End(span, err)
		var v []float32
		if err == nil {
			v = vs[0]
		}
		done <- embedded{v, cut, err, time.Since(t)}
	}()
	t := time.Now()
	mentions := statement.Mentions(query)
	r.pack.Timings.Entities = time.Since(t)
	em := <-done
	r.pack.Timings.Embed = em.d
	if em.err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("recall: %w", ctx.Err())
		}
		if e.cfg.Strict {
			return fmt.Errorf("%w: %w", ErrEmbed, em.err)
		}
		r.warn("embed", fmt.Errorf("the vector lane is off for this recall: %w", em.err))
	} else {
		if err := e.dims.Check(ctx, e.cfg.Pool, len(em.vec)); err != nil {
			return err
		}
		for _, c := range em.cut {
			r.warn("embed", fmt.Errorf("the query was cut to %d of its %d tokens for the embedding model", c.Kept, c.Tokens))
		}
	}
	req.plan = req.settings.Narrow(cmp.Or(opts.Plan, statement.Maximal)) // a lane of weight 0 is not run
	now := opts.Now
	if now.IsZero() {
		now = e.cfg.Now()
	}
	req.q = statement.Query{
		Text: req.search, Raw: query, Vector: em.vec, Mentions: mentions,
		WindowStart: opts.WindowStart, WindowEnd: opts.WindowEnd, Filters: opts.Filters, Now: now, AsOf: opts.AsOf,
		GraphContext: opts.GraphContext, KeepStale: r.keepStale,
	}
	if req.settings.ExpansionWeight > 0 && e.cfg.Expander != nil {
		req.q.Expansion = e.cfg.Expander.Expand(query)
	}
	if opts.WindowStart.IsZero() && opts.WindowEnd.IsZero() && !opts.NoQueryTime {
		if w, ok := when.Parse(query, now); ok {
			req.q.WindowStart, req.q.WindowEnd = w.Start, w.End
			r.pack.Window = &Window{Start: w.Start, End: w.End, Text: w.Text}
		}
	}
	// Nor a lane that can find nothing for this question (Plan.For).
	if req.st, err = e.cache.Get(statement.Shape{Dim: len(em.vec), Fuzzy: !e.cfg.ExactEntities, Plan: req.plan.For(req.q)}); err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	r.req = req
	return nil
}

// retrieve runs the statement as the caller, on the replica when one is configured and can
// serve (else on the primary; a replica that fails leaves a warning and the primary serves).
// A trace reads every lane's candidates, not only the fused top K.
func (e *Engine) retrieve(ctx context.Context, r *run, user User, ryw, trace bool) (err error) {
	s := r.req.settings
	r.req.q.DeferNames = !trace // a trace shows every candidate's names
	if trace {
		// Every lane's candidates, each with the neighbours it would need, so the trace can
		// be fused again with other settings (Trace.Reorder).
		s.K = s.TraceK(r.req.st.Shape.Plan)
		s.ContextHits = s.K
	}
	t := time.Now()
	ctx, span := telemetry.Start(ctx, "recall.statement", attribute.String("recall.plan", r.req.st.Shape.Plan.String()),
		attribute.Int("recall.dim", r.req.st.Shape.Dim), attribute.Int("recall.k", s.K))
	defer func() {
		r.pack.Timings.Statement = time.Since(t)
		span.SetAttributes(attribute.Int("recall.candidates", len(r.all)), attribute.String("recall.served_by", string(r.pack.ServedBy)))
		telemetry.End(span, err)
	}()
	why, err := e.replicaFor(ctx, user, ryw)
	if err == nil && why == "" {
		all, text, rerr := e.runOnReplica(ctx, r, s)
		if rerr == nil {
			r.all, r.sql, r.pack.ServedBy = all, text, ServedByReplica
			r.splitStale()
			return nil
		}
		err = rerr
	}
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		why = "the replica failed"
		r.warn("replica", fmt.Errorf("the primary served the recall: %w", err))
	}
	who := statement.Scopes{Read: r.req.who.read, Write: r.req.who.write}
	var all []statement.Candidate
	var text string
	if e.cfg.RoutedReads || !e.distributed.Load() {
		all, text, err = statement.RunText(ctx, e.cfg.Pool, who, r.req.st, r.req.q, s)
		// A routed text: the schema is distributed, and the next recalls read shards directly.
		e.distributed.Store(err == nil && text != r.req.st.SQL || e.distributed.Load())
	} else {
		all, text, err = statement.RunDirect(ctx, e.cfg.Pool, e.workerPool, who, r.req.st, r.req.q, s)
	}
	r.all, r.sql, r.pack.ServedBy, r.pack.ServedWhy = all, text, ServedByPrimary, why
	r.splitStale()
	return err
}

// splitStale moves the rows that do not hold out of the candidates into r.left, unless the
// pack is to keep them marked: a trace then shows them, and orders and packs what Recall does.
func (r *run) splitStale() {
	if r.markStale || !r.keepStale {
		return
	}
	held := r.all[:0:0]
	for _, c := range r.all {
		if c.Stale != "" {
			r.left = append(r.left, c)
		} else {
			held = append(held, c)
		}
	}
	r.all = held
}

// packItems walks the merit order into the budget and fills the pack (package pack).
func (e *Engine) packItems(ctx context.Context, r *run, opts *Options) {
	t := time.Now()
	_, span := telemetry.Start(ctx, "recall.pack")
	defer span.End()
	r.packed = pack.Fill(r.pack, pack.Input{Ordered: r.ordered, ContextHits: r.req.settings.ContextHits, Budget: r.req.budget,
		Altitude: r.pack.Altitude, Passages: r.pack.Passages, GraphContext: opts.GraphContext, Tokens: e.cfg.Tokens})
	r.pack.Abstain = pack.Abstain(r.all[:min(len(r.all), r.req.settings.K)], len(r.req.q.Vector) > 0, e.cfg.MinSimilarity, e.cfg.MinResults)
	r.pack.Timings.Pack += time.Since(t)
}

// record stamps the packed memories' access in its own transaction, after the read has
// committed; a failure is a warning (an error in Strict mode).
func (e *Engine) record(ctx context.Context, r *run) error {
	p, who := r.pack, r.req.who
	if e.cfg.NoAccess || len(who.write) == 0 || len(p.Items) == 0 {
		return nil
	}
	ids := make([]int64, len(p.Items))
	for i, it := range p.Items {
		ids[i] = it.ID
	}
	t := time.Now()
	ctx, span := telemetry.Start(ctx, "recall.access", attribute.Int("recall.items", len(ids)))
	n, err := e.recorder.Record(ctx, who.read, who.write, ids, r.req.q.Now)
	telemetry.End(span, err)
	p.Timings.Access = time.Since(t)
	if err != nil {
		if e.cfg.Strict {
			return fmt.Errorf("%w: %w", ErrAccess, err)
		}
		r.warn("access", err)
	}
	p.Accessed = n
	return nil
}

// checkInput validates the call and normalizes the user's scopes.
func (e *Engine) checkInput(user User, query string, budgetTokens int) (caller, error) {
	if err := checkText("query", query, true); err != nil {
		return caller{}, err
	}
	if n := e.cfg.Tokens.Count(query); n > e.cfg.MaxQueryTokens {
		return caller{}, &InputError{Field: "query", Problem: fmt.Sprintf("%d tokens", n), Limit: e.cfg.MaxQueryTokens}
	}
	switch {
	case budgetTokens < 1:
		return caller{}, &InputError{Field: "budget", Problem: fmt.Sprintf("%d tokens: want at least 1", budgetTokens)}
	case budgetTokens > e.cfg.MaxBudget:
		return caller{}, &InputError{Field: "budget", Problem: fmt.Sprintf("%d tokens", budgetTokens), Limit: e.cfg.MaxBudget}
	}
	return user.check()
}

// IsInputError reports whether err is bad input (an *InputError).
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
