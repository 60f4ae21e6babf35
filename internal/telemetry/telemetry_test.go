package telemetry

import (
	"errors"
	"testing"
)

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}, true},
	} {
		if got := Enabled(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: enabled %v, want %v", c.env, got, c.want)
		}
	}
}

func TestSetupOffAndProtocol(t *testing.T) {
	shutdown, on, err := Setup(t.Context(), func(string) string { return "" }, "recall")
	if err != nil || on || shutdown(t.Context()) != nil {
		t.Fatalf("unset: on %v, %v", on, err)
	}
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
	if _, on, err := Setup(t.Context(), func(k string) string { return env[k] }, "recall"); on || !errors.Is(err, ErrProtocol) {
		t.Fatalf("grpc: on %v, %v", on, err)
	}
}

func TestOperation(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 1":                               "SELECT",
		"  with x AS (SELECT 1) SELECT * FROM x": "WITH",
		"-- a comment\n-- two\ninsert into t":    "INSERT",
		"-- only a comment":                      "SQL",
		"begin":                                  "BEGIN",
		"":                                       "SQL",
		"(SELECT 1)":                             "SQL",
	} {
		if got := Operation(sql); got != want {
			t.Errorf("Operation(%q) = %q, want %q", sql, got, want)
		}
	}
}
