package summarize

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/write"
)

// Ways to group memories.
const (
	BySession   = "session"   // the memories of one source, in their places' order
	ByCommunity = "community" // the memories that mention the entities of one community of the relation graph
)

// Limits of grouping.
const (
	// MinGroup is the fewest memories a group needs to be summarized.
	MinGroup = 3
	// MaxGroup is the most memories one summary covers: a larger group is summarized in
	// consecutive parts of MaxGroup (its ids get ":2", ":3"...).
	MaxGroup = 200
	// communityRounds bounds label propagation.
	communityRounds = 20
)

// Prefix starts the ids of the summaries the engine writes; it owns every memory of the
// scope set whose id starts so, and replaces them on each run.
const Prefix = "recall-summary:"

// Member is a memory a group may hold.
type Member struct {
	ID         int64
	ExternalID string
	Text       string
	Source     int64
	SourceExt  string
	Position   int
	Start, End *time.Time
}

// Group is a group to summarize: its summary's id, the grouping, the group's name, the
// source a session summary belongs to, and the members in order.
type Group struct {
	ID, By, Name, Source string
	Members              []Member
}

// Input is a scope set's memories, mentions and relations, as grouping reads them.
type Input struct {
	memories  []Member
	mentions  map[int64][]int64 // memory -> entities
	relations [][2]int64
	weights   []float64
	entities  map[int64]string // entity -> external id
}

// Tx starts a read-only transaction (a *pgxpool.Pool does).
type Tx interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// ReadInput reads scope set set's memories (not summaries), their mentions, the relations
// between its entities and the entities' ids, in one read-only transaction as a caller of
// read and write scopes (sql/read/summarize_input.sql, under row security).
func ReadInput(ctx context.Context, db Tx, read, write, set []string) (*Input, error) {
	in := &Input{mentions: map[int64][]int64{}, entities: map[int64]string{}}
	err := pgx.BeginTxFunc(ctx, db, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, read, write); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sqltext.SummarizeInput, pgx.StrictNamedArgs{"scopes": set})
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
				in.memories = append(in.memories, Member{ID: a, ExternalID: name, Text: text, Source: b, SourceExt: source, Position: position, Start: start, End: end})
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
		return nil, dberr.Interpret(ctx, "summarize: reading the scope set", err)
	}
	slices.SortFunc(in.memories, func(x, y Member) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Position, y.Position), cmp.Compare(x.ID, y.ID))
	})
	for _, es := range in.mentions {
		slices.Sort(es)
	}
	return in, nil
}

// Sessions groups the memories by source, in their places' order.
func (in *Input) Sessions() []Group {
	bySource := map[int64][]Member{}
	var order []int64
	for _, m := range in.memories {
		if m.Source == 0 {
			continue
		}
		if _, ok := bySource[m.Source]; !ok {
			order = append(order, m.Source)
		}
		bySource[m.Source] = append(bySource[m.Source], m)
	}
	var out []Group
	for _, s := range order {
		ms := bySource[s]
		out = append(out, parts(Prefix+BySession+":"+ms[0].SourceExt, BySession, ms[0].SourceExt, ms[0].SourceExt, ms)...)
	}
	return out
}

// Communities groups the memories by the community of the relation graph most of the
// entities they mention are in (ties: the community named first). Communities come from
// label propagation (Communities' labels); a community is named by the smallest external id
// of its entities.
func (in *Input) Communities() []Group {
	label := in.labels()
	name := map[int64]string{} // community -> smallest external id of its entities
	for n, l := range label {
		if x, ok := name[l]; !ok || in.entities[n] < x {
			name[l] = in.entities[n]
		}
	}
	byCommunity := map[int64][]Member{}
	for _, m := range in.memories {
		count := map[int64]int{}
		var best int64
		for _, en := range in.mentions[m.ID] {
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
	var out []Group
	for _, l := range ls {
		out = append(out, parts(Prefix+ByCommunity+":"+name[l], ByCommunity, name[l], "", byCommunity[l])...)
	}
	return out
}

// labels runs label propagation over the relation graph: each entity starts in its own
// community; in rounds, each entity in id order takes the community with the most relation
// weight among its neighbours (ties: the smallest id), until no entity changes or
// communityRounds rounds. It returns each related entity's community.
func (in *Input) labels() map[int64]int64 {
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
	return label
}

// parts cuts a group of at least MinGroup members into parts of at most MaxGroup, the first
// named id, the next id:2, id:3...
func parts(id, by, group, source string, ms []Member) []Group {
	if len(ms) < MinGroup {
		return nil
	}
	var out []Group
	for i := 0; i < len(ms); i += MaxGroup {
		part := ms[i:min(len(ms), i+MaxGroup)]
		if len(part) < MinGroup && i > 0 {
			out[len(out)-1].Members = append(out[len(out)-1].Members, part...)
			break
		}
		pid := id
		if len(id)+8 > write.MaxIDLen { // the group's name is too long for an id (":NNNNNNN" included)
			sum := sha256.Sum256([]byte(group))
			pid = Prefix + by + ":sha256:" + hex.EncodeToString(sum[:])
		}
		if i > 0 {
			pid += ":" + strconv.Itoa(i/MaxGroup+1)
		}
		out = append(out, Group{ID: pid, By: by, Name: group, Source: source, Members: part})
	}
	return out
}
