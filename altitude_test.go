package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/summarize"
)

// storedSummary is a summary as the owner reads it, row security aside.
type storedSummary struct {
	ID     int64
	Ext    string
	Text   string
	Covers []string // external ids, sorted
}

func storedSummaries(t *testing.T, db *testdb.DB) []storedSummary {
	t.Helper()
	rows, err := db.Owner.Query(context.Background(), `
		SELECT s.id, s.external_id, s.text,
		       ARRAY(SELECT m.external_id FROM recall.summary_coverage c JOIN recall.memories m ON m.id = c.memory_id
		             WHERE c.summary_id = s.id ORDER BY m.external_id)
		FROM recall.memories s WHERE s.kind = 'summary' ORDER BY s.external_id`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[storedSummary])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSummaryCoverage: a summary's coverage is checked (only summaries cover, the covered
// memories exist in the scope set, never itself, no repeats), replaced when the summary is
// written again, and a summary goes when a memory it covers is deleted; Delete counts only
// the memories it was asked for.
func TestSummaryCoverage(t *testing.T) {
	db, e := conversationEngine(t)
	ctx := context.Background()
	b := recall.Batch{Memories: []recall.Memory{
		{ID: "a", Text: "Ana adopted a dog."}, {ID: "b", Text: "The dog is a beagle."}, {ID: "c", Text: "Bo moved to Lisbon."},
		{ID: "s", Kind: "summary", Text: "Ana's beagle.", Covers: []string{"a", "b"}},
	}}
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name  string
		m     recall.Memory
		field string
	}{
		{"not a summary", recall.Memory{ID: "x", Text: "t", Covers: []string{"a"}}, "covers"},
		{"missing", recall.Memory{ID: "x", Kind: "summary", Text: "t", Covers: []string{"a", "nope"}}, "covers[1]"},
		{"itself", recall.Memory{ID: "x", Kind: "summary", Text: "t", Covers: []string{"x"}}, "covers[0]"},
		{"twice", recall.Memory{ID: "x", Kind: "summary", Text: "t", Covers: []string{"a", "a"}}, "covers[1]"},
		{"empty id", recall.Memory{ID: "x", Kind: "summary", Text: "t", Covers: []string{""}}, "covers[0]"},
	}
	for _, c := range bad {
		_, err := e.Write(ctx, member, recall.Batch{Memories: []recall.Memory{c.m}})
		var we *recall.WriteError
		if !errors.As(err, &we) || we.Item != "memories[0]" || we.Field != c.field {
			t.Errorf("%s: got %v, want a WriteError on memories[0].%s", c.name, err, c.field)
		}
	}
	if got := storedSummaries(t, db); len(got) != 1 || !slices.Equal(got[0].Covers, []string{"a", "b"}) {
		t.Fatalf("after the refused writes: %+v", got)
	}
	// Written again, the summary covers what the batch says.
	res, err := e.Write(ctx, member, recall.Batch{Memories: []recall.Memory{{ID: "s", Kind: "summary", Text: "Ana and Bo.", Covers: []string{"a", "c"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Covered != 2 {
		t.Errorf("Covered = %d, want 2", res.Covered)
	}
	if got := storedSummaries(t, db); len(got) != 1 || !slices.Equal(got[0].Covers, []string{"a", "c"}) {
		t.Fatalf("after the rewrite: %+v", got)
	}
	// b is no longer covered: deleting it keeps the summary; deleting c takes it.
	for _, c := range []struct {
		id        string
		summaries int
	}{{"b", 1}, {"c", 0}} {
		n, err := e.Delete(ctx, member, nil, []string{c.id})
		if err != nil || n != 1 {
			t.Fatalf("Delete(%s) = %d, %v; want 1", c.id, n, err)
		}
		if got := storedSummaries(t, db); len(got) != c.summaries {
			t.Fatalf("after deleting %s: %d summaries, want %d", c.id, len(got), c.summaries)
		}
	}
}

// summarized writes a conversation and a lecture of long turns of many sentences (none of
// which fits a small budget, while a summary of them does), and summarizes both by session.
func summarized(t *testing.T) (*testdb.DB, *recall.Engine, []turn) {
	t.Helper()
	db, e := conversationEngine(t)
	turns := conversation(t, e, 7, 4, 12)
	lecture := recall.Batch{Sources: []recall.Source{{ID: "lecture"}}}
	for p := 1; p <= 4; p++ {
		var sents []string
		for k := range 10 {
			sents = append(sents, fmt.Sprintf("The glacier %s carried stone %d past the orchard.", []string{"slowly", "once", "again", "quietly", "still"}[(p+k)%5], p*10+k))
		}
		tr := turn{id: fmt.Sprintf("lecture:%d", p), session: "lecture", speaker: "Ana Lima", text: strings.Join(sents, " "), position: p}
		turns = append(turns, tr)
		lecture.Memories = append(lecture.Memories, recall.Memory{ID: tr.id, Source: "lecture", Position: p, Speaker: tr.speaker, Text: tr.text})
	}
	if _, err := e.Write(context.Background(), member, lecture); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Summarize(context.Background(), member, recall.SummarizeOptions{By: []string{recall.BySession}, MaxTokens: 20}); err != nil {
		t.Fatal(err)
	}
	return db, e, turns
}

// TestSummarizeIdempotent: summarize twice gives the same summaries; each summary is made
// of whole sentences of its group and covers the group; deleting a session's turns deletes
// its summary, and summarizing again prunes nothing more and rebuilds the rest unchanged.
func TestSummarizeIdempotent(t *testing.T) {
	db, e := conversationEngine(t)
	ctx := context.Background()
	turns := conversation(t, e, 11, 3, 9)
	opts := recall.SummarizeOptions{By: []string{recall.BySession, recall.ByCommunity}, MaxTokens: 50}
	first, err := e.Summarize(ctx, member, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Groups[recall.BySession] != 3 || first.Written != first.Groups[recall.BySession]+first.Groups[recall.ByCommunity] {
		t.Fatalf("first run: %+v", first)
	}
	before := storedSummaries(t, db)
	second, err := e.Summarize(ctx, member, opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.Pruned != 0 || second.Written != first.Written {
		t.Errorf("second run: %+v, first %+v", second, first)
	}
	after := storedSummaries(t, db)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("summaries changed on the second run:\n%v\n%v", before, after)
	}
	bySession := map[string][]turn{}
	for _, tr := range turns {
		bySession[tr.session] = append(bySession[tr.session], tr)
	}
	for _, s := range after {
		session, ok := strings.CutPrefix(s.Ext, recall.SummaryPrefix+recall.BySession+":")
		if !ok {
			continue
		}
		group := bySession[session]
		var texts, ids []string
		for _, tr := range group {
			texts, ids = append(texts, tr.text), append(ids, tr.id)
		}
		slices.Sort(ids)
		if !slices.Equal(s.Covers, ids) {
			t.Errorf("%s covers %v, want its session's turns %v", s.Ext, s.Covers, ids)
		}
		own := summarize.Sentences(texts)
		for _, x := range summarize.Sentences([]string{s.Text}) {
			if !slices.Contains(own, x) {
				t.Errorf("%s: sentence %q is not one of its group's", s.Ext, x)
			}
		}
		if n := (len(s.Text) + 3) / 4; n > opts.MaxTokens {
			t.Errorf("%s: %d tokens, cap %d", s.Ext, n, opts.MaxTokens)
		}
	}
	// Session 1's turns deleted: its summary goes with them (Delete), and a new run writes
	// the others as they were.
	var gone []string
	for _, tr := range bySession["session-1"] {
		gone = append(gone, tr.id)
	}
	if _, err := e.Delete(ctx, member, nil, gone); err != nil {
		t.Fatal(err)
	}
	for _, s := range storedSummaries(t, db) {
		if s.Ext == recall.SummaryPrefix+"session:session-1" {
			t.Fatalf("the summary of session-1 outlived its turns")
		}
	}
	third, err := e.Summarize(ctx, member, recall.SummarizeOptions{By: []string{recall.BySession}, MaxTokens: 50})
	if err != nil {
		t.Fatal(err)
	}
	if third.Groups[recall.BySession] != 2 {
		t.Errorf("third run: %+v", third)
	}
	for _, s := range storedSummaries(t, db) {
		if !strings.HasPrefix(s.Ext, recall.SummaryPrefix+recall.BySession+":") {
			t.Errorf("%s: a community summary survived a run by session only", s.Ext)
		}
	}
	if _, err := e.Summarize(ctx, member, recall.SummarizeOptions{By: []string{"topic"}}); !recall.IsInputError(err) {
		t.Errorf("by topic: %v, want an InputError", err)
	}
}

// TestAltitude checks, over random budgets and questions, the three altitudes against the
// rule computed here from the memories-altitude pack of the same question. No pack holds a
// summary with a memory it covers. Auto: a summary that made the cut and covers candidates
// (memories packed or omitted at the memories altitude) climbs exactly when none of them
// is packed there: it is then never "descended", none of its memories is packed, and when
// it is packed the pack lists it as a climb replacing exactly those candidates; otherwise
// it descends (left out, those memories given). Auto's memories are the memories
// altitude's, in order: summaries only fill what they leave. Summaries: every summary that
// covers a candidate and is packed replaces its candidates. Memories packs no summary.
func TestAltitude(t *testing.T) {
	db, e, turns := summarized(t)
	ctx := context.Background()
	covers := map[int64][]int64{} // summary -> covered memory ids
	rows, err := db.Owner.Query(ctx, `SELECT summary_id, memory_id FROM recall.summary_coverage ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	var s, m int64
	if _, err := pgx.ForEachRow(rows, []any{&s, &m}, func() error { covers[s] = append(covers[s], m); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(covers) != 5 {
		t.Fatalf("%d summaries, want one per session (5)", len(covers))
	}
	r := rand.New(rand.NewPCG(5, 5))
	var climbs, descents, packedClimbs int
	for i := range 60 {
		q := turns[r.IntN(len(turns))].text
		b := 20 + r.IntN(900)
		if i%3 == 0 {
			q, b = "the glacier carried stone past the orchard", 60+r.IntN(70)
		}
		trace := func(a recall.Altitude) *recall.Trace {
			tr, err := e.Trace(ctx, member, q, b, &recall.Options{Altitude: a, NoRerank: true})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Pack.Altitude != a {
				t.Fatalf("pack altitude %q, asked %q", tr.Pack.Altitude, a)
			}
			return tr
		}
		memT, autoT, sumT := trace(recall.AltitudeMemories), trace(recall.AltitudeAuto), trace(recall.AltitudeSummaries)
		packed, seen := map[int64]bool{}, map[int64]bool{}
		for _, it := range memT.Pack.Items {
			if it.Kind == "summary" {
				t.Fatalf("query %d: the memories altitude packed summary %d", i, it.ID)
			}
			packed[it.ID], seen[it.ID] = true, true
		}
		for _, o := range memT.Pack.Omitted {
			seen[o.ID] = true
		}
		inPack := func(p *recall.Pack) map[int64]bool {
			in := map[int64]bool{}
			for _, it := range p.Items {
				in[it.ID] = true
			}
			for _, it := range p.Items {
				for _, c := range covers[it.ID] {
					if in[c] {
						t.Fatalf("query %d (%s): summary %d packed with memory %d it covers", i, p.Altitude, it.ID, c)
					}
				}
			}
			return in
		}
		autoIn, sumIn := inPack(autoT.Pack), inPack(sumT.Pack)
		// Auto walks the summaries after the memories: its memories are the memories
		// altitude's, in the same order.
		var autoMem []string
		for _, it := range autoT.Pack.Items {
			if it.Kind != "summary" {
				autoMem = append(autoMem, it.ExternalID)
			}
		}
		if !slices.Equal(autoMem, memT.Pack.IDs()) {
			t.Fatalf("query %d, budget %d: auto packed the memories %v, the memories altitude %v", i, b, autoMem, memT.Pack.IDs())
		}
		climbed := func(p *recall.Pack) map[int64][]int64 {
			out := map[int64][]int64{}
			for _, c := range p.Climbs {
				out[c.Summary] = c.Replaced
			}
			return out
		}
		wantAuto, wantSum := map[int64][]int64{}, map[int64][]int64{}
		for _, c := range autoT.Candidates {
			if c.MeritRank == 0 || c.Kind != "summary" {
				continue
			}
			var cand []int64
			none := true
			for _, id := range covers[c.ID] {
				if seen[id] {
					cand = append(cand, id)
					none = none && !packed[id]
				}
			}
			if len(cand) == 0 {
				continue
			}
			if sumIn[c.ID] {
				wantSum[c.ID] = cand
			}
			switch {
			case none:
				climbs++
				if c.Decision == recall.Descended {
					t.Fatalf("query %d, budget %d: summary %d descended though none of %v fits", i, b, c.ID, cand)
				}
				for _, id := range cand {
					if autoIn[id] {
						t.Fatalf("query %d: summary %d climbed, yet its memory %d is packed", i, c.ID, id)
					}
				}
				if autoIn[c.ID] {
					wantAuto[c.ID] = cand
					packedClimbs++
				}
			default:
				descents++
				if c.Decision != recall.Descended || autoIn[c.ID] {
					t.Fatalf("query %d, budget %d: summary %d: %s, want descended (covered %v, packed at the memories altitude %v)", i, b, c.ID, c.Decision, cand, packed)
				}
			}
		}
		if got := climbed(autoT.Pack); fmt.Sprint(got) != fmt.Sprint(wantAuto) {
			t.Fatalf("query %d, budget %d, auto: climbs %v, want %v", i, b, got, wantAuto)
		}
		if got := climbed(sumT.Pack); fmt.Sprint(got) != fmt.Sprint(wantSum) {
			t.Fatalf("query %d, budget %d, summaries: climbs %v, want %v", i, b, got, wantSum)
		}
	}
	t.Logf("in 60 recalls: %d climbs (%d packed), %d descents", climbs, packedClimbs, descents)
	if climbs == 0 || descents == 0 {
		t.Fatal("the test does not reach every branch of the rule")
	}
	if _, err := e.Recall(ctx, member, "dog", 100, &recall.Options{Altitude: "tenant"}); !recall.IsInputError(err) {
		t.Errorf("altitude tenant: %v, want an InputError", err)
	}
}

// TestAltitudeClimb: a summary of long memories, none of which fits the budget, is packed in
// their place at the auto altitude and listed as a climb (the trace says why); with room for
// them, the memories are given and the summary descends; the memories altitude never packs
// it, the summaries altitude always does.
func TestAltitudeClimb(t *testing.T) {
	_, e := conversationEngine(t)
	ctx := context.Background()
	b := recall.Batch{Sources: []recall.Source{{ID: "lecture", Title: "Glaciers"}}}
	var ids []string
	for p := 1; p <= 3; p++ {
		var sents []string
		for k := range 12 {
			sents = append(sents, fmt.Sprintf("The glacier carried stone %d past the orchard.", p*100+k))
		}
		id := fmt.Sprintf("lecture:%d", p)
		ids = append(ids, id)
		b.Memories = append(b.Memories, recall.Memory{ID: id, Source: "lecture", Position: p, Text: strings.Join(sents, " ")})
	}
	b.Memories = append(b.Memories,
		recall.Memory{ID: "short", Text: "A glacier is cold."},
		recall.Memory{ID: "sum", Kind: "summary", Source: "lecture", Text: "The glacier carried stones past the orchard.", Covers: ids})
	if _, err := e.Write(ctx, member, b); err != nil {
		t.Fatal(err)
	}
	q := "glacier carried stone orchard"
	pack := func(a recall.Altitude, budget int) *recall.Trace {
		tr, err := e.Trace(ctx, member, q, budget, &recall.Options{Altitude: a})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	got := func(tr *recall.Trace) []string { return tr.Pack.IDs() }
	auto := pack(recall.AltitudeAuto, 40)
	if ids := got(auto); !slices.Contains(ids, "sum") || !slices.Contains(ids, "short") || len(ids) != 2 {
		t.Fatalf("auto at 40 tokens packed %v, want the summary and the short memory", ids)
	}
	if len(auto.Pack.Climbs) != 1 || len(auto.Pack.Climbs[0].Replaced) != 3 {
		t.Fatalf("climbs %+v, want the summary replacing the three lecture memories", auto.Pack.Climbs)
	}
	if len(auto.Pack.Sources) != 1 || auto.Pack.Sources[0].ExternalID != "lecture" || auto.Pack.Sources[0].Title != "Glaciers" {
		t.Errorf("sources %+v, want the lecture once", auto.Pack.Sources)
	}
	sum := auto.Find(auto.Pack.Climbs[0].Summary)
	if why := auto.Why(sum); !strings.Contains(why, "climbed") {
		t.Errorf("the trace does not say the summary climbed:\n%s", why)
	}
	if ids := got(pack(recall.AltitudeMemories, 40)); !slices.Equal(ids, []string{"short"}) {
		t.Errorf("memories at 40 tokens packed %v, want the short memory alone", ids)
	}
	if ids := got(pack(recall.AltitudeSummaries, 2000)); slices.Contains(ids, "lecture:1") || !slices.Contains(ids, "sum") {
		t.Errorf("summaries at 2000 tokens packed %v, want the summary instead of the lecture", ids)
	}
	wide := pack(recall.AltitudeAuto, 2000)
	if ids := got(wide); slices.Contains(ids, "sum") || !slices.Contains(ids, "lecture:1") {
		t.Errorf("auto at 2000 tokens packed %v, want the lecture, not its summary", ids)
	}
	for _, c := range wide.Candidates {
		if c.ExternalID == "sum" && (c.Decision != recall.Descended || !strings.Contains(wide.Why(&c), "descended")) {
			t.Errorf("the summary's decision at 2000 tokens: %s, want descended", c.Decision)
		}
	}
}
