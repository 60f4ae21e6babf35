// Command recall runs the recall engine: migrations, ingest, queries, the demo, the embedded
// database, and model downloads. Each subcommand lives in its own file; this is the only
// package (with cmd/aizk-eval) that parses flags, prints and exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/internal/telemetry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := (&Main{cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}}).Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Main is the command with its outputs and environment, so tests can run it in-process.
type Main struct{ cli.Env }

// Run runs one subcommand and returns the exit status. When the OTEL_* environment asks for
// traces (package telemetry), every subcommand exports its spans, flushed before it returns.
func (m *Main) Run(ctx context.Context, args []string) int {
	shutdown, on, err := telemetry.Setup(ctx, m.Getenv, "recall")
	if err != nil {
		fmt.Fprintln(m.Stderr, "recall:", err)
		return 2
	}
	if on {
		defer func() {
			// A collector that does not answer costs the command at most this long.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := shutdown(ctx); err != nil {
				fmt.Fprintln(m.Stderr, "recall: exporting traces:", err)
			}
		}()
	}
	return m.run(ctx, args)
}

func (m *Main) run(ctx context.Context, args []string) int {
	return cli.Run(ctx, m.Env, "recall", map[string]cli.Command{
		"models":      {Summary: "fetch an ONNX model from a Hugging Face style hub (models pull NAME --dir DIR)", Run: m.models},
		"db":          {Summary: "the embedded database: start, stop, status, url", Run: m.db},
		"migrate":     {Summary: "apply or roll back the schema migrations: up, down, status", Run: m.migrate},
		"ingest":      {Summary: "load JSONL files: native records, a BEIR corpus, conversation turns", Run: m.ingest},
		"query":       {Summary: "recall evidence for a question within a token budget", Run: m.query},
		"prune":       {Summary: "delete a scope set's expired memories (prune --scope S)", Run: m.prune},
		"export":      {Summary: "write a scope set as native JSONL records that ingest reads back (export --scope S --out F)", Run: m.export},
		"erase":       {Summary: "remove everything of a scope set, with a receipt (erase --scope S --yes)", Run: m.erase},
		"consolidate": {Summary: "ask a chat model which memories a later one replaces, and mark them (consolidate --scope S --chat-url URL --chat-model M)", Run: m.consolidate},
		"supersede":   {Summary: "mark stored memories as replaced by a newer one (supersede --scope S NEW OLD...)", Run: m.supersede},
		"summarize":   {Summary: "build the summaries of a scope by session and entity community (summarize --scope S)", Run: m.summarize},
		"serve":       {Summary: "serve the HTTP API and MCP (/mcp) to holders of API keys", Run: m.serve},
		"mcp":         {Summary: "serve MCP over stdio as the key in RECALL_API_KEY", Run: m.mcp},
		"keys":        {Summary: "API keys: create, list, revoke", Run: m.keysCmd},
		"demo":        {Summary: "load a small demo corpus (once) and answer a few questions", Run: m.demo},
		"version":     {Summary: "the version, the commit built from, and the schema it migrates to", Run: m.versionCmd},
	}, args)
}
