package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/command/progress"
	"github.com/recall-engine/recall/summarize"
)

// summarize: recall summarize --scope S [--by session,community] [--max-tokens N]
// [--chat-url URL --chat-model M [--chat-key-env VAR]]
func (m *Main) summarize(ctx context.Context, args []string) error {
	fs := m.Flags("summarize")
	scope := fs.String("scope", "default", "the scope to summarize")
	by := fs.String("by", "session,community", "groupings, comma-separated: session (a source's memories), community (an entity community's)")
	maxTokens := fs.Int("max-tokens", recall.DefaultSummaryTokens, "a summary's token cap")
	chatURL := fs.String("chat-url", "", "an OpenAI-compatible server (e.g. http://localhost:11434/v1) to write the summaries; default: the built-in extractive summarizer")
	chatModel := fs.String("chat-model", "", "with --chat-url: the model")
	chatKey := fs.String("chat-key-env", "", "with --chat-url: the environment variable holding its API key")
	chatTimeout := fs.Duration("chat-timeout", 60*time.Second, "with --chat-url: per request")
	var ef cli.EngineFlags
	ef.RegisterEmbedder(fs)
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall summarize --scope S [flags]\n\n"+
			"Groups the scope's memories by session and by entity community, writes a summary of each\n"+
			"group of at least "+fmt.Sprint(recall.MinGroup)+" memories (kind summary, covering them), and deletes the\n"+
			"summaries of groups that are gone. Run it again after writes: it replaces, never duplicates.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("%w: no positional arguments", cli.ErrUsage)
	}
	opts := recall.SummarizeOptions{Scopes: []string{*scope}, By: strings.Split(*by, ","), MaxTokens: *maxTokens}
	if *chatURL != "" {
		if opts.Summarizer, err = summarize.NewChat(summarize.ChatConfig{BaseURL: *chatURL, Model: *chatModel, APIKeyEnv: *chatKey, Timeout: *chatTimeout}); err != nil {
			return fmt.Errorf("%w: %v", cli.ErrUsage, err)
		}
	}
	emb, err := ef.Embedder(ctx)
	if err != nil {
		return err
	}
	c, err := m.Connect(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()
	e, err := recall.New(ctx, recall.Config{Pool: c.Runtime, NoAccess: true, Embedder: emb})
	if err != nil {
		return err
	}
	var bar *progress.Bar
	opts.Progress = func(done, total int) {
		if bar == nil {
			bar = progress.New(m.Stderr, "summaries", int64(total), false)
		}
		bar.Set(int64(done))
	}
	start := time.Now()
	user := recall.User{ID: "summarize", Read: []string{*scope}, Write: []string{*scope}}
	res, err := e.Summarize(ctx, user, opts)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return flagError(err)
	}
	fmt.Fprintf(m.Stdout, "scope %s: %d summaries written (%d by session, %d by community), %d (summary, memory) links, %d old ones deleted, in %v\n",
		*scope, res.Written, res.Groups[recall.BySession], res.Groups[recall.ByCommunity], res.Covered, res.Pruned, time.Since(start).Round(time.Millisecond))
	return nil
}
