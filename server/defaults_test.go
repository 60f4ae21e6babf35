package server_test

import (
	"testing"
	"time"

	"github.com/recall-engine/recall/server"
)

// TestConfigWithDefaults: a field left zero or negative takes its default, one set keeps
// its value, and MaxConcurrentWrites follows the MaxConcurrent it ends with.
func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	d := server.Config{MaxBody: -1, KeyRate: -2}.WithDefaults()
	if d.MaxConcurrent != server.MaxConcurrentDefault || d.MaxConcurrentWrites != server.MaxConcurrentDefault/4 ||
		d.RecallTimeout != server.RecallTimeoutDefault || d.WriteTimeout != server.WriteTimeoutDefault ||
		d.MaxBody != server.MaxBodyDefault || d.MaxSmallBody != server.MaxSmallBodyDefault ||
		d.KeyRate != server.KeyRateDefault || d.KeyBurst != server.KeyBurstDefault ||
		d.LookupTimeout != server.LookupTimeoutDefault || d.Version != server.VersionDefault || d.Logger == nil {
		t.Fatalf("defaults: %+v", d)
	}
	set := server.Config{MaxConcurrent: 2, RecallTimeout: time.Second, Version: "v9", KeyBurst: 7}.WithDefaults()
	if set.MaxConcurrent != 2 || set.MaxConcurrentWrites != 1 || set.RecallTimeout != time.Second || set.Version != "v9" || set.KeyBurst != 7 {
		t.Fatalf("set values: %+v", set)
	}
}
