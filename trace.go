package recall

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/recall-engine/recall/pack"
	"github.com/recall-engine/recall/ranker"
	"github.com/recall-engine/recall/statement"
)

// Trace is one recall laid open: the pack Recall would return, every lane's candidates with
// ranks and scores, the fused order, rerank scores, what the budget walk did with each
// candidate, the statement's shape and the stage timings. Making it records no access.
type Trace struct {
	Pack       *Pack
	SearchText string   // the query after the speaker rewrite
	Expansion  []string // the words the BM25 and context lanes added to it (Config.Expander)
	Mentions   []string // the query's entity mention candidates
	Shape      statement.Shape
	// Idle are the lanes the plan and settings ask for that did not run, as they can find
	// nothing for this question (statement.Plan.For: the temporal lane when it names no time).
	Idle statement.Plan
	// SQL is the statement's text as it ran: on a distributed Citus schema its routed form,
	// bound to the caller's scope set.
	SQL      string
	Settings statement.Settings
	// K is how many fused candidates Recall orders and packs; Candidates holds more, so that
	// every lane's candidates appear.
	K          int
	Candidates []TraceCandidate // the statement's rows in fused order
	// Lanes lists each lane's candidates in lane order, as indexes into Candidates.
	Lanes [statement.NumLanes][]int
	// Context are the neighbours that came into the pack's walk with a candidate.
	Context []TraceContext
	// Left are the candidates the statement found that do not hold at the recall's as_of, and
	// why: a Recall leaves them out (Options.MarkStale packs them, marked).
	Left []LeftOut

	// Order is the learned order the recall applied (nil: none, Options.NoOrder or ranker.Off).
	Order *ranker.Model
	// Now is the query time (recency, the question's relative times); MMRLambda the engine's
	// diversity setting: what Reorder needs besides the candidates.
	Now       time.Time
	MMRLambda float64
}

// LeftOut is a candidate left out because it does not hold at the recall's as_of.
type LeftOut struct {
	ID         int64  `json:"id"`
	ExternalID string `json:"external_id"`
	Text       string `json:"text"`
	Why        string `json:"why"` // "superseded by m42 on 2024-05-01", "expired on ...", ...
}

// TraceContext is a neighbour that came with a candidate to be read with it: why ("answer":
// it follows the candidate's question; "reply_to": the candidate's short reply answers it)
// and what became of it.
type TraceContext struct {
	ID         int64
	ExternalID string
	Of         int64 // the candidate's memory id
	Why        string
	Decision   Decision
}

// TraceCandidate is one row of the statement and its fate.
type TraceCandidate struct {
	statement.Candidate
	FusedRank   int      // 1-based place in the statement's order
	MeritRank   int      // 1-based place after the learned order, reranking and direct sources (0: beyond K)
	RerankScore *float32 // nil when not reranked
	// Features are the candidate's features in the learned order (ranker.Features order) and
	// OrderScore its score there; nil without a learned order, or beyond K.
	Features   []float64
	OrderScore *float64
	Tokens     int
	Decision   Decision
	// AttachedTo is the candidate whose unit took this one as a neighbour (its memory id; 0:
	// none): its Decision is that unit's.
	AttachedTo int64
}

