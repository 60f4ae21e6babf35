package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// lmeQuestion is one question of LongMemEval's JSON files (longmemeval_s.json,
// longmemeval_m.json, longmemeval_oracle.json): the question, its haystack of dated chat
// sessions, and the sessions (and turns, has_answer) that hold the answer.
type lmeQuestion struct {
	ID         string      `json:"question_id"`
	Type       string      `json:"question_type"`
	Question   string      `json:"question"`
	Answer     any         `json:"answer"`
	Date       string      `json:"question_date"`
	SessionIDs []string    `json:"haystack_session_ids"`
	Dates      []string    `json:"haystack_dates"`
	Sessions   [][]lmeTurn `json:"haystack_sessions"`
	AnswerIn   []string    `json:"answer_session_ids"`
}

type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// lmeAbstention ends the id of a question whose answer is not in its haystack.
const lmeAbstention = "_abs"

// lmeLayout is how LongMemEval writes times: "2023/05/20 (Sat) 02:21".
const lmeLayout = "2006/01/02 (Mon) 15:04"

// LoadLongMemEval reads a LongMemEval JSON file as a data set: each question is a scope of
// its own (metadata "conv": its question_id) holding its haystack, one document per turn
// (id "question:session:turn", the turn's content, metadata "session", "date" in RFC 3339,
// "speaker" the role); the question's metadata carries "conv", "category_name" (its
// question_type), "question_date" (RFC 3339) and "answer". A question is judged by the turns
// marked has_answer, else by every turn of its answer sessions; an abstention question (its
// id ends in "_abs": the answer is not in the haystack) is left unjudged, as LongMemEval's own
// retrieval evaluation leaves it. A turn with no text (the release has a few) is not a
// memory: it is skipped, and the turns after it keep their numbers. A session the haystack
// holds again is a session of its own, "<session>~2". Run it with --scope-field conv --speaker-field speaker --time-field date
// --session-field session --query-time-field question_date. Errors name the question.
func LoadLongMemEval(path string) (*Dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var qs []lmeQuestion
	if err := json.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("%s: not a LongMemEval file (a JSON array of questions): %w", path, err)
	}
	d := &Dataset{Queries: map[string]string{}, QueryMeta: map[string]map[string]any{}, Qrels: map[string]Qrels{}}
	rfc := func(s string) (string, error) {
		t, err := time.Parse(lmeLayout, strings.TrimSpace(s))
		if err != nil {
			return "", fmt.Errorf("time %q: want LongMemEval's %q", s, lmeLayout)
		}
		return t.Format(time.RFC3339), nil
	}
	for i, q := range qs {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s: question %d (%q): %s", path, i, q.ID, fmt.Sprintf(format, args...))
		}
		switch {
		case q.ID == "" || strings.TrimSpace(q.Question) == "":
			return nil, bad("question_id and question are required")
		case len(q.SessionIDs) != len(q.Sessions) || len(q.Dates) != len(q.Sessions):
			return nil, bad("%d haystack_session_ids, %d haystack_dates, %d haystack_sessions: want as many of each",
				len(q.SessionIDs), len(q.Dates), len(q.Sessions))
		}
		if _, dup := d.Queries[q.ID]; dup {
			return nil, bad("question_id seen before")
		}
		asked, err := rfc(q.Date)
		if err != nil {
			return nil, bad("question_date: %v", err)
		}
		answerIn := map[string]bool{}
		for _, s := range q.AnswerIn {
			answerIn[s] = true
		}
		marked, inSessions := Qrels{}, Qrels{}
		seen := map[string]int{}
		for s, turns := range q.Sessions {
			// A haystack may hold the same session twice, on two dates (eight questions of
			// the S dev sample do): the second is a session of its own, "<id>~2".
			sid := q.SessionIDs[s]
			if seen[sid]++; seen[sid] > 1 {
				sid = fmt.Sprintf("%s~%d", sid, seen[sid])
			}
			date, err := rfc(q.Dates[s])
			if err != nil {
				return nil, bad("haystack_dates[%d]: %v", s, err)
			}
			for t, turn := range turns {
				if strings.TrimSpace(turn.Content) == "" {
					continue
				}
				id := fmt.Sprintf("%s:%s:%d", q.ID, sid, t+1)
				d.Corpus = append(d.Corpus, Doc{ID: id, Text: turn.Content, Metadata: map[string]any{
					"conv": q.ID, "session": sid, "date": date, "speaker": turn.Role}})
				if turn.HasAnswer {
					marked[id] = 1
				}
				if answerIn[q.SessionIDs[s]] {
					inSessions[id] = 1
				}
			}
		}
		d.Queries[q.ID] = q.Question
		d.QueryMeta[q.ID] = map[string]any{"conv": q.ID, "category_name": q.Type, "question_date": asked, "answer": q.Answer}
		switch {
		case strings.HasSuffix(q.ID, lmeAbstention):
		case len(marked) > 0:
			d.Qrels[q.ID] = marked
		case len(inSessions) > 0:
			d.Qrels[q.ID] = inSessions
		}
	}
	return d, nil
}

// Load reads a data set: a LongMemEval JSON file (a path ending in .json), else a BEIR-format
// directory with the qrels of split.
func Load(path, split string) (*Dataset, error) {
	if st, err := os.Stat(path); err == nil && !st.IsDir() && strings.HasSuffix(path, ".json") {
		return LoadLongMemEval(path)
	}
	return LoadBEIR(path, split)
}
