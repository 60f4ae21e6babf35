package recall

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/summarize"
	"github.com/recall-engine/recall/write"
)

// SummaryPrefix starts the ids of the summaries Summarize writes; it owns every memory of
// the scope set whose id starts so, and replaces them on each run.
const SummaryPrefix = "recall-summary:"

// Ways to group memories for Summarize.
const (
	BySession   = "session"   // the memories of one source, in their places' order
	ByCommunity = "community" // the memories that mention the entities of one community of the relation graph
)

// Limits of Summarize.
const (
	// MinGroup is the fewest memories a group needs to be summarized.
	MinGroup = 3
	// MaxGroup is the most memories one summary covers: a larger group is summarized in
	// consecutive parts of MaxGroup (its ids get ":2", ":3"...).
	MaxGroup = 200
	// DefaultSummaryTokens is a summary's token cap when SummarizeOptions gives none.
	DefaultSummaryTokens = 200
	// communityRounds bounds label propagation.
	communityRounds = 20
)

// SummarizeOptions adjust Summarize.
type SummarizeOptions struct {
	// Scopes is the scope set to summarize (nil: the user's only write scope).
	Scopes []string
	// By lists the groupings: BySession, ByCommunity (nil: both).
	By []string
	// MaxTokens caps each summary (0: DefaultSummaryTokens).
	MaxTokens int
	// Summarizer writes the summaries (nil: summarize.Extractive with the engine's counter).
	Summarizer summarize.Summarizer
	// Progress, when set, is called after each group with how many are done of how many.
	Progress func(done, total int)
}

// SummarizeResult says what Summarize did.
type SummarizeResult struct {
	Groups  map[string]int // groups summarized, by grouping
	Written int            // summaries written (new or replaced)
	Pruned  int            // summaries of groups that no longer exist, deleted
	Covered int            // (summary, memory) pairs
}

// Summarize builds the summaries of a scope set: it groups the memories by session (their
// source) and by entity community (label propagation over the relation graph, each memory
// in the community most of its entities are in), summarizes each group of at least MinGroup
// memories, and writes the summaries (kind summary, covering the group) in one batch that
// also deletes the summaries of groups that no longer exist. Running it twice on the same
// memories writes the same summaries. It reads and writes as user.
func (e *Engine) Summarize(ctx context.Context, user User, o SummarizeOptions) (SummarizeResult, error) {
	who, err := user.check()
	if err != nil {
		return SummarizeResult{}, err
	}
	set, err := write.Scopes(who.write, o.Scopes)
	if err != nil {
		return SummarizeResult{}, err
	}
	by := o.By
	if len(by) == 0 {
		by = []string{BySession, ByCommunity}
	}
	for i, b := range by {
		if b != BySession && b != ByCommunity {
			return SummarizeResult{}, &InputError{Field: fmt.Sprintf("by[%d]", i), Problem: fmt.Sprintf("%q: want session or community", b)}
		}
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = DefaultSummaryTokens
	}
	if o.MaxTokens < 1 || o.MaxTokens > e.cfg.MaxBudget {
		return SummarizeResult{}, &InputError{Field: "max_tokens", Problem: fmt.Sprintf("%d tokens: want 1 to %d", o.MaxTokens, e.cfg.MaxBudget)}
	}
	if o.Summarizer == nil {
		o.Summarizer = summarize.Extractive{Tokens: e.cfg.Tokens}
	}
	in, err := e.summaryInput(ctx, who, set)
	if err != nil {
		return SummarizeResult{}, err
	}
	var groups []summaryGroup
	for _, b := range by {
		if b == BySession {
			groups = append(groups, in.sessions()...)
		} else {
			groups = append(groups, in.communities()...)
		}
	}
	res := SummarizeResult{Groups: map[string]int{}}
	// No names are extracted from the summaries: an extractive summary's names are its
	// memories', and mentioned again they would count twice in the mention and graph lanes
	// (on LoCoMo, extraction from session summaries cost R@10 0.7964 -> 0.7944, and auto's
	// pack at 500 tokens 0.7964 -> 0.7954). The summaries take part in the other lanes.
	batch := Batch{Scopes: set, Prune: SummaryPrefix, NoExtract: true}
	for i, g := range groups {
		texts := make([]string, len(g.members))
		covers := make([]string, len(g.members))
		var start, end *time.Time
		for j, m := range g.members {
			texts[j], covers[j] = m.text, m.ext
			start, end = earlier(start, m.start), later(end, cmp.Or(m.end, m.start))
		}
		text, err := o.Summarizer.Summarize(ctx, texts, o.MaxTokens)
		if err != nil {
			return SummarizeResult{}, fmt.Errorf("recall: summarize %s: %w", g.id, err)
		}
		batch.Memories = append(batch.Memories, Memory{
			ID: g.id, Kind: "summary", Text: text, Source: g.source, Covers: covers,
			OccurredStart: start, OccurredEnd: end,
			Metadata: map[string]any{"summary": map[string]any{"by": g.by, "group": g.group, "memories": len(g.members), "summarizer": o.Summarizer.Name()}},
		})
		res.Groups[g.by]++
		if o.Progress != nil {
			o.Progress(i+1, len(groups))
		}
	}
	wr, err := e.Write(ctx, user, batch)
	if err != nil {
		return SummarizeResult{}, err
	}
	res.Written, res.Pruned, res.Covered = wr.Memories, wr.Pruned, wr.Covered
	return res, nil
}

