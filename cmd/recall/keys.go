package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/recall-engine/recall/internal/command/cli"
	"github.com/recall-engine/recall/keys"
)

// keysCmd: recall keys create|list|revoke
func (m *Main) keysCmd(ctx context.Context, args []string) error {
	usage := "usage: recall keys create --user NAME --read S[,S] [--write S[,S]] [--label L] [--admin]\n" +
		"       recall keys list [--json]\n       recall keys revoke ID\n\n" +
		"An API key is a user of recall serve and recall mcp: it reads its read scopes and writes\n" +
		"its write scopes. create prints the key once (only its hash is stored); list shows every\n" +
		"key, revoked ones too; revoke takes effect on the key's next request. An admin key may\n" +
		"also erase any scope set over HTTP (DELETE /v1/scopes/{scope}).\n" +
		"(recall keys SUBCOMMAND --help lists a subcommand's flags.)"
	if len(args) == 0 {
		fmt.Fprintln(m.Stderr, usage)
		return cli.ErrUsage
	}
	if args[0] == "--help" || args[0] == "-help" || args[0] == "-h" || args[0] == "help" {
		fmt.Fprintln(m.Stderr, usage)
		return nil
	}
	switch args[0] {
	case "create":
		fs := m.Flags("keys create")
		user := fs.String("user", "", "the key's user id (required)")
		label := fs.String("label", "", "the asking speaker's name for the key's recalls")
		var read, write scopesFlag
		fs.Var(&read, "read", "scopes the key reads (required; repeat or comma-separate)")
		fs.Var(&write, "write", "scopes the key writes (each also a read scope; none: read-only)")
		admin := fs.Bool("admin", false, "an admin key: it may also erase any scope set (DELETE /v1/scopes/{scope})")
		if _, err := cli.Parse(fs, args[1:]); err != nil {
			return err
		}
		var text string
		var k keys.Key
		err := m.withOwner(ctx, func(db keys.DB) (err error) {
			text, k, err = keys.Create(ctx, db, keys.Spec{User: *user, Label: *label, Read: read, Write: write, Admin: *admin})
			return err
		})
		if err != nil {
			var ke *keys.Error
			if errors.As(err, &ke) {
				return fmt.Errorf("%w: --%s: %s", cli.ErrUsage, ke.Field, ke.Problem)
			}
			return err
		}
		kind := "key"
		if k.Admin {
			kind = "admin key"
		}
		fmt.Fprintf(m.Stderr, "%s %s for user %s: read %s, write %s. It is shown once, below; store it now.\n",
			kind, k.ID, k.User, strings.Join(k.Read, ","), orNone(k.Write))
		fmt.Fprintln(m.Stdout, text)
		return nil
	case "list":
		fs := m.Flags("keys list")
		asJSON := fs.Bool("json", false, "print JSON")
		if _, err := cli.Parse(fs, args[1:]); err != nil {
			return err
		}
		var list []keys.Key
		err := m.withOwner(ctx, func(db keys.DB) (err error) {
			list, err = keys.List(ctx, db)
			return err
		})
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(m.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(list)
		}
		return m.printKeys(list)
	case "revoke":
		if len(args) != 2 {
			fmt.Fprintln(m.Stderr, usage)
			return fmt.Errorf("%w: want one key id (recall keys list shows them)", cli.ErrUsage)
		}
		id := args[1]
		if strings.HasPrefix(id, "rk_") { // the whole key: its id part
			id, _, _ = strings.Cut(strings.TrimPrefix(id, "rk_"), "_")
		}
		if err := m.withOwner(ctx, func(db keys.DB) error { return keys.Revoke(ctx, db, id) }); err != nil {
			if errors.Is(err, keys.ErrNotFound) {
				return fmt.Errorf("no key %q (recall keys list shows them)", id)
			}
			return err
		}
		fmt.Fprintf(m.Stderr, "key %s revoked\n", id)
		return nil
	}
	fmt.Fprintln(m.Stderr, usage)
	return fmt.Errorf("%w: unknown keys command %q", cli.ErrUsage, args[0])
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ",")
}

// withOwner runs f on the owner's pool (keys are the owner's to manage).
func (m *Main) withOwner(ctx context.Context, f func(keys.DB) error) error {
	c, err := m.Connect(ctx, true)
	if err != nil {
		return err
	}
	defer c.Close()
	return f(c.Owner)
}

// printKeys writes the keys as a table: id, user, scopes, admin, created, revoked.
func (m *Main) printKeys(list []keys.Key) error {
	tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSER\tREAD\tWRITE\tADMIN\tCREATED\tREVOKED")
	for _, k := range list {
		revoked := "-"
		if k.Revoked != nil {
			revoked = k.Revoked.Format("2006-01-02 15:04")
		}
		admin := "-"
		if k.Admin {
			admin = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.User, strings.Join(k.Read, ","), orNone(k.Write), admin,
			k.Created.Format("2006-01-02 15:04"), revoked)
	}
	return tw.Flush()
}