// Trace runs the recall path for user without recording access and returns everything it
// decided on the way. opts may be nil.
func (e *Engine) Trace(ctx context.Context, user User, query string, budgetTokens int, opts *Options) (*Trace, error) {
	r, err := untilDone(ctx, func() (*run, error) { return e.run(ctx, user, query, budgetTokens, opts, true) })
	if err != nil {
		return nil, err
	}
	tr := &Trace{
		Pack: r.pack, SearchText: r.req.search, Expansion: r.req.q.Expansion, Mentions: r.req.q.Mentions,
		Shape: r.req.st.Shape, SQL: cmp.Or(r.sql, r.req.st.SQL), Settings: r.req.settings,
		K: min(r.req.settings.K, len(r.all)), Candidates: make([]TraceCandidate, len(r.all)),
		Now: r.req.q.Now, MMRLambda: e.cfg.MMRLambda,
	}
	tr.Idle = r.req.plan &^ tr.Shape.Plan
	for _, c := range r.left {
		tr.Left = append(tr.Left, LeftOut{ID: c.ID, ExternalID: c.ExternalID, Text: c.Text, Why: c.Stale})
	}
	for i, c := range r.all {
		tr.Candidates[i] = TraceCandidate{Candidate: c, FusedRank: i + 1, Decision: BeyondK, Tokens: e.cfg.Tokens.Count(c.Text)}
	}
	// The candidates the recall ordered and walked carry their fused rank; the neighbours
	// that came with them are the trace's Context.
	at := func(c pack.Ranked) *TraceCandidate { return &tr.Candidates[c.FusedRank-1] }
	for m, c := range r.ordered {
		at(c).MeritRank, at(c).RerankScore = m+1, c.RerankScore
		at(c).Features, at(c).OrderScore = c.Features, c.OrderScore
		if c.OrderScore != nil {
			tr.Order = e.cfg.Order
		}
	}
	mark := func(u pack.Unit, d Decision) {
		for _, m := range u.Members {
			if m.Why == "" {
				at(m).Decision = d
				continue
			}
			anchor := u.Members[u.Hit].ID
			tr.Context = append(tr.Context, TraceContext{ID: m.ID, ExternalID: m.ExternalID, Of: anchor, Why: m.Why, Decision: d})
			// A neighbour that is a candidate too went with its anchor: it was considered.
			if c := tr.Find(m.ID); c != nil {
				c.Decision, c.AttachedTo = d, anchor
			}
		}
	}
	for _, it := range r.packed.Walk.Items {
		d := Packed
		if it.Truncated {
			d = PackedTruncated
		}
		mark(it.Item, d)
	}
	for _, o := range r.packed.Walk.Omitted {
		mark(o.Item, OverBudget)
	}
	// What the altitude step left out: summaries whose memories fit, memories a summary
	// replaced, summaries a memories-altitude pack leaves out.
	for id, d := range r.packed.Left {
		if c := tr.Find(id); c != nil && c.MeritRank > 0 {
			c.Decision = d
		}
	}
	for _, l := range statement.Lanes() {
		var idx []int
		for i, c := range tr.Candidates {
			if c.Lanes[l].Rank > 0 {
				idx = append(idx, i)
			}
		}
		// Tied memories share a rank (mention, graph, title); the lane lists them by id.
		slices.SortFunc(idx, func(a, b int) int {
			ca, cb := &tr.Candidates[a], &tr.Candidates[b]
			return cmp.Or(cmp.Compare(ca.Lanes[l].Rank, cb.Lanes[l].Rank), cmp.Compare(ca.ID, cb.ID))
		})
		tr.Lanes[l] = idx
	}
	return tr, nil
}

// Find returns the candidate with memory id, or nil when the statement did not return it.
func (t *Trace) Find(id int64) *TraceCandidate {
	for i := range t.Candidates {
		if t.Candidates[i].ID == id {
			return &t.Candidates[i]
		}
	}
	return nil
}

