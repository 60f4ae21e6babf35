package eval

import (
	"strings"
	"testing"
	"time"
)

// TestStageLog: each arm's median by stage, in the order the arms were first logged; rest is
// the total less the stages (embed and entities overlap: the longer counts), never negative.
func TestStageLog(t *testing.T) {
	var l StageLog
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	for _, s := range []float64{3, 1, 2} {
		l.Add("maximal", Stages{Embed: ms(0.5), Entities: ms(0.2), Statement: ms(s * 10), Order: ms(s), Pack: ms(1), Total: ms(s*11 + 2)})
	}
	l.Add("bm25", Stages{Statement: ms(4), Pack: ms(1), Total: ms(5)})
	l.Add("bm25", Stages{Statement: ms(6), Pack: ms(1), Total: ms(6)})
	got := l.Medians()
	if len(got) != 2 || got[0].Plan != "maximal" || got[1].Plan != "bm25" {
		t.Fatalf("arms %+v", got)
	}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	m, b := got[0].P50ms, got[1].P50ms
	if !near(m["statement"], 20) || !near(m["order"], 2) || !near(m["total"], 24) || !near(m["rest"], 0.5) || !near(m["embed"], 0.5) {
		t.Errorf("maximal: %v", m)
	}
	// bm25's second recall: the stages (7 ms) exceed the total (6): rest 0, not -1.
	if !near(b["statement"], 5) || !near(b["total"], 5.5) || !near(b["rest"], 0) {
		t.Errorf("bm25: %v", b)
	}
	r := Report{Stages: got}
	var sb strings.Builder
	r.stagesTable(&sb)
	if !strings.Contains(sb.String(), "| maximal | 0.50 | 0.20 | 20.00 | 2.00 | 0.00 | 1.00 | 0.50 | 24.00 |") {
		t.Errorf("table:\n%s", sb.String())
	}
}
