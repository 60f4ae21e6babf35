package recall_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/embed"
	"github.com/recall-engine/recall/extract"
	"github.com/recall-engine/recall/internal/testkit/synth"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// BenchmarkLongChat: one user's long chat with an assistant (synth.Chat: RECALL_BENCH_CHAT_N
// messages, default 1,200, of 100-400 words, in sessions of 20), written through Engine.Write
// once per server and kept; the engine's recall (the default plan) against the bm25 plan
// alone, the two alternating question by question, at a pack budget of 2,000 tokens, access
// recording off. Reports each arm's p50 and p95 of the whole recall, their ratios (the goal:
// p95 within 2x of the bm25 plan's), and the default plan's stages at p95, to show where a
// slow recall spends its time.
func BenchmarkLongChat(b *testing.B) {
	ch := synth.NewChat(synth.ChatConfig{Messages: envInt(b, "RECALL_BENCH_CHAT_N", 1200, 100)})
	emb, err := embed.NewHashing(0)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	user := recall.User{ID: "bench", Read: []string{"chat"}, Write: []string{"chat"}}
	db := testdb.Persistent(b, fmt.Sprintf("chat%d_x%d_%d_%d", synth.ChatVersion, extract.Version, ch.Cfg.Messages, ch.Cfg.Seed), func(db *testdb.DB) error {
		e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb})
		if err != nil {
			return err
		}
		start := time.Now()
		for s := range ch.Sessions() {
			batch := recall.Batch{Sources: []recall.Source{{ID: fmt.Sprintf("session%d", s), Title: ""}}}
			for i := s * ch.Cfg.PerSession; i < min(ch.Cfg.Messages, (s+1)*ch.Cfg.PerSession); i++ {
				t := ch.Turn(i)
				at := t.At
				batch.Memories = append(batch.Memories, recall.Memory{ID: t.ID, Source: batch.Sources[0].ID, Kind: "experience",
					Text: t.Text, Speaker: t.Speaker, Position: t.Position, OccurredStart: &at})
			}
			if _, err := e.Write(ctx, user, batch); err != nil {
				return err
			}
			if (s+1)%10 == 0 {
				fmt.Fprintf(os.Stderr, "chat: %d/%d sessions (%v)\n", s+1, ch.Sessions(), time.Since(start).Round(time.Second))
			}
		}
		return nil
	})
	e, err := recall.New(ctx, recall.Config{Pool: db.Runtime, Embedder: emb, NoAccess: true, Now: func() time.Time { return synth.Base.AddDate(1, 0, 0) }})
	if err != nil {
		b.Fatal(err)
	}
	arms := []struct {
		name string
		opts *recall.Options
	}{{"default", nil}, {"bm25", &recall.Options{Plan: statement.Only(statement.BM25)}}}
	lat := make([][]time.Duration, len(arms))
	var stages [4][]time.Duration // the default plan's statement, order, pack, rest
	found, i := 0, 0
	for b.Loop() {
		q, want := ch.Question(i)
		for a, arm := range arms {
			p, err := e.Recall(ctx, user, q, 2000, arm.opts)
			if err != nil {
				b.Fatal(err)
			}
			lat[a] = append(lat[a], p.Timings.Total)
			if a == 0 {
				t := p.Timings
				stages[0] = append(stages[0], t.Statement)
				stages[1] = append(stages[1], t.Order)
				stages[2] = append(stages[2], t.Pack)
				stages[3] = append(stages[3], t.Total-t.Statement-t.Order-t.Pack)
				for _, it := range p.Items[:min(10, len(p.Items))] {
					if it.ExternalID == want {
						found++
					}
				}
			}
		}
		i++
	}
	for a, arm := range arms {
		b.ReportMetric(ms(percentile(lat[a], 0.5)), arm.name+"_p50_ms")
		b.ReportMetric(ms(percentile(lat[a], 0.95)), arm.name+"_p95_ms")
	}
	b.ReportMetric(float64(percentile(lat[0], 0.5))/float64(percentile(lat[1], 0.5)), "p50_x_bm25")
	b.ReportMetric(float64(percentile(lat[0], 0.95))/float64(percentile(lat[1], 0.95)), "p95_x_bm25")
	for s, name := range []string{"statement", "order", "pack", "rest"} {
		b.ReportMetric(ms(percentile(stages[s], 0.95)), name+"_p95_ms")
	}
	b.ReportMetric(float64(found)/float64(i), "found_in_10")
}
