package migrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/recall-engine/recall/sql"
)

// Describe renders schema recall as the catalog holds it: functions (with the file that
// defines each body), types, tables with their columns, constraints and options, indexes,
// triggers, policies and the runtime role's grants, each in name order. It is how
// sql/schema.sql is made (make schema), and a test compares the two.
func Describe(ctx context.Context, db querier) (string, error) {
	var b strings.Builder
	b.WriteString("-- recall's schema, as migrations.Up builds it: the migrations, then the function files.\n" +
		"-- Generated from a migrated database by `make schema`; do not edit (a test compares them).\n" +
		"-- Function bodies are not repeated here: each names the file that defines it.\n")
	for _, part := range []func(context.Context, querier, *strings.Builder) error{
		describeFunctions, describeTypes, describeTables, describeIndexes, describeTriggers, describePolicies,
	} {
		b.WriteString("\n")
		if err := part(ctx, db, &b); err != nil {
			return "", fmt.Errorf("migrations: describe: %w", err)
		}
	}
	return b.String(), nil
}

// each runs query with args and calls fn with each row's columns as strings (NULL as "").
func each(ctx context.Context, db querier, query string, args []any, fn func(cols []string)) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close() //nolint:errcheck // Err is checked below
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	for rows.Next() {
		vals := make([]*string, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		out := make([]string, len(cols))
		for i, v := range vals {
			if v != nil {
				out[i] = *v
			}
		}
		fn(out)
	}
	return rows.Err()
}

func describeFunctions(ctx context.Context, db querier, b *strings.Builder) error {
	bodies, err := sqltext.FunctionBodies()
	if err != nil {
		return err
	}
	file := map[string]string{}
	for _, fb := range bodies {
		file[fb.Name] = "sql/" + fb.File
	}
	b.WriteString("-- Functions\n")
	return each(ctx, db, sqltext.DescribeFunctions, nil, func(c []string) {
		where := file[c[4]]
		if where == "" {
			where = "migrations/00001_baseline.sql"
		}
		fmt.Fprintf(b, "-- FUNCTION %s RETURNS %s LANGUAGE %s%s\n--   body: %s\n", c[0], c[1], c[2], c[3], where)
	})
}

func describeTypes(ctx context.Context, db querier, b *strings.Builder) error {
	b.WriteString("-- Types\n")
	var cur string
	err := each(ctx, db, sqltext.DescribeTypes, nil, func(c []string) {
		if c[0] != cur {
			if cur != "" {
				b.WriteString("\n);\n")
			}
			cur = c[0]
			fmt.Fprintf(b, "CREATE TYPE recall.%s AS (", c[0])
		} else {
			b.WriteString(",")
		}
		fmt.Fprintf(b, "\n  %s %s", c[1], c[2])
	})
	if cur != "" {
		b.WriteString("\n);\n")
	}
	return err
}

func describeTables(ctx context.Context, db querier, b *strings.Builder) error {
	var tables [][]string
	err := each(ctx, db, sqltext.DescribeTables, nil, func(c []string) { tables = append(tables, c) })
	if err != nil {
		return err
	}
	b.WriteString("-- Tables\n")
	for _, t := range tables {
		name := t[0]
		fmt.Fprintf(b, "CREATE TABLE recall.%s (", name)
		var lines []string
		err := each(ctx, db, sqltext.DescribeColumns, []any{"recall." + name}, func(c []string) { lines = append(lines, "  "+c[0]+" "+c[1]+c[2]) })
		if err != nil {
			return err
		}
		err = each(ctx, db, sqltext.DescribeConstraints, []any{"recall." + name},
			func(c []string) { lines = append(lines, "  CONSTRAINT "+c[0]+" "+c[1]) })
		if err != nil {
			return err
		}
		b.WriteString("\n" + strings.Join(lines, ",\n") + "\n)")
		if t[1] != "" {
			fmt.Fprintf(b, " WITH (%s)", t[1])
		}
		b.WriteString(";\n")
		if t[2] == "true" {
			fmt.Fprintf(b, "ALTER TABLE recall.%s ENABLE ROW LEVEL SECURITY;\n", name)
		}
		if t[4] != "" {
			fmt.Fprintf(b, "GRANT %s ON recall.%s TO recall_runtime;\n", t[4], name)
		}
		if t[3] != "" {
			fmt.Fprintf(b, "COMMENT ON TABLE recall.%s IS '%s';\n", name, strings.ReplaceAll(t[3], "'", "''"))
		}
		b.WriteString("\n")
	}
	return nil
}

func describeIndexes(ctx context.Context, db querier, b *strings.Builder) error {
	b.WriteString("-- Indexes (besides those of primary keys and unique constraints)\n")
	return each(ctx, db, sqltext.DescribeIndexes, nil, func(c []string) { b.WriteString(c[0] + ";\n") })
}

func describeTriggers(ctx context.Context, db querier, b *strings.Builder) error {
	b.WriteString("-- Triggers\n")
	return each(ctx, db, sqltext.DescribeTriggers, nil, func(c []string) { b.WriteString(c[0] + ";\n") })
}

func describePolicies(ctx context.Context, db querier, b *strings.Builder) error {
	b.WriteString("\n-- Policies\n")
	return each(ctx, db, sqltext.DescribePolicies, nil, func(c []string) { b.WriteString(c[0] + ";\n") })
}