func earlier(a, b *time.Time) *time.Time {
	if a == nil || (b != nil && b.Before(*a)) {
		return b
	}
	return a
}

func later(a, b *time.Time) *time.Time {
	if a == nil || (b != nil && b.After(*a)) {
		return b
	}
	return a
}

// summaryMember is a memory Summarize may group.
type summaryMember struct {
	id         int64
	ext, text  string
	source     int64
	sourceExt  string
	position   int
	start, end *time.Time
}

// summaryGroup is a group to summarize: its summary's id, the grouping, the group's name,
// the source a session summary belongs to, and the members in order.
type summaryGroup struct {
	id, by, group, source string
	members               []summaryMember
}

// summaryInput is a scope set's memories, mentions and relations.
type summaryInput struct {
	memories  []summaryMember
	mentions  map[int64][]int64 // memory -> entities
	relations [][2]int64
	weights   []float64
	entities  map[int64]string // entity -> external id
}

func (e *Engine) summaryInput(ctx context.Context, who caller, set []string) (*summaryInput, error) {
	in := &summaryInput{mentions: map[int64][]int64{}, entities: map[int64]string{}}
	q, err := sqltext.Write.ReadFile("write/summarize_input.sql")
	if err != nil {
		return nil, err
	}
	err = pgx.BeginTxFunc(ctx, e.cfg.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.read, who.write); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, string(q), pgx.NamedArgs{"scopes": set})
		if err != nil {
			return err
		}
		var kind, name, text, source string
		var a, b int64
		var w float64
		var position int
		var start, end *time.Time
		_, err = pgx.ForEachRow(rows, []any{&kind, &a, &b, &w, &name, &text, &source, &position, &start, &end}, func() error {
			switch kind {
			case "memory":
				in.memories = append(in.memories, summaryMember{id: a, ext: name, text: text, source: b, sourceExt: source, position: position, start: start, end: end})
			case "mention":
				in.mentions[a] = append(in.mentions[a], b)
			case "relation":
				in.relations = append(in.relations, [2]int64{a, b})
				in.weights = append(in.weights, w)
			case "entity":
				in.entities[a] = name
			}
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recall: summarize: reading the scope set: %w", err)
	}
	slices.SortFunc(in.memories, func(x, y summaryMember) int {
		return cmp.Or(cmp.Compare(x.source, y.source), cmp.Compare(x.position, y.position), cmp.Compare(x.id, y.id))
	})
	for _, es := range in.mentions {
		slices.Sort(es)
	}
	return in, nil
}

