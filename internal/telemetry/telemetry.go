// Package telemetry is recall's OpenTelemetry tracing: the tracer every package starts its
// spans from, the exporter the commands install from the standard OTEL_* environment
// variables (off when none is set), and a pgx tracer that turns each database round trip into
// a span.
//
// Spans never carry user text: not the query, not a memory, not a bind argument. A database
// span names the operation (SELECT, INSERT, ...) and, only when RECALL_OTEL_DB_QUERY_TEXT is
// true, the SQL text, which is recall's own (its user values travel as binds).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Name is the instrumentation scope of recall's spans.
const Name = "github.com/recall-engine/recall"

// Tracer is the tracer recall's spans start from: the global provider's, a no-op until Setup
// (or the embedding program) installs one.
func Tracer() trace.Tracer { return otel.Tracer(Name) }

// Start starts a span named name under ctx's span.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return Tracer().Start(ctx, name, trace.WithAttributes(attrs...))
}

// End ends span, marking it failed when err is not nil (the error's text is recall's own:
// errors name fields and limits, never the values a user sent).
func End(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// Enabled reports whether getenv asks for traces: an OTLP endpoint is set
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER
// is otlp, and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none turns them off.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// ErrProtocol is Setup's error for an OTLP protocol other than HTTP with protobuf.
var ErrProtocol = errors.New("telemetry: only OTLP over HTTP with protobuf is built in (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)")

// Setup installs the global tracer provider and the W3C trace-context propagator when getenv
// asks for traces (Enabled), exporting over OTLP/HTTP to the endpoint the OTEL_EXPORTER_OTLP_*
// variables name (headers, timeout, compression and TLS from them too), batched as
// OTEL_BSP_* says and sampled as OTEL_TRACES_SAMPLER says. The resource is service.name
// service unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
//
// It returns a shutdown that flushes the spans not yet sent, and whether tracing is on. When it
// is off, nothing is installed and shutdown does nothing.
func Setup(ctx context.Context, getenv func(string) string, service string) (shutdown func(context.Context) error, on bool, err error) {
	none := func(context.Context) error { return nil }
	if !Enabled(getenv) {
		return none, false, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(v)); p != "" {
			if p != "http/protobuf" {
				return none, false, fmt.Errorf("%w: %s=%q", ErrProtocol, v, p)
			}
			break
		}
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return none, false, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(attribute.String("service.name", service)))
	if err != nil {
		return none, false, fmt.Errorf("telemetry: resource: %w", err)
	}
	// The environment's own attributes win over the default name.
	if env, err := resource.New(ctx, resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, true, nil
}
