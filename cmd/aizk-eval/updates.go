package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recall-engine/recall/internal/command/cli"
)

// The knowledge-update data set (issue 35): people who tell a friend, over dated sessions,
// where they live and what they do, and who move and change jobs. Every update states the
// new value and names the statement it replaces (metadata "supersedes", from "valid_from").
// Questions ask the current value ("Where does Ana live now?") or the value at a month
// ("Where did Ana live in March 2023?", metadata "as_of"); each is judged by the statement
// that holds then (score 1) and against every other statement of that attribute (score -1:
// stale), so current@k says whether the top k holds the right fact and not a replaced one.
// Only attributes that changed are asked about. The generator is deterministic in its seed.
var (
	updPeople = []string{"Ana", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas",
		"Kira", "Liam", "Maya", "Nico", "Olga", "Pablo", "Rosa", "Sven", "Tara", "Umar"}
	updAttrs = []updAttr{
		{"city", []string{"Lisbon", "Berlin", "Madrid", "Oslo", "Prague", "Vienna", "Dublin", "Krakow", "Porto", "Lyon", "Ghent", "Turin"},
			[]string{"I live in %s now.", "We just moved to %s.", "I'm settled in %s these days."},
			"I miss the cafes in %s sometimes.", "Where does %s live now?", "Where did %s live in %s?"},
		{"job", []string{"nurse", "teacher", "baker", "pilot", "architect", "chemist", "librarian", "carpenter", "designer", "lawyer"},
			[]string{"I work as a %s now.", "I started a new job as a %s.", "These days I'm a %s."},
			"My old colleagues from my %s days called.", "What does %s do for work now?", "What was %s's job in %s?"},
	}
	updSessions = []string{"2023-01-10", "2023-03-14", "2023-06-02", "2023-08-21", "2023-11-05"}
	updFiller   = []string{"Sam: How was your week?", "%s: Busy, but good. The weather was awful.", "Sam: Say hi to everyone from me."}
)

type updAttr struct {
	name           string
	values, states []string
	aside          string // a passing mention of an old value: no statement of the fact
	now, past      string
}