// sessions groups the memories by source, in their places' order.
func (in *summaryInput) sessions() []summaryGroup {
	bySource := map[int64][]summaryMember{}
	var order []int64
	for _, m := range in.memories {
		if m.source == 0 {
			continue
		}
		if _, ok := bySource[m.source]; !ok {
			order = append(order, m.source)
		}
		bySource[m.source] = append(bySource[m.source], m)
	}
	var out []summaryGroup
	for _, s := range order {
		ms := bySource[s]
		out = append(out, parts(SummaryPrefix+BySession+":"+ms[0].sourceExt, BySession, ms[0].sourceExt, ms[0].sourceExt, ms)...)
	}
	return out
}

// communities groups the memories by the community of the relation graph most of the
// entities they mention are in (ties: the community named first). Communities come from
// label propagation: each entity starts in its own; in rounds, each entity in id order takes
// the community with the most relation weight among its neighbours (ties: the smallest
// id), until no entity changes or communityRounds rounds. A community is named by the
// smallest external id of its entities.
func (in *summaryInput) communities() []summaryGroup {
	adj := map[int64]map[int64]float64{}
	for i, r := range in.relations {
		for _, x := range [][2]int64{r, {r[1], r[0]}} {
			if adj[x[0]] == nil {
				adj[x[0]] = map[int64]float64{}
			}
			adj[x[0]][x[1]] += in.weights[i]
		}
	}
	nodes := make([]int64, 0, len(adj))
	for n := range adj {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	label := make(map[int64]int64, len(nodes))
	for _, n := range nodes {
		label[n] = n
	}
	for range communityRounds {
		changed := false
		for _, n := range nodes {
			score := map[int64]float64{}
			for nb, w := range adj[n] {
				score[label[nb]] += w
			}
			best := label[n]
			for l, s := range score {
				if s > score[best] || (s == score[best] && l < best) {
					best = l
				}
			}
			if best != label[n] {
				label[n], changed = best, true
			}
		}
		if !changed {
			break
		}
	}
	name := map[int64]string{} // community -> smallest external id of its entities
	for _, n := range nodes {
		l := label[n]
		if x, ok := name[l]; !ok || in.entities[n] < x {
			name[l] = in.entities[n]
		}
	}
	byCommunity := map[int64][]summaryMember{}
	for _, m := range in.memories {
		count := map[int64]int{}
		var best int64
		for _, en := range in.mentions[m.id] {
			l, ok := label[en]
			if !ok {
				continue
			}
			count[l]++
			if c := count[l]; best == 0 || c > count[best] || (c == count[best] && name[l] < name[best]) {
				best = l
			}
		}
		if best != 0 {
			byCommunity[best] = append(byCommunity[best], m)
		}
	}
	ls := make([]int64, 0, len(byCommunity))
	for l := range byCommunity {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(a, b int64) int { return cmp.Compare(name[a], name[b]) })
	var out []summaryGroup
	for _, l := range ls {
		out = append(out, parts(SummaryPrefix+ByCommunity+":"+name[l], ByCommunity, name[l], "", byCommunity[l])...)
	}
	return out
}

// parts cuts a group of at least MinGroup members into parts of at most MaxGroup, the first
// named id, the next id:2, id:3...
func parts(id, by, group, source string, ms []summaryMember) []summaryGroup {
	if len(ms) < MinGroup {
		return nil
	}
	var out []summaryGroup
	for i := 0; i < len(ms); i += MaxGroup {
		part := ms[i:min(len(ms), i+MaxGroup)]
		if len(part) < MinGroup && i > 0 {
			out[len(out)-1].members = append(out[len(out)-1].members, part...)
			break
		}
		pid := id
		if len(id)+8 > MaxIDLen { // the group's name is too long for an id (":NNNNNNN" included)
			sum := sha256.Sum256([]byte(group))
			pid = SummaryPrefix + by + ":sha256:" + hex.EncodeToString(sum[:])
		}
		if i > 0 {
			pid += ":" + strconv.Itoa(i/MaxGroup+1)
		}
		out = append(out, summaryGroup{id: pid, by: by, group: group, source: source, members: part})
	}
	return out
}
