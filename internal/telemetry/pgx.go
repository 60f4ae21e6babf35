package telemetry

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// DB is a pgx tracer (pgx.QueryTracer, pgx.BatchTracer, pgx.ConnectTracer): each query, batch
// and connection attempt is a client span named after its operation ("SELECT", "INSERT",
// "connect"), with the database's system and name. With QueryText the span carries the SQL
// text as well (never the bind arguments). With no tracer provider installed its spans are
// no-ops.
type DB struct {
	QueryText bool
}

type spanKey struct{}

func dbAttrs(c *pgx.Conn) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String("db.system.name", "postgresql")}
	if c != nil {
		if cfg := c.Config(); cfg != nil {
			attrs = append(attrs, attribute.String("db.namespace", cfg.Database),
				attribute.String("server.address", cfg.Host), attribute.Int("server.port", int(cfg.Port)))
		}
	}
	return attrs
}

// Operation is the first word of sql, upper-cased: what a database span is named after.
// A statement that opens with a WITH is named by it.
func Operation(sql string) string {
	sql = strings.TrimSpace(sql)
	for strings.HasPrefix(sql, "--") { // a leading comment line
		i := strings.IndexByte(sql, '\n')
		if i < 0 {
			return "SQL"
		}
		sql = strings.TrimSpace(sql[i+1:])
	}
	end := strings.IndexFunc(sql, func(r rune) bool { return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') })
	if end < 0 {
		end = len(sql)
	}
	if end == 0 {
		return "SQL"
	}
	return strings.ToUpper(sql[:end])
}

func (d DB) start(ctx context.Context, c *pgx.Conn, name string, extra ...attribute.KeyValue) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		// No recall span above: a pool's background work (health checks, warming a new
		// connection) is not a trace of its own.
		return ctx
	}
	ctx, span := Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(append(dbAttrs(c), extra...)...))
	return context.WithValue(ctx, spanKey{}, span)
}

func end(ctx context.Context, err error, attrs ...attribute.KeyValue) {
	span, ok := ctx.Value(spanKey{}).(trace.Span)
	if !ok {
		return
	}
	span.SetAttributes(attrs...)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			span.SetAttributes(attribute.String("db.response.status_code", pe.Code))
		}
	}
	End(span, err)
}

// TraceQueryStart implements pgx.QueryTracer.
func (d DB) TraceQueryStart(ctx context.Context, c *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	op := Operation(data.SQL)
	attrs := []attribute.KeyValue{attribute.String("db.operation.name", op)}
	if d.QueryText {
		attrs = append(attrs, attribute.String("db.query.text", data.SQL))
	}
	return d.start(ctx, c, op, attrs...)
}

// TraceQueryEnd implements pgx.QueryTracer.
func (d DB) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	end(ctx, data.Err, attribute.Int64("db.response.returned_rows", data.CommandTag.RowsAffected()))
}

// TraceBatchStart implements pgx.BatchTracer.
func (d DB) TraceBatchStart(ctx context.Context, c *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	n := 0
	if data.Batch != nil {
		n = data.Batch.Len()
	}
	return d.start(ctx, c, "BATCH", attribute.String("db.operation.name", "BATCH"), attribute.Int("db.operation.batch.size", n))
}

// TraceBatchQuery implements pgx.BatchTracer: a batch is one span.
func (d DB) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (d DB) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	end(ctx, data.Err)
}

// TraceConnectStart implements pgx.ConnectTracer.
func (d DB) TraceConnectStart(ctx context.Context, data pgx.TraceConnectStartData) context.Context {
	attrs := []attribute.KeyValue{attribute.String("db.system.name", "postgresql")}
	if cfg := data.ConnConfig; cfg != nil {
		attrs = append(attrs, attribute.String("db.namespace", cfg.Database),
			attribute.String("server.address", cfg.Host), attribute.Int("server.port", int(cfg.Port)))
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	ctx, span := Tracer().Start(ctx, "connect", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, spanKey{}, span)
}

// TraceConnectEnd implements pgx.ConnectTracer.
func (d DB) TraceConnectEnd(ctx context.Context, data pgx.TraceConnectEndData) {
	end(ctx, data.Err)
}
