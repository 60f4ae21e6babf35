// Command recall runs the recall engine: migrations, ingest, queries, the demo, the embedded
// database, and model downloads. Each subcommand lives in its own file; this is the only
// package (with cmd/aizk-eval) that parses flags, prints and exits.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := (&Main{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}).Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Main is the command with its outputs and environment, so tests can run it in-process.
type Main struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

type command struct {
	summary string
	run     func(m *Main, ctx context.Context, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"models":  {"fetch an ONNX model from a Hugging Face style hub (models pull NAME --dir DIR)", (*Main).models},
		"db":      {"the embedded database: start, stop, status, url", (*Main).db},
		"migrate": {"apply or roll back the schema migrations: up, down, status", (*Main).migrate},
		"ingest":  {"load JSONL files: native records, a BEIR corpus, conversation turns", (*Main).ingest},
		"query":   {"recall evidence for a question within a token budget", (*Main).query},
		"demo":    {"load a small demo corpus (once) and answer a few questions", (*Main).demo},
	}
}

// errUsage marks an error in the command line (exit status 2).
var errUsage = errors.New("usage")

// Run runs one subcommand and returns the exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		m.usage(cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(m.Stderr, "recall: unknown command %q\n", args[0])
		m.usage(cmds)
		return 2
	}
	err := c.run(m, ctx, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(m.Stderr, "recall %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(m.Stderr, "recall %s: %v\n", args[0], err)
		return 1
	}
}

func (m *Main) usage(cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(m.Stderr, "usage: recall COMMAND [arguments]\n\ncommands:")
	for _, n := range names {
		fmt.Fprintf(m.Stderr, "  %-8s %s\n", n, cmds[n].summary)
	}
}

// parse parses flags anywhere among the arguments and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func newFlags(m *Main, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	return fs
}
