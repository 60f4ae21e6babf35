package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/summarize"
)

// consolidate: recall consolidate --scope S --chat-url URL --chat-model M [--chat-key-env VAR] [--dry-run]
func (m *Main) consolidate(ctx context.Context, args []string) error {
	fs := m.Flags("consolidate")
	scope := fs.String("scope", "default", "the scope set to consolidate")
	chatURL := fs.String("chat-url", "", "an OpenAI-compatible server (e.g. http://localhost:11434/v1) whose model proposes the supersessions (required)")
	chatModel := fs.String("chat-model", "", "with --chat-url: the model")
	chatKey := fs.String("chat-key-env", "", "with --chat-url: the environment variable holding its API key")
	chatTimeout := fs.Duration("chat-timeout", 60*time.Second, "with --chat-url: per request")
	group := fs.Int("group", 20, "the most recent memories asked about per entity")
	dryRun := fs.Bool("dry-run", false, "print the proposals, write nothing")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: recall consolidate --scope S --chat-url URL --chat-model M [flags]\n\n"+
			"Asks the chat model, for each entity that two or more memories of the scope set name, which of\n"+
			"them a later one replaces, and marks those superseded by it (recall then answers with the newer;\n"+
			"query --as-of asks about before), the model and the entity kept in the old memory's metadata\n"+
			"(superseded_note). Without a model nothing is guessed.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *chatURL == "" {
		fs.Usage()
		return fmt.Errorf("%w: --chat-url and --chat-model are required: without a model nothing is guessed", cli.ErrUsage)
	}
	chat, err := summarize.NewChat(summarize.ChatConfig{BaseURL: *chatURL, Model: *chatModel, APIKeyEnv: *chatKey, Timeout: *chatTimeout})
	if err != nil {
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	e, done, err := m.maintenance(ctx)
	if err != nil {
		return err
	}
	defer done()
	user := recall.User{ID: "consolidate", Read: []string{*scope}, Write: []string{*scope}}
	res, err := e.Consolidate(ctx, user, recall.ConsolidateOptions{Scopes: []string{*scope}, Model: chat, MaxGroup: *group, DryRun: *dryRun})
	if errors.Is(err, recall.ErrNoModel) {
		return fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	if err != nil {
		return flagError(err)
	}
	for _, p := range res.Proposals {
		fmt.Fprintf(m.Stdout, "%s: %s superseded by %s\n", p.About, p.Old, p.New)
	}
	verb, n := "superseded", res.Superseded
	if *dryRun {
		verb, n = "would supersede (dry run)", len(res.Proposals)
	}
	fmt.Fprintf(m.Stdout, "scope set %s: %d entities asked about, %d proposals, %d lines unread; %s %d memories\n",
		*scope, res.Groups, len(res.Proposals), res.Unread, verb, n)
	return nil
}