type updDoc struct {
	ID       string         `json:"_id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

type updQuery struct {
	ID       string         `json:"_id"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

// updFact is one stated value of an attribute, and the time it held from.
type updFact struct {
	id, value string
	from      time.Time
}

// genUpdates builds the data set for n people.
func genUpdates(n int, seed uint64) (docs []updDoc, queries []updQuery, qrels [][3]string) {
	r := rand.New(rand.NewPCG(seed, 35))
	for _, p := range updPeople[:n] {
		conv := "upd-" + strings.ToLower(p)
		said := make([][]updFact, len(updAttrs))
		turn := 0
		add := func(session int, speaker, text string, meta map[string]any) string {
			turn++
			id := fmt.Sprintf("%s:D%d:%d", conv, session+1, turn)
			m := map[string]any{"conv": conv, "session": fmt.Sprintf("session_%d", session+1), "date": updSessions[session], "speaker": speaker}
			for k, v := range meta {
				m[k] = v
			}
			docs = append(docs, updDoc{ID: id, Text: speaker + ": " + strings.TrimPrefix(text, speaker+": "), Metadata: m})
			return id
		}
		for s, date := range updSessions {
			day, _ := time.Parse(time.DateOnly, date)
			add(s, "Sam", updFiller[0], nil)
			for a, at := range updAttrs {
				prev := said[a]
				if len(prev) > 0 && r.IntN(2) == 0 {
					if r.IntN(2) == 0 { // a passing mention of an old value
						add(s, p, fmt.Sprintf(at.aside, prev[r.IntN(len(prev))].value), nil)
					}
					continue
				}
				v := at.values[r.IntN(len(at.values))]
				for len(prev) > 0 && v == prev[len(prev)-1].value {
					v = at.values[r.IntN(len(at.values))]
				}
				meta := map[string]any{"valid_from": date}
				if len(prev) > 0 {
					meta["supersedes"] = []string{prev[len(prev)-1].id}
				}
				state := at.states[0]
				if len(prev) > 0 {
					state = at.states[1+r.IntN(len(at.states)-1)]
				}
				id := add(s, p, fmt.Sprintf(state, v), meta)
				said[a] = append(said[a], updFact{id, v, day})
			}
			add(s, p, fmt.Sprintf(updFiller[1], p), nil)
			add(s, "Sam", updFiller[2], nil)
		}
		for a, at := range updAttrs {
			st := said[a]
			if len(st) < 2 {
				continue // never changed: nothing stale to tell apart
			}
			judge := func(qid string, holds int) {
				for i, x := range st {
					score := "-1"
					if i == holds {
						score = "1"
					}
					qrels = append(qrels, [3]string{qid, x.id, score})
				}
			}
			qid := fmt.Sprintf("%s:%s:now", conv, at.name)
			queries = append(queries, updQuery{qid, fmt.Sprintf(at.now, p), map[string]any{"conv": conv, "category_name": "current"}})
			judge(qid, len(st)-1)
			// A month when an earlier value held.
			i := r.IntN(len(st) - 1)
			at1 := st[i].from.AddDate(0, 0, 20)
			qid = fmt.Sprintf("%s:%s:past", conv, at.name)
			queries = append(queries, updQuery{qid, fmt.Sprintf(at.past, p, at1.Format("January 2006")),
				map[string]any{"conv": conv, "category_name": "past", "as_of": at1.Format(time.DateOnly)}})
			judge(qid, i)
		}
	}
	return docs, queries, qrels
}

// updates: aizk-eval updates --out DIR [--people N] [--seed S]
func (m *Main) updates(_ context.Context, args []string) error {
	fs := m.Flags("updates")
	out := fs.String("out", "", "the directory to write (BEIR format)")
	people := fs.Int("people", len(updPeople), fmt.Sprintf("people, 1 to %d", len(updPeople)))
	seed := fs.Uint64("seed", 1, "the generator's seed")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "usage: aizk-eval updates --out DIR [--people N] [--seed S]\n\n"+
			"Writes the knowledge-update data set: people who move and change jobs over dated sessions,\n"+
			"each update naming the statement it replaces, and questions about the current value and a\n"+
			"past one, judged by the statement that holds (1) and against the replaced ones (-1). Run it\n"+
			"with --scope-field conv --speaker-field speaker --time-field date --session-field session\n"+
			"--supersedes-field supersedes --valid-from-field valid_from --as-of-field as_of, and\n"+
			"without the last three for the same memories with no validity.\n\nflags:")
		fs.PrintDefaults()
	}
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *out == "" || *people < 1 || *people > len(updPeople) {
		fs.Usage()
		return fmt.Errorf("%w: --out is required, --people 1 to %d", cli.ErrUsage, len(updPeople))
	}
	docs, queries, qrels := genUpdates(*people, *seed)
	if err := os.MkdirAll(filepath.Join(*out, "qrels"), 0o755); err != nil {
		return err
	}
	lines := func(name string, n int, row func(i int) any) error {
		var b strings.Builder
		for i := range n {
			j, err := json.Marshal(row(i))
			if err != nil {
				return err
			}
			b.Write(append(j, '\n'))
		}
		return os.WriteFile(filepath.Join(*out, name), []byte(b.String()), 0o644)
	}
	if err := lines("corpus.jsonl", len(docs), func(i int) any { return docs[i] }); err != nil {
		return err
	}
	if err := lines("queries.jsonl", len(queries), func(i int) any { return queries[i] }); err != nil {
		return err
	}
	var q strings.Builder
	q.WriteString("query-id\tcorpus-id\tscore\n")
	for _, x := range qrels {
		q.WriteString(strings.Join(x[:], "\t") + "\n")
	}
	if err := os.WriteFile(filepath.Join(*out, "qrels", "test.tsv"), []byte(q.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %d people, %d memories, %d questions (seed %d)\n", *out, *people, len(docs), len(queries), *seed)
	return nil
}
