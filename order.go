package recall

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/recall-engine/recall/internal/telemetry"
	"github.com/recall-engine/recall/pack"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/rerank"
	"github.com/recall-engine/recall/statement"
)

// order puts the first K candidates in merit order: the learned order (Config.Order) over
// them, then the reranker's scores over the head, direct sources first, the rest in that
// order; then MMR when configured.
func (e *Engine) order(ctx context.Context, r *run, opts *Options) error {
	s := r.req.settings
	cands, cut := pack.CutWeak(pack.Head(r.all, s.K), s.CutRatio, s.CutRank)
	r.pack.Cut = cut
	t := time.Now()
	// The learned order ranks what several lanes found; a plan of one lane (an evaluation
	// arm: the lane alone) keeps that lane's order.
	if m := e.cfg.Order; m != nil && !opts.NoOrder && len(r.req.st.Lanes) > 1 {
		_, span := telemetry.Start(ctx, "recall.order", attribute.String("recall.model", m.Name), attribute.Int("recall.candidates", len(cands)))
		cands = learnedOrder(m, r.req.query, cands, s.RRFK)
		span.End()
	}
	r.pack.Timings.Order = time.Since(t)
	t = time.Now()
	scores, err := e.rerank(ctx, r, cands, opts.NoRerank)
	r.pack.Timings.Rerank = time.Since(t)
	if err != nil {
		return err
	}
	for i := range scores {
		cands[i].RerankScore = &scores[i]
	}
	t = time.Now()
	r.ordered = pack.MeritOrder(cands, scores, e.cfg.MMRLambda)
	if r.markStale {
		r.ordered = pack.ReplacedAfterCurrent(r.ordered)
	}
	r.pack.Timings.Pack = time.Since(t)
	return nil
}

// learnedOrder orders cands by the model's scores of their features (package ranker),
// keeping each candidate's features and score for a trace; a memory only the context lane
// found then follows the neighbour that brought it (pack.AnchorsFirst) and never passes a
// note or document three lanes found (pack.CorroboratedFirst).
func learnedOrder(m *ranker.Model, query string, cands []pack.Ranked, rrfK float64) []pack.Ranked {
	head := make([]statement.Candidate, len(cands))
	for i, c := range cands {
		head[i] = c.Candidate
	}
	xs := ranker.Extract(query, head, rrfK)
	out := make([]pack.Ranked, len(cands))
	idx, scores := m.Ranked(xs)
	for i, j := range idx {
		c := cands[j]
		c.Features, c.OrderScore = xs[j], &scores[j]
		out[i] = c
	}
	return pack.CorroboratedFirst(pack.AnchorsFirst(out), corroborated)
}

// corroborated is how many lanes make a memory without a place evidence that a memory only
// the context lane found never passes (pack.CorroboratedFirst).
const corroborated = 3

// rerank scores the head with the cross-encoder; a failure drops the stage with a warning
// (an error in Strict mode). It returns nil when there is nothing to rerank.
func (e *Engine) rerank(ctx context.Context, r *run, cands []pack.Ranked, off bool) ([]float32, error) {
	if e.cfg.Reranker == nil || off || len(cands) < e.cfg.RerankMin {
		return nil, nil
	}
	head := cands[:min(len(cands), e.cfg.RerankDepth)]
	docs := make([]string, len(head))
	for i, c := range head {
		docs[i] = c.Text
	}
	ctx, span := telemetry.Start(ctx, "recall.rerank", attribute.Int("recall.documents", len(docs)))
	scores, rep, err := rerank.ScoreReport(ctx, e.cfg.Reranker, r.req.query, docs)
	telemetry.End(span, err)
	if rep.QueryTruncated {
		r.warn("rerank", errors.New("the query was cut to half the cross-encoder's length"))
	}
	if err == nil && len(scores) != len(docs) {
		err = fmt.Errorf("%d scores for %d documents", len(scores), len(docs))
	}
	switch {
	case err == nil:
		return scores, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("recall: %w", ctx.Err())
	case e.cfg.Strict:
		return nil, fmt.Errorf("%w: %w", ErrRerank, err)
	}
	r.warn("rerank", fmt.Errorf("statement order kept: %w", err))
	return nil, nil
}
