package statement_test

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/recall-engine/recall/internal/testkit/testdb"
	"github.com/recall-engine/recall/statement"
)

// trigrams is pg_trgm's trigram set of s, for ASCII text: lowered words (runs of letters and
// digits), each padded with two spaces before and one after, cut into every three
// consecutive characters.
func trigrams(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range lowerWords(s) {
		p := "  " + w + " "
		for i := 0; i+3 <= len(p); i++ {
			out[p[i:i+3]] = true
		}
	}
	return out
}

// similarity is pg_trgm's similarity: shared trigrams over the union of both sets.
func similarity(a, b string) float64 {
	ta, tb := trigrams(a), trigrams(b)
	shared := 0
	for g := range ta {
		if tb[g] {
			shared++
		}
	}
	union := len(ta) + len(tb) - shared
	if union == 0 {
		return 0
	}
	return float64(shared) / float64(union)
}

// lowerWords are the runs of letters and digits of s, lowered.
func lowerWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// titleKey is recall.title_key: lowered words joined by one space.
func titleKey(s string) string { return strings.Join(lowerWords(s), " ") }

type namedRow struct {
	name, alias, scope string // entity name (and alias) or source title, in scope
}

// TestMentionAndTitleLanesMatchTrigramReference: the mention lane (exact keys and the fuzzy
// branch, each entity weighted by its rarity) and the title lane (exact title keys and fuzzy titles) return exactly the memories
// and scores the rules give when computed in Go from pg_trgm's definitions, over the visible
// rows only: near-miss names in a scope the caller cannot see change nothing.
func TestMentionAndTitleLanesMatchTrigramReference(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	ents := []namedRow{
		{"Alice Martin", "", "acme"}, {"Alicia Martin", "", "acme"}, {"Martin", "", "acme"},
		{"Bob Stone", "Bobby", "acme"}, {"Stone", "", "acme"}, {"Carol Diaz-Lopez", "", "acme"},
		{"Acme Corporation", "ACME", "acme"}, {"Acme Corp", "", "acme"}, {"Zed", "", "acme"},
		{"Bob Ston", "", "other"}, {"Alicia Martinez", "", "other"}, {"Acme Corporations", "", "other"},
		// Long names, in the parts of the name index for 25-40 and over 40 trigrams.
		{"Northern Valley River Commission", "", "acme"}, {"International Commission on Zoological Nomenclature", "", "acme"},
		{"Northern Valley River Commissions", "", "other"},
	}
	titles := []namedRow{
		{"Notes on Apple River", "", "acme"}, {"Notes on apple rivers", "", "acme"}, {"Apple", "", "acme"},
		{"Q3 planning: pricing & packaging", "", "acme"}, {"Pricing", "", "acme"}, {"ab", "", "acme"},
		{"The annual report of the river commission on apple orchards in the northern valley", "", "acme"},
		{"Annual reports of the river commission on apple orchards in northern valleys", "", "acme"},
		{"Minutes of the river commission", "", "acme"}, {"Minutes of the river commission meeting on apple orchards", "", "acme"},
		{"Q3 planning - pricing and packaging", "", "other"}, {"Notes on apple river", "", "other"},
	}
	tx := testdb.BeginAs(t, db.Runtime, []string{"acme", "other"}, []string{"acme", "other"})
	entityID := map[string]int64{}
	for i, e := range ents {
		var id int64
		aliases := []string{}
		if e.alias != "" {
			aliases = append(aliases, e.alias)
		}
		if err := tx.QueryRow(ctx, `INSERT INTO recall.entities (external_id, scopes, name, aliases, kind) VALUES ($1, $2, $3, $4, 'thing') RETURNING id`,
			"e"+string(rune('a'+i)), []string{e.scope}, e.name, aliases).Scan(&id); err != nil {
			t.Fatal(err)
		}
		entityID[e.name] = id
	}
	// One memory per entity (mentioning it) and one per title (with it as its source).
	memOfEntity, memOfTitle := map[string]int64{}, map[string]int64{}
	insertMemory := func(scope, text string, source *int64) int64 {
		var id int64
		if err := tx.QueryRow(ctx, `INSERT INTO recall.memories (external_id, scopes, source_id, kind, text) VALUES ($1, $2, $3, 'world', $4) RETURNING id`,
			text, []string{scope}, source, text).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// mentionsOf: what each acme memory mentions. Bob Stone and Stone are also mentioned
	// together by two more acme memories, and Bob Ston by one more the caller cannot see, so
	// entities differ in rarity and a memory can score for two.
	mentionsOf := map[int64][]string{}
	mention := func(scope, text string, names ...string) int64 {
		m := insertMemory(scope, text, nil)
		for _, n := range names {
			if _, err := tx.Exec(ctx, `INSERT INTO recall.mentions (memory_id, entity_id, scopes) VALUES ($1, $2, $3)`, m, entityID[n], []string{scope}); err != nil {
				t.Fatal(err)
			}
		}
		if scope == "acme" {
			mentionsOf[m] = names
		}
		return m
	}
	for _, e := range ents {
		memOfEntity[e.name] = mention(e.scope, "about "+e.name, e.name)
	}
	mention("acme", "Bob Stone and Stone, once", "Bob Stone", "Stone")
	mention("acme", "Bob Stone and Stone, twice", "Bob Stone", "Stone")
	mention("other", "Bob Ston, unseen", "Bob Ston")
	for i, s := range titles {
		var src int64
		if err := tx.QueryRow(ctx, `INSERT INTO recall.sources (external_id, scopes, title) VALUES ($1, $2, $3) RETURNING id`,
			"s"+string(rune('a'+i)), []string{s.scope}, s.name).Scan(&src); err != nil {
			t.Fatal(err)
		}
		memOfTitle[s.name] = insertMemory(s.scope, "from "+s.name, &src)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// The defaults, then fuzzy matching of long n-grams at a low floor, which reaches the
	// titles and names of every trigram-count range (their indexes are split by it).
	wide := statement.DefaultSettings()
	wide.TitleFuzzyWords, wide.TitleFloor, wide.MentionFloor = 16, 0.3, 0.3
	// At 0.5 the long mentions can only match names of 15 or more trigrams, which the probe
	// reads from the parts of the name index for them.
	mid := wide
	mid.TitleFloor, mid.MentionFloor = 0.5, 0.5
	// The fuzzy title probe finds titles by the trigram index or by the caller's title
	// trigrams (title_probe.sql); each way must give the reference's answer.
	for _, way := range []string{"index", "scope"} {
		cfg := db.Runtime.Config().Copy()
		cfg.ConnConfig.RuntimeParams["recall.title_probe"] = way
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		forced := *db
		forced.Runtime = pool
		// The setting took: only the scope way reads recall.title_trigrams.
		ptx := testdb.BeginAs(t, pool, []string{"acme"}, nil)
		scanned := func() int64 { // the backend's unflushed counts, earlier transactions' too
			var n int64
			if err := ptx.QueryRow(ctx, `SELECT coalesce(sum(coalesce(idx_scan, 0) + coalesce(seq_scan, 0)), 0) FROM pg_stat_xact_all_tables WHERE relid = 'recall.title_trigrams'::regclass`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := scanned()
		var found int64
		if err := ptx.QueryRow(ctx, `SELECT count(*) FROM recall.probe_titles('q3 planning pricing and packaging notes on apple river', 16, 6, 0.3)`).Scan(&found); err != nil {
			t.Fatal(err)
		}
		scans := scanned() - before
		_ = ptx.Rollback(ctx)
		// One scan is the probe's check that the caller sees a titled source.
		if (scans > 1) != (way == "scope") {
			t.Fatalf("title probe forced to %s: recall.title_trigrams scanned %d times", way, scans)
		}
		for _, s := range []statement.Settings{statement.DefaultSettings(), wide, mid} {
			checkNames(t, &forced, s, ents, titles, mentionsOf, memOfEntity, memOfTitle)
		}
		pool.Close()
	}

	// The probes run as the owner: called directly, they still return only visible rows,
	// although the "other" scope holds better matches for these queries.
	tx = testdb.BeginAs(t, db.Runtime, []string{"acme"}, nil)
	defer tx.Rollback(ctx) //nolint:errcheck
	if _, err := tx.Exec(ctx, `SET LOCAL pg_trgm.similarity_threshold = 0.3`); err != nil {
		t.Fatal(err)
	}
	for _, probe := range []string{
		`SELECT p.id, e.id IS NOT NULL FROM recall.probe_entities(ARRAY['bob ston', 'alicia martinez', 'acme corporations'], true, 0.3) p LEFT JOIN recall.entities e ON e.id = p.id`,
		`SELECT p.id, s.id IS NOT NULL FROM recall.probe_titles('q3 planning pricing and packaging notes on apple river', 16, 6, 0.3) p LEFT JOIN recall.sources s ON s.id = p.id`,
	} {
		rows, err := tx.Query(ctx, probe)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int64
			var visible bool
			if err := rows.Scan(&id, &visible); err != nil {
				t.Fatal(err)
			}
			if !visible {
				t.Errorf("%s: returned row %d, which the caller cannot see", probe, id)
			}
			n++
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		if n == 0 {
			t.Errorf("%s: returned nothing; the check above checks nothing", probe)
		}
	}
}

func checkNames(t *testing.T, db *testdb.DB, s statement.Settings, ents, titles []namedRow, mentionsOf map[int64][]string, memOfEntity, memOfTitle map[string]int64) {
	t.Helper()
	s.MentionK, s.MentionEntitiesK, s.TitleK, s.TitleSourcesK = 100, 100, 100, 100
	// The caller's visible memories: the acme ones that mention entities, and one per acme title.
	visible := float64(len(mentionsOf))
	for _, r := range titles {
		if r.scope == "acme" {
			visible++
		}
	}
	queries := []string{
		"What did Alicia Martinez tell Bob Ston about the acme corporation?",
		"notes on apple river: what changed for Bobby?",
		"In Q3 planning, pricing & packaging, what did we decide about pricing?",
		"AB testing of the annual report of the river commission on apple orchards in the northern valley",
		"Did Bob Stone carve the stone?",
		"what did the northern valley river commision tell the international commission on zoologcal nomenclature?",
		"nothing here matches",
	}
	mentionTies, titleTies := 0, 0
	for _, raw := range queries {
		q := statement.Query{Raw: raw, Text: raw}

		// Mention reference: an entity's similarity is 1 when its lowered name or alias is one
		// of the query's mentions, else its best similarity with one of the strong mentions
		// when at least the floor: the weak ones (ending with a stop word, starting with one
		// other than an article, or of words of at most two letters) are not probed fuzzily.
		mentions := statement.Mentions(raw)
		var mentionWords []string
		for _, m := range mentions {
			mentionWords = append(mentionWords, strings.Fields(m)...)
		}
		mstop := stopWords(t, db, mentionWords)
		weakMention := func(m string) bool {
			ws := strings.Fields(m)
			long := slices.ContainsFunc(ws, func(w string) bool { return len(w) > 2 })
			return mstop[ws[len(ws)-1]] || (mstop[ws[0]] && ws[0] != "the" && ws[0] != "a" && ws[0] != "an") || !long
		}
		entitySim := map[string]float64{}
		for _, e := range ents {
			if e.scope != "acme" {
				continue
			}
			sim := 0.0
			for _, m := range mentions {
				if m == strings.ToLower(e.name) || (e.alias != "" && m == strings.ToLower(e.alias)) {
					sim = 1
				} else if v := similarity(strings.ToLower(e.name), m); v >= s.MentionFloor-1e-6 && !weakMention(m) {
					sim = math.Max(sim, v)
				}
			}
			if sim > 0 {
				entitySim[e.name] = sim
			}
		}
		// A memory scores the sum over the named entities it mentions of sim * idf, idf from
		// the visible memories that mention the entity.
		df := map[string]float64{}
		for _, names := range mentionsOf {
			for _, n := range names {
				df[n]++
			}
		}
		want := map[int64]float64{}
		for m, names := range mentionsOf {
			for _, n := range names {
				if sim, ok := entitySim[n]; ok {
					want[m] += sim * math.Log(1+(visible-df[n]+0.5)/(df[n]+0.5))
				}
			}
		}
		got := run(t, db, []string{"acme"}, statement.Only(statement.Mention), q, s)
		mentionTies += checkLane(t, raw, "mention", got, statement.Mention, want, nil)

		// Title reference: similarity 1 when the title's key is a word n-gram of the query's key
		// (of at most TitleExactWords words, at least 3 characters), direct when the title has
		// at least TitleDirectWords words; else its best similarity with an n-gram of at most
		// TitleFuzzyWords words when at least the floor, among the n-grams that do not end
		// with a stop word, do not start with one other than an article, and have a word of
		// three letters or more.
		words := strings.Fields(titleKey(raw))
		stop := stopWords(t, db, words)
		weak := func(ws []string) bool {
			long := slices.ContainsFunc(ws, func(w string) bool { return len([]rune(w)) > 2 })
			first := ws[0]
			return stop[ws[len(ws)-1]] || (stop[first] && first != "the" && first != "a" && first != "an") || !long
		}
		// An n-gram inside (or equal to) one that is a visible title's key is not probed fuzzily.
		keys := map[string]bool{}
		for _, tt := range titles {
			if tt.scope == "acme" {
				keys[titleKey(tt.name)] = true
			}
		}
		exact := exactSpans(words, keys, s.TitleExactWords)
		want, direct := map[int64]float64{}, map[int64]bool{}
		for _, tt := range titles {
			if tt.scope != "acme" {
				continue
			}
			sim, isDirect := 0.0, false
			for i := range words {
				for n := 1; n <= s.TitleExactWords && i+n <= len(words); n++ {
					g := strings.Join(words[i:i+n], " ")
					if g == titleKey(tt.name) && len(g) >= 3 {
						sim, isDirect = 1, len(strings.Fields(g)) >= s.TitleDirectWords
					} else if n <= s.TitleFuzzyWords && !weak(words[i:i+n]) && !covered(exact, i, n) {
						if v := similarity(strings.ToLower(tt.name), g); v >= s.TitleFloor-1e-6 {
							sim = math.Max(sim, v)
						}
					}
				}
			}
			if sim > 0 {
				want[memOfTitle[tt.name]] = sim
				direct[memOfTitle[tt.name]] = isDirect
			}
		}
		got = run(t, db, []string{"acme"}, statement.Only(statement.Title), q, s)
		titleTies += checkLane(t, raw, "title", got, statement.Title, want, direct)
	}
	if mentionTies == 0 || titleTies == 0 {
		t.Fatalf("the queries give %d mention and %d title memories that tie: the mid-rank rule is untested", mentionTies, titleTies)
	}
}

// wordSpan is the n words of a question from its i-th.
type wordSpan struct{ i, n int }

// exactSpans are the spans of at most maxWords words of words whose text (the words joined by
// one space, of at least three characters) is one of keys: the title keys the question
// names exactly.
func exactSpans(words []string, keys map[string]bool, maxWords int) []wordSpan {
	var out []wordSpan
	for i := range words {
		for n := 1; n <= maxWords && i+n <= len(words); n++ {
			if g := strings.Join(words[i:i+n], " "); keys[g] && len(g) >= 3 {
				out = append(out, wordSpan{i, n})
			}
		}
	}
	return out
}

// covered says whether the span of n words from the i-th lies inside (or is) one of spans:
// the fuzzy title probe does not probe such an n-gram.
func covered(spans []wordSpan, i, n int) bool {
	return slices.ContainsFunc(spans, func(e wordSpan) bool { return e.i <= i && i+n <= e.i+e.n })
}

// stopWords says which of words PostgreSQL's English configuration drops (its stop words).
func stopWords(t *testing.T, db *testdb.DB, words []string) map[string]bool {
	t.Helper()
	rows, err := db.Owner.Query(context.Background(), `SELECT x, to_tsvector('english', x) = ''::tsvector FROM unnest($1::text[]) AS x`, words)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var w string
	var isStop bool
	if _, err := pgx.ForEachRow(rows, []any{&w, &isStop}, func() error { out[w] = isStop; return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkLane compares a lane's candidates with the expected scores (and direct flags, when
// given): the same memories, scores within float4 precision, ranked by score with tied
// memories sharing their mid rank. It returns how many memories tie with another.
func checkLane(t *testing.T, query, lane string, got []statement.Candidate, l statement.Lane, want map[int64]float64, direct map[int64]bool) int {
	t.Helper()
	ranks, tied := midRanks(want, 1e-6)
	for _, c := range got {
		if r, ok := ranks[c.ID]; ok && c.Lanes[l].Rank != r {
			t.Errorf("%q: %s lane memory %d rank %d, want %d (scores tied share their mid rank)", query, lane, c.ID, c.Lanes[l].Rank, r)
		}
	}
	if len(got) != len(want) {
		var ids []int64
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		t.Fatalf("%q: %s lane returned %d memories %v, want %d %v", query, lane, len(got), ids, len(want), want)
	}
	order := make([]int64, 0, len(want))
	for id := range want {
		order = append(order, id)
	}
	sort.Slice(order, func(i, j int) bool {
		if want[order[i]] != want[order[j]] {
			return want[order[i]] > want[order[j]]
		}
		return order[i] < order[j]
	})
	byRank := slices.Clone(got)
	sort.Slice(byRank, func(i, j int) bool { return byRank[i].Lanes[l].Rank < byRank[j].Lanes[l].Rank })
	for i, c := range byRank {
		w, ok := want[c.ID]
		if !ok {
			t.Fatalf("%q: %s lane returned memory %d, which the rule does not match", query, lane, c.ID)
		}
		if math.Abs(c.Lanes[l].Score-w) > 1e-6 {
			t.Errorf("%q: %s lane memory %d score %v, want %v", query, lane, c.ID, c.Lanes[l].Score, w)
		}
		if math.Abs(want[order[i]]-w) > 1e-6 {
			t.Errorf("%q: %s lane rank %d is memory %d (score %v), want score %v", query, lane, i+1, c.ID, w, want[order[i]])
		}
		if direct != nil && c.Direct != direct[c.ID] {
			t.Errorf("%q: %s lane memory %d direct %v, want %v", query, lane, c.ID, c.Direct, direct[c.ID])
		}
	}
	return tied
}

// TestMentions: the query's mentions drop possessives and add the singular of a plural.
func TestMentions(t *testing.T) {
	t.Parallel()
	for q, want := range map[string][]string{
		"What is Jon's tattoo?":    {"what", "what is", "what is jon", "what is jon tattoo", "is", "is jon", "is jon tattoo", "jon", "jon tattoo", "tattoo"},
		"Kofi’s dogs":              {"kofi", "kofi dogs", "kofi dog", "dogs", "dog"},
		"the parents' parties":     {"the", "the parents", "the parent", "the parents parties", "the parents party", "parents", "parent", "parents parties", "parents party", "parties", "party"},
		"glass bus this":           {"glass", "glass bus", "glass bus this", "bus", "bus this", "this"},
		"Alice Martin, Bob-Stone.": {"alice", "alice martin", "alice martin bob-stone", "martin", "martin bob-stone", "bob-stone"},
	} {
		if got := statement.Mentions(q); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", q, got, want)
		}
	}
}
