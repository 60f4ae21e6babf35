package recall

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"

	"github.com/recall-engine/recall/internal/dberr"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/internal/telemetry"
	sqltext "github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/write"
)

// Consolidator proposes supersessions among statements about one subject, oldest first: the
// (older, newer) pairs, 0-based, in which the newer replaces the older, and how many of its
// answer's lines it could not read. summarize.Chat is one, through an OpenAI-compatible chat
// model.
type Consolidator interface {
	Name() string
	Supersessions(ctx context.Context, about string, statements []string) (pairs [][2]int, bad int, err error)
}

// ConsolidateOptions shape Consolidate.
type ConsolidateOptions struct {
	Scopes   []string     // the scope set (nil: the user's only write scope)
	Model    Consolidator // required: without a model nothing is guessed
	MaxGroup int          // the most recent memories asked about per entity (0: 20)
	DryRun   bool         // propose, write nothing
}

// Proposal is one supersession a model proposed: Old no longer holds, New replaces it
// (external ids), About the entity both name.
type Proposal struct {
	About string `json:"about"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// ConsolidateResult is what Consolidate asked and did.
type ConsolidateResult struct {
	Groups     int        `json:"groups"`     // entities asked about
	Proposals  []Proposal `json:"proposals"`  // in the order asked
	Unread     int        `json:"unread"`     // lines of the model's answers not read as a supersession
	Superseded int        `json:"superseded"` // memories marked (0 in a dry run)
}

// ErrNoModel is returned by Consolidate without a model.
var ErrNoModel = errors.New("recall: consolidate needs a chat model (ConsolidateOptions.Model): without one nothing is guessed")

// Consolidate asks the model, for each entity that two or more holding memories of the scope
// set name, which of them a later one replaces, and marks those superseded by it (as
// Supersede does, from the newer one's time), each with the model's name and the entity in
// its metadata (superseded_note). A model's answer is read strictly: an older statement never
// replaces a newer one, and what cannot be read is counted, not guessed. It reads and writes
// as the user, under row security.
func (e *Engine) Consolidate(ctx context.Context, user User, o ConsolidateOptions) (_ ConsolidateResult, err error) {
	ctx, span := telemetry.Start(ctx, "recall.consolidate")
	defer func() { telemetry.End(span, err) }()
	var res ConsolidateResult
	if o.Model == nil {
		return res, ErrNoModel
	}
	if o.MaxGroup <= 0 {
		o.MaxGroup = 20
	}
	who, err := user.check()
	if err != nil {
		return res, err
	}
	sc, err := write.Scopes(who.write, o.Scopes)
	if err != nil {
		return res, err
	}
	type group struct {
		name       string
		ids, texts []string
	}
	var groups []group
	err = pgx.BeginTxFunc(ctx, e.cfg.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := scope.Apply(ctx, tx, who.read, who.write); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, sqltext.ConsolidateGroups, pgx.StrictNamedArgs{"scopes": sc, "now": e.cfg.Now(), "max": o.MaxGroup})
		if err != nil {
			return err
		}
		var g group
		_, err = pgx.ForEachRow(rows, []any{&g.name, &g.ids, &g.texts}, func() error { groups = append(groups, g); return nil })
		return err
	})
	if err != nil {
		return res, dberr.Interpret(ctx, "recall: consolidate", err)
	}
	res.Groups = len(groups)
	newest := map[string]int{} // an old memory's proposal, by its id: the newest replacement wins
	for _, g := range groups {
		pairs, bad, err := o.Model.Supersessions(ctx, g.name, g.texts)
		if err != nil {
			return res, fmt.Errorf("recall: consolidate: %s about %q: %w", o.Model.Name(), g.name, err)
		}
		res.Unread += bad
		for _, p := range pairs {
			prop := Proposal{About: g.name, Old: g.ids[p[0]], New: g.ids[p[1]]}
			if i, ok := newest[prop.Old]; ok {
				res.Proposals[i] = prop // asked again under another entity: the later answer's
				continue
			}
			newest[prop.Old] = len(res.Proposals)
			res.Proposals = append(res.Proposals, prop)
		}
	}
	span.SetAttributes(attribute.Int("recall.groups", res.Groups), attribute.Int("recall.proposals", len(res.Proposals)))
	if o.DryRun {
		return res, nil
	}
	for _, p := range res.Proposals {
		note := fmt.Sprintf("recall consolidate, %s, about %s", o.Model.Name(), p.About)
		n, err := e.writer.Supersede(ctx, who.read, who.write, sc, p.New, []string{p.Old}, nil, note)
		if err != nil {
			return res, err
		}
		res.Superseded += n
	}
	if res.Superseded > 0 {
		e.noteWrite(ctx, user)
	}
	return res, nil
}
