// Package cli is what the recall and aizk-eval commands share: subcommand dispatch with exit
// statuses, flags anywhere among the arguments, and the database connection (a configured
// server or the embedded one). Only the commands import it.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Env is a command's outputs and environment, so tests can run commands in-process.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// Command is one subcommand.
type Command struct {
	Summary string
	Run     func(ctx context.Context, args []string) error
}

// ErrUsage marks an error in the command line (exit status 2).
var ErrUsage = errors.New("usage")

// ExitStatus ends a command with Code and no further message: the command has said what
// there is to say ("recall db status" prints "stopped" and exits 3).
type ExitStatus struct{ Code int }

func (e *ExitStatus) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Run dispatches args to a subcommand of prog and returns the exit status: 0, 1 for a
// failure, 2 for a usage error.
func Run(ctx context.Context, env Env, prog string, cmds map[string]Command, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(env, prog, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "%s: unknown command %q\n", prog, args[0])
		usage(env, prog, cmds)
		return 2
	}
	err := c.Run(ctx, args[1:])
	var status *ExitStatus
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &status):
		return status.Code
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(env.Stderr, "%s %s: %s\n", prog, args[0], Message(err))
		return 2
	default:
		fmt.Fprintf(env.Stderr, "%s %s: %s\n", prog, args[0], Message(err))
		return 1
	}
}

// Message is err's text for a line that already starts with the command's name: the
// library's own "recall: " prefixes say nothing more there ("recall query: recall: query:
// empty" reads "recall query: query: empty").
func Message(err error) string {
	return strings.ReplaceAll(err.Error(), "recall: ", "")
}

func usage(env Env, prog string, cmds map[string]Command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(env.Stderr, "usage: %s COMMAND [arguments]\n\ncommands:\n", prog)
	for _, n := range names {
		fmt.Fprintf(env.Stderr, "  %-8s %s\n", n, cmds[n].Summary)
	}
}

// Parse parses flags anywhere among the arguments and returns the positional ones.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// Flags returns a flag set that reports errors on env's stderr.
func (env Env) Flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}
