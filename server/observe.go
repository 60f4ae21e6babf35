package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/telemetry"
)

// reqInfo is what a handler tells the request's log line: the key's id (never the key),
// the recall's stage timings, the error.
type reqInfo struct {
	key     string
	timings *recall.Timings
	err     error
}

type infoKey struct{}

func info(r *http.Request) *reqInfo {
	if i, ok := r.Context().Value(infoKey{}).(*reqInfo); ok {
		return i
	}
	return &reqInfo{}
}

type recorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// Flush lets streaming responses (MCP) through.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe counts, times and logs each request of route: one JSON line with its method,
// route, status, duration, size, key id, and a recall's stage timings.
func (s *Server) observe(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{}
		rec := &recorder{ResponseWriter: w}
		ctx, span := serverSpan(r, route)
		s.metrics.inflight.Inc()
		h.ServeHTTP(rec, r.WithContext(context.WithValue(ctx, infoKey{}, ri)))
		s.metrics.inflight.Dec()
		d := time.Since(start)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		endServerSpan(span, rec.status, ri.err)
		s.metrics.requests.WithLabelValues(route, strconv.Itoa(rec.status)).Inc()
		s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
		attrs := []any{"method", r.Method, "route", route, "status", rec.status,
			"duration_ms", float64(d.Microseconds()) / 1000, "bytes", rec.bytes}
		if ri.key != "" {
			attrs = append(attrs, "key", ri.key)
		}
		if sc := span.SpanContext(); sc.IsValid() {
			attrs = append(attrs, "trace_id", sc.TraceID().String())
		}
		if t := ri.timings; t != nil {
			attrs = append(attrs, "embed_ms", ms(t.Embed), "statement_ms", ms(t.Statement), "rerank_ms", ms(t.Rerank),
				"pack_ms", ms(t.Pack), "access_ms", ms(t.Access))
		}
		if ri.err != nil {
			attrs = append(attrs, "error", errorKind(ri.err), "detail", ri.err.Error())
		}
		s.cfg.Logger.Info("request", attrs...)
	})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// serverSpan starts the request's span, a child of the trace the caller's traceparent header
// names (when tracing is on; package telemetry): named by the route's pattern, never by the
// raw path.
func serverSpan(r *http.Request, route string) (context.Context, trace.Span) {
	ctx := otel.GetTextMapPropagator().Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	name := route
	if !strings.Contains(route, " ") {
		name = r.Method + " " + route
	}
	return telemetry.Tracer().Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", route),
			attribute.String("url.scheme", scheme(r)), attribute.String("network.protocol.version", fmt.Sprintf("%d.%d", r.ProtoMajor, r.ProtoMinor))))
}

// endServerSpan ends a request's span with its status: a 5xx is an error of the server's,
// a 4xx the caller's (the span stays unset, as OpenTelemetry's HTTP conventions say).
func endServerSpan(span trace.Span, status int, err error) {
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if err != nil {
		span.SetAttributes(attribute.String("error.type", errorKind(err)))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
	span.End()
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