// Why explains a candidate's place: each lane's rank and its RRF share, the recency and
// frequency terms, the fused rank, the rerank score and merit rank, and the pack decision.
func (t *Trace) Why(c *TraceCandidate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory %d (%s): fused #%d, score %.6f = RRF %.6f", c.ID, c.ExternalID, c.FusedRank, c.Score, c.RRF)
	if extra := c.Score - c.RRF; extra != 0 {
		fmt.Fprintf(&b, " + recency/frequency %.6f", extra)
	}
	b.WriteString("\n")
	for _, l := range statement.Lanes() {
		if !t.Shape.Plan.Has(l) {
			continue
		}
		h := c.Lanes[l]
		if h.Rank == 0 {
			fmt.Fprintf(&b, "  %-8s  not found\n", l)
			continue
		}
		share := t.Settings.RRF(l, h.Rank)
		fmt.Fprintf(&b, "  %-8s  rank %3d  score %10.4f  adds %.6f\n", l, h.Rank, h.Score, share)
	}
	if c.Direct {
		b.WriteString("  direct source: the query names its title\n")
	}
	for _, x := range t.Context {
		if x.Of == c.ID {
			fmt.Fprintf(&b, "  brings %s (%s): %s\n", x.ExternalID, x.Why, x.Decision)
		}
	}
	if c.AttachedTo != 0 {
		anchor := fmt.Sprint(c.AttachedTo)
		if a := t.Find(c.AttachedTo); a != nil {
			anchor = a.ExternalID
		}
		fmt.Fprintf(&b, "  attached to %s as its neighbour, and packed with it\n", anchor)
	}
	if c.OrderScore != nil && t.Order != nil {
		fmt.Fprintf(&b, "  learned order %s: score %.4f =%s\n", t.Order.Name, *c.OrderScore, contributions(t.Order, c.Features))
	}
	switch {
	case c.MeritRank == 0 && c.AttachedTo == 0:
		fmt.Fprintf(&b, "  beyond the %d candidates ordered and packed\n", t.K)
	case c.MeritRank == 0:
	case c.RerankScore != nil:
		fmt.Fprintf(&b, "  rerank score %.4f, merit #%d\n", *c.RerankScore, c.MeritRank)
	default:
		fmt.Fprintf(&b, "  not reranked, merit #%d\n", c.MeritRank)
	}
	for _, cl := range t.Pack.Climbs {
		switch {
		case cl.Summary == c.ID:
			fmt.Fprintf(&b, "  climbed: packed in place of the memories %v it covers (none of them fit)\n", cl.Replaced)
		case slices.Contains(cl.Replaced, c.ID):
			fmt.Fprintf(&b, "  replaced by summary %d, which covers it\n", cl.Summary)
		}
	}
	if c.Decision == Descended {
		b.WriteString("  descended: memories it covers that made the cut fit the budget, and are given instead\n")
	}
	fmt.Fprintf(&b, "  %s (%d tokens)\n", c.Decision, c.Tokens)
	return b.String()
}

// Head fuses the trace's candidates (every lane's, read once) with settings s as the
// statement would (statement.Fuse) and returns its first K after the relative cut: what the
// learned order and the reranker of a Recall with s would take.
func (t *Trace) Head(s statement.Settings) []pack.Ranked {
	cands := make([]statement.Candidate, len(t.Candidates))
	for i, c := range t.Candidates {
		cands[i] = c.Candidate
	}
	head, _ := pack.CutWeak(pack.Head(statement.Fuse(cands, s, t.Now), s.K), s.CutRatio, s.CutRank)
	return head
}

// Reorder orders the trace's candidates as Recall does without a reranker, with settings s
// and the trace's learned order (Order), and returns the external ids in the order a pack
// with room for all of them gives. It is how aizk-eval tune fits settings without running
// the statement again; with the trace's own settings it gives what its Recall gave.
func (t *Trace) Reorder(s statement.Settings) []string { return t.ReorderWith(s, t.Order) }

// ReorderWith is Reorder with learned order m (nil: the fused order; a plan of one lane has
// none, as in Recall).
func (t *Trace) ReorderWith(s statement.Settings, m *ranker.Model) []string {
	head := t.Head(s)
	if m != nil && len(t.Shape.Plan.Lanes()) > 1 {
		head = learnedOrder(m, t.Pack.Query, head, s.RRFK)
	}
	return pack.IDs(pack.Units(pack.MeritOrder(head, nil, t.MMRLambda), s.ContextHits))
}

// contributions writes a candidate's five largest features' shares of its learned-order
// score, largest first, with each feature's value: " +0.4120 nb_best (0.0667) ...", and how
// many more there are (TraceCandidate.Features has them all).
func contributions(m *ranker.Model, x []float64) string {
	parts := m.Contributions(x)
	idx := make([]int, 0, len(parts))
	for i, v := range parts {
		if v != 0 {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(parts[b]), math.Abs(parts[a])) })
	var b strings.Builder
	for _, i := range idx[:min(5, len(idx))] {
		fmt.Fprintf(&b, " %+.4f %s (%.3g)", parts[i], ranker.Features[i], x[i])
	}
	if len(idx) > 5 {
		fmt.Fprintf(&b, " and %d more", len(idx)-5)
	}
	return b.String()
}
