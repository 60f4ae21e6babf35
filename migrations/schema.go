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

// each runs query and calls fn with each row's columns as strings (NULL as "").
func each(ctx context.Context, db querier, query string, fn func(cols []string)) error {
	rows, err := db.QueryContext(ctx, query)
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
	return each(ctx, db, `
		SELECT p.oid::regprocedure::text, pg_get_function_result(p.oid), l.lanname,
		       CASE p.provolatile WHEN 'i' THEN ' IMMUTABLE' WHEN 's' THEN ' STABLE' ELSE '' END
		       || CASE WHEN p.proisstrict THEN ' STRICT' ELSE '' END
		       || CASE WHEN p.prosecdef THEN ' SECURITY DEFINER' ELSE '' END
		       || CASE WHEN p.proretset AND p.prorows <> 1000 THEN ' ROWS ' || p.prorows::int ELSE '' END
		       || coalesce((SELECT string_agg(' SET ' || c, '' ORDER BY c) FROM unnest(p.proconfig) c), '')
		       || CASE WHEN has_function_privilege('recall_runtime', p.oid, 'EXECUTE') THEN '' ELSE ' (not for recall_runtime)' END,
		       'recall.' || p.proname
		FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
		WHERE p.pronamespace = 'recall'::regnamespace
		ORDER BY 1`, func(c []string) {
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
	err := each(ctx, db, `
		SELECT t.typname, a.attname, format_type(a.atttypid, a.atttypmod)
		FROM pg_type t
		JOIN pg_class c ON c.oid = t.typrelid AND c.relkind = 'c'
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE t.typnamespace = 'recall'::regnamespace
		ORDER BY t.typname, a.attnum`, func(c []string) {
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
	err := each(ctx, db, `
		SELECT c.relname, coalesce(array_to_string(c.reloptions, ', '), ''),
		       c.relrowsecurity::text, coalesce(obj_description(c.oid, 'pg_class'), ''),
		       coalesce((SELECT string_agg(privilege_type, ', ' ORDER BY privilege_type)
		                 FROM information_schema.role_table_grants g
		                 WHERE g.grantee = 'recall_runtime' AND g.table_schema = 'recall' AND g.table_name = c.relname), '')
		FROM pg_class c WHERE c.relnamespace = 'recall'::regnamespace AND c.relkind = 'r'
		ORDER BY c.relname`, func(c []string) { tables = append(tables, c) })
	if err != nil {
		return err
	}
	b.WriteString("-- Tables\n")
	for _, t := range tables {
		name := t[0]
		fmt.Fprintf(b, "CREATE TABLE recall.%s (", name)
		var lines []string
		err := each(ctx, db, fmt.Sprintf(`
			SELECT a.attname, format_type(a.atttypid, a.atttypmod),
			       CASE WHEN a.attidentity = 'a' THEN ' GENERATED ALWAYS AS IDENTITY'
			            WHEN a.attidentity = 'd' THEN ' GENERATED BY DEFAULT AS IDENTITY'
			            WHEN a.attgenerated = 's' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ') STORED'
			            WHEN d.adbin IS NOT NULL THEN ' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid)
			            ELSE '' END
			       || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
			       || CASE WHEN a.attstorage <> ty.typstorage THEN ' STORAGE ' ||
			                 CASE a.attstorage WHEN 'p' THEN 'PLAIN' WHEN 'm' THEN 'MAIN' WHEN 'e' THEN 'EXTERNAL' ELSE 'EXTENDED' END
			               ELSE '' END
			       || coalesce(' (' || (SELECT string_agg(o, ', ' ORDER BY o) FROM unnest(a.attoptions) o
			                            WHERE o NOT LIKE 'pg\_attver=%%') || ')', '')
			FROM pg_attribute a
			JOIN pg_type ty ON ty.oid = a.atttypid
			LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = 'recall.%[1]s'::regclass AND a.attnum > 0 AND NOT a.attisdropped
			ORDER BY a.attnum`, name), func(c []string) { lines = append(lines, "  "+c[0]+" "+c[1]+c[2]) })
		if err != nil {
			return err
		}
		err = each(ctx, db, fmt.Sprintf(`
			SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
			WHERE conrelid = 'recall.%s'::regclass
			ORDER BY CASE contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'f' THEN 2 ELSE 3 END, conname`, name),
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
	return each(ctx, db, `
		SELECT pg_get_indexdef(i.indexrelid)
		FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = 'recall'::regnamespace
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
		ORDER BY c.relname`, func(c []string) { b.WriteString(c[0] + ";\n") })
}

func describeTriggers(ctx context.Context, db querier, b *strings.Builder) error {
	b.WriteString("-- Triggers\n")
	return each(ctx, db, `
		SELECT pg_get_triggerdef(t.oid)
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE c.relnamespace = 'recall'::regnamespace AND NOT t.tgisinternal
		ORDER BY c.relname, t.tgname`, func(c []string) { b.WriteString(c[0] + ";\n") })
}

func describePolicies(ctx context.Context, db querier, b *strings.Builder) error {
	b.WriteString("\n-- Policies\n")
	return each(ctx, db, `
		SELECT format('CREATE POLICY %I ON recall.%I%s FOR %s TO %s', policyname, tablename,
		              CASE WHEN permissive = 'RESTRICTIVE' THEN ' AS RESTRICTIVE' ELSE '' END, cmd,
		              array_to_string(roles, ', '))
		       || coalesce(' USING (' || qual || ')', '') || coalesce(' WITH CHECK (' || with_check || ')', '')
		FROM pg_policies WHERE schemaname = 'recall'
		ORDER BY tablename, policyname`, func(c []string) { b.WriteString(c[0] + ";\n") })
}
