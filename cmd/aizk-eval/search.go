package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/eval"
	"github.com/recall-engine/recall/internal/scope"
	"github.com/recall-engine/recall/records"
	"github.com/recall-engine/recall/sql"
	"github.com/recall-engine/recall/statement"
	"github.com/recall-engine/recall/summarize"
)

// options are the recall options of query q: its time, when a field holds it.
func (d datasetFlags) options(q eval.Query) (*recall.Options, error) {
	alt, err := recall.ParseAltitude(d.altitude)
	if err != nil {
		return nil, err
	}
	pass, err := recall.ParsePassages(d.passages)
	if err != nil {
		return nil, err
	}
	opts := &recall.Options{Altitude: alt, Passages: pass}
	if d.queryTime != "" {
		if v, ok := q.Meta[d.queryTime].(string); ok {
			t, err := records.ParseTime(v, d.layouts()...)
			if err != nil {
				return nil, fmt.Errorf("query %s: %s: %w", q.ID, d.queryTime, err)
			}
			opts.Now = t
		}
	}
	if d.asOfField != "" {
		if v, ok := q.Meta[d.asOfField].(string); ok {
			t, err := records.ParseTime(v, d.layouts()...)
			if err != nil {
				return nil, fmt.Errorf("query %s: %s: %w", q.ID, d.asOfField, err)
			}
			opts.AsOf = t
		}
	}
	return opts, nil
}

// layouts are the time layouts --time-layout names.
func (d datasetFlags) layouts() []string {
	if d.timeLayout == "" {
		return nil
	}
	return []string{d.timeLayout}
}

// queryUser is who asks query q: a reader of its scope, labelled with its speaker.
func (d datasetFlags) queryUser(q eval.Query) (recall.User, error) {
	sc, err := d.docScope(q.Meta)
	if err != nil {
		return recall.User{}, fmt.Errorf("query %s: %w", q.ID, err)
	}
	u := recall.User{ID: "aizk-eval", Read: []string{sc}}
	if d.speakerField != "" {
		if v, ok := q.Meta[d.speakerField].(string); ok {
			u.Label = v
		}
	}
	return u, nil
}

// search is the study's SearchFunc: the full recall path (no reranker configured). With
// budget 0, a budget large enough to pack every candidate, so the pack is the ranking. Its
// stages go to stages (nil: not logged), a recall at a pack budget N as the arm "plan @N":
// what a recall costs when it packs what fits, not every candidate.
func (d datasetFlags) search(e *recall.Engine, owner *pgxpool.Pool, stages *eval.StageLog) eval.SearchFunc {
	return func(ctx context.Context, q eval.Query, plan statement.Plan, budget int) ([]string, error) {
		u, err := d.queryUser(q)
		if err != nil {
			return nil, err
		}
		ranking := budget == 0
		if ranking {
			budget = 1_000_000
		}
		opts, err := d.options(q)
		if err != nil {
			return nil, err
		}
		opts.Plan = plan
		p, err := e.Recall(ctx, u, q.Text, budget, opts)
		if err != nil {
			return nil, err
		}
		if stages != nil {
			t, arm := p.Timings, plan.String()
			if !ranking {
				arm = fmt.Sprintf("%s @%d", arm, budget)
			}
			stages.Add(arm, eval.Stages{Embed: t.Embed, Entities: t.Entities, Statement: t.Statement,
				Order: t.Order, Rerank: t.Rerank, Pack: t.Pack, Total: t.Total})
		}
		return carried(ctx, owner, p)
	}
}

// carried lists the pack's memories in order, each summary as the covered memories it
// carries whole: those all of whose sentences are in the summary's text. An extractive
// summary holds some of its group's sentences; a memory it holds only in part, or not at
// all, is not evidence the pack gives. A memory an item names as saying its words again
// (AlsoSaid) follows that item: its words are in the pack.
func carried(ctx context.Context, owner *pgxpool.Pool, p *recall.Pack) ([]string, error) {
	var covered []int64
	for _, it := range p.Items {
		if it.Kind == "summary" {
			covered = append(covered, it.Covers...)
		}
	}
	if len(covered) == 0 {
		var out []string
		for _, it := range p.Items {
			out = append(out, it.ExternalID)
			for _, r := range it.AlsoSaid {
				out = append(out, r.ExternalID)
			}
		}
		return out, nil
	}
	type memory struct{ ext, text string }
	texts := map[int64]memory{}
	rows, err := owner.Query(ctx, sqltext.MemoryTexts, pgx.StrictNamedArgs{"ids": covered})
	if err != nil {
		return nil, err
	}
	var id int64
	var m memory
	if _, err := pgx.ForEachRow(rows, []any{&id, &m.ext, &m.text}, func() error { texts[id] = m; return nil }); err != nil {
		return nil, err
	}
	var out []string
	for _, it := range p.Items {
		if it.Kind != "summary" {
			out = append(out, it.ExternalID)
			for _, r := range it.AlsoSaid {
				out = append(out, r.ExternalID)
			}
			continue
		}
		has := map[string]bool{}
		for _, x := range summarize.Sentences([]string{it.Text}) {
			has[x] = true
		}
		for _, c := range it.Covers {
			whole := true
			for _, x := range summarize.Sentences([]string{texts[c].text}) {
				whole = whole && has[x]
			}
			if whole {
				out = append(out, texts[c].ext)
			}
		}
	}
	return out, nil
}

// baselineExactVector names the plain baseline every bench runs beside the engine's plans.
const baselineExactVector = "exact-vector"

// exactVector is the plain baseline: the question (raw, as the user asked it) embedded by the
// engine's embedder, and the caller's memories nearest to it by exact cosine distance in one
// SQL query as the caller (sql/read/eval_exact_vector.sql): what pgvector alone gives with
// the same embedder and the same memories.
func (d datasetFlags) exactVector(e *recall.Engine, runtime *pgxpool.Pool) eval.Baseline {
	return eval.Baseline{Name: baselineExactVector, Search: func(ctx context.Context, q eval.Query, _ int) ([]string, error) {
		u, err := d.queryUser(q)
		if err != nil {
			return nil, err
		}
		read, err := scope.Normalize("read", u.Read)
		if err != nil {
			return nil, err
		}
		vs, err := e.Embedder().Embed(ctx, []string{q.Text}, embed.Query)
		if err != nil {
			return nil, err
		}
		var ids []string
		err = pgx.BeginTxFunc(ctx, runtime, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if err := scope.Apply(ctx, tx, read, nil); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, sqltext.EvalExactVector, pgx.StrictNamedArgs{"qvec": pgvector.NewVector(vs[0]), "k": 100})
			if err != nil {
				return err
			}
			ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		})
		return ids, err
	}}
}
