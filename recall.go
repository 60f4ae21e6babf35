package recall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recall-engine/recall/budget"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/rerank"
	"github.com/recall-engine/recall/statement"
)

// Options adjust one recall. The zero value (or nil) is the production recall.
type Options struct {
	// Filters restrict every lane: kinds, tags, metadata, occurred-time range.
	Filters statement.Filters
	// WindowStart and WindowEnd give the temporal lane a time window [start, end).
	WindowStart, WindowEnd time.Time
	// Now is the query time for recency (zero: Config.Now()).
	Now time.Time
	// Plan narrows the lanes, for evaluation only (0: statement.Maximal).
	Plan statement.Plan
	// NoRerank skips the rerank stage.
	NoRerank bool
}

// Recall answers query for user with the evidence that fits budget tokens: the recall
// statement as the user, merit order (cross-encoder over the head, direct sources first),
// the budget walk, then access recording in a second transaction. opts may be nil.
func (e *Engine) Recall(ctx context.Context, user User, query string, budgetTokens int, opts *Options) (*Pack, error) {
	r, err := e.run(ctx, user, query, budgetTokens, opts, false)
	if err != nil {
		return nil, err
	}
	return r.pack, nil
}

// run is Recall and Trace: trace skips access recording and keeps what the trace shows.
func (e *Engine) run(ctx context.Context, user User, query string, budgetTokens int, opts *Options, trace bool) (*run, error) {
	start := time.Now()
	if opts == nil {
		opts = &Options{}
	}
	who, err := e.checkInput(user, query, budgetTokens)
	if err != nil {
		return nil, err
	}
	s := e.Settings()
	r := &run{pack: &Pack{Query: query, Budget: budgetTokens}, settings: s}
	p := r.pack
	warn := func(stage string, err error) {
		p.Warnings = append(p.Warnings, Warning{Stage: stage, Message: err.Error()})
	}

	// 1-3. The search text, then the embedding and the entity mentions, concurrently.
	r.searchText = query
	if user.Label != "" {
		r.searchText = query + "\nThe asking speaker is " + user.Label + "."
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
		var vs [][]float32
		var cut []embed.Truncation
		var err error
		if rep, ok := e.cfg.Embedder.(embed.Reporter); ok {
			vs, cut, err = rep.EmbedReport(ctx, []string{r.searchText}, embed.Query)
		} else {
			vs, err = e.cfg.Embedder.Embed(ctx, []string{r.searchText}, embed.Query)
		}
		var v []float32
		if err == nil {
			v = vs[0]
		}
		done <- embedded{v, cut, err, time.Since(t)}
	}()
	t := time.Now()
	r.mentions = statement.Mentions(query)
	p.Timings.Entities = time.Since(t)
	em := <-done
	p.Timings.Embed = em.d
	vec := em.vec
	if em.err == nil {
		if err := e.checkDim(ctx, len(vec)); err != nil {
			return nil, err
		}
		for _, c := range em.cut {
			warn("embed", fmt.Errorf("the query was cut to %d of its %d tokens for the embedding model", c.Kept, c.Tokens))
		}
	} else {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("recall: %w", ctx.Err())
		}
		if e.cfg.Strict {
			return nil, fmt.Errorf("%w: %w", ErrEmbed, em.err)
		}
		warn("embed", fmt.Errorf("the vector lane is off for this recall: %w", em.err))
		vec = nil
	}

	// 4-5. The statement, as the caller.
	plan := opts.Plan
	if plan == 0 {
		plan = statement.Maximal
	}
	st, err := e.cache.Get(statement.Shape{Dim: len(vec), Fuzzy: !e.cfg.ExactEntities, Plan: plan})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	r.statement = st
	now := opts.Now
	if now.IsZero() {
		now = e.cfg.Now()
	}
	q := statement.Query{
		Text: r.searchText, Raw: query, Vector: vec, Mentions: r.mentions,
		WindowStart: opts.WindowStart, WindowEnd: opts.WindowEnd, Filters: opts.Filters, Now: now,
	}
	run := s
	if trace {
		// Every lane's candidates, not only the fused top K: the fused order is the same
		// (ORDER BY fused, id), so the first K rows are what Recall sees.
		run.K = max(s.K, s.VectorK+s.BM25K+s.MentionK+s.GraphK+s.TemporalK+s.TitleK)
	}
	t = time.Now()
	all, err := statement.Run(ctx, e.cfg.Pool, statement.Scopes{Read: who.read, Write: who.write}, st, q, run)
	p.Timings.Statement = time.Since(t)
	if err != nil {
		return nil, err
	}
	r.all = all
	cands := all[:min(len(all), s.K)]

	// 6. Merit order.
	if e.cfg.Reranker != nil && !opts.NoRerank && len(cands) >= e.cfg.RerankMin {
		head := cands[:min(len(cands), e.cfg.RerankDepth)]
		docs := make([]string, len(head))
		for i, c := range head {
			docs[i] = c.Text
		}
		t = time.Now()
		var scores []float32
		var rep rerank.Report
		if rr, ok := e.cfg.Reranker.(rerank.Reporter); ok {
			scores, rep, err = rr.ScoreReport(ctx, query, docs)
		} else {
			scores, err = e.cfg.Reranker.Score(ctx, query, docs)
		}
		p.Timings.Rerank = time.Since(t)
		if rep.QueryTruncated {
			warn("rerank", errors.New("the query was cut to half the cross-encoder's length"))
		}
		switch {
		case err == nil && len(scores) != len(docs):
			err = fmt.Errorf("%d scores for %d documents", len(scores), len(docs))
			fallthrough
		case err != nil:
			if ctx.Err() != nil {
				return nil, fmt.Errorf("recall: %w", ctx.Err())
			}
			if e.cfg.Strict {
				return nil, fmt.Errorf("%w: %w", ErrRerank, err)
			}
			warn("rerank", fmt.Errorf("statement order kept: %w", err))
		default:
			r.rerank = scores
		}
	}
	t = time.Now()
	direct := make([]bool, len(cands))
	for i, c := range cands {
		direct[i] = c.Direct
	}
	order := rerank.Order(len(cands), r.rerank, direct)
	if e.cfg.MMRLambda > 0 {
		texts := make([]string, len(order))
		for i, j := range order {
			texts[i] = cands[j].Text
		}
		mmr := rerank.MMR(texts, e.cfg.MMRLambda)
		diverse := make([]int, len(order))
		for i, j := range mmr {
			diverse[i] = order[j]
		}
		order = diverse
	}
	r.order = order

	// 7. The budget walk.
	texts := make([]string, len(order))
	for i, j := range order {
		texts[i] = cands[j].Text
	}
	walk, err := budget.Walk(texts, budgetTokens, e.cfg.Tokens)
	if err != nil {
		return nil, &InputError{Field: "budget", Problem: err.Error()}
	}
	r.walk = walk
	for _, it := range walk.Items {
		j := order[it.Index]
		c := cands[j]
		item := Item{
			ID: c.ID, ExternalID: c.ExternalID, Kind: c.Kind, Text: it.Text, Truncated: it.Truncated, Tokens: it.Tokens,
			SourceTitle: c.SourceTitle, SourceURI: c.SourceURI, Entities: c.Entities,
			OccurredStart: c.OccurredStart, OccurredEnd: c.OccurredEnd, Tags: c.Tags, Metadata: c.Metadata,
			Score: c.Score, Direct: c.Direct, StatementRank: j + 1, Lanes: c.Lanes,
		}
		if j < len(r.rerank) {
			v := r.rerank[j]
			item.RerankScore = &v
		}
		p.Items = append(p.Items, item)
	}
	for _, o := range walk.Omitted {
		p.Omitted = append(p.Omitted, Omitted{ID: cands[order[o.Index]].ID, Tokens: o.Tokens, Reason: o.Reason})
	}
	p.Used, p.OmittedTokens, p.Empty = walk.Used, walk.OmittedTokens, walk.Empty
	p.Abstain = abstention(cands, len(vec) > 0, e.cfg.MinSimilarity, e.cfg.MinResults)
	p.Timings.Pack = time.Since(t)

	// 8. Access recording, in its own transaction, after the read has committed.
	if !trace && !e.cfg.NoAccess && len(who.write) > 0 && len(p.Items) > 0 {
		ids := make([]int64, len(p.Items))
		for i, it := range p.Items {
			ids[i] = it.ID
		}
		t = time.Now()
		n, err := e.recorder.Record(ctx, who.read, who.write, ids, now)
		p.Timings.Access = time.Since(t)
		if err != nil {
			if e.cfg.Strict {
				return nil, fmt.Errorf("%w: %w", ErrAccess, err)
			}
			warn("access", err)
		}
		p.Accessed = n
	}
	p.Timings.Total = time.Since(start)
	return r, nil
}

// run keeps what a trace shows beyond the pack.
type run struct {
	pack       *Pack
	settings   statement.Settings
	searchText string
	mentions   []string
	statement  *statement.Statement
	all        []statement.Candidate // the statement's rows (more than K in a trace)
	rerank     []float32             // scores of the head, in statement order
	order      []int                 // merit order: indexes into all[:K]
	walk       budget.Pack
}

func abstention(cands []statement.Candidate, vector bool, minSim float64, minResults int) Abstention {
	a := Abstention{NoMatch: len(cands) == 0, TooFew: len(cands) < minResults}
	if vector {
		for _, c := range cands {
			if c.Lanes[statement.Vector].Rank > 0 {
				a.TopSimilarity = max(a.TopSimilarity, c.Lanes[statement.Vector].Score)
			}
		}
		a.LowSimilarity = a.TopSimilarity < minSim
	}
	return a
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
