package eval

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recall-engine/recall/statement"
)

// Messages is d as a messaging app would hold it: every document with a session (a turn of a
// conversation) becomes its messages, one document each, in order, with the turn's metadata:
// its sentences, and each bracketed part ("[shares image: ...]") on its own, as a photo is a
// message of its own. A message keeps the turn's "Speaker: " prefix when the turn has one.
// Message ids are the turn's with "#1", "#2", ...; a turn of one message keeps its id. The
// queries and judgments are d's, by turn: Parent maps each message to its turn, and
// Search scores a ranking of messages by the turns they come from (a turn is found at the
// place of its first message). Documents without a session are left whole.
//
// With answerField, a query judges messages instead, as one would judge a chat: of each turn
// it judges, the messages that share the most words with the answer its metadata field
// answerField holds (then with the question), the turn's other messages unjudged; Parent is
// then nil, as rankings are scored by the messages themselves.
func Messages(d *Dataset, sessionField, answerField string) (*Dataset, error) {
	if sessionField == "" {
		return nil, fmt.Errorf("messages: a session field is needed: the turns to split are the documents that have one")
	}
	out := &Dataset{Queries: d.Queries, QueryMeta: d.QueryMeta, Qrels: d.Qrels, Parent: map[string]string{}}
	for _, doc := range d.Corpus {
		s, _ := doc.Metadata[sessionField].(string)
		parts := []string{doc.Text}
		if s != "" {
			parts = SplitMessages(doc.Text)
		}
		if len(parts) <= 1 {
			out.Corpus = append(out.Corpus, doc)
			out.Parent[doc.ID] = doc.ID
			continue
		}
		for i, p := range parts {
			m := doc
			m.ID = fmt.Sprintf("%s#%d", doc.ID, i+1)
			m.Text = p
			m.Metadata = maps.Clone(doc.Metadata)
			out.Corpus = append(out.Corpus, m)
			out.Parent[m.ID] = doc.ID
		}
	}
	if answerField != "" {
		out.Qrels, out.Parent = judgeMessages(out, answerField), nil
	}
	return out, nil
}

// judgeMessages moves d's judgments from turns to their messages (Messages says which).
func judgeMessages(d *Dataset, answerField string) map[string]Qrels {
	kids := map[string][]int{}
	for i, doc := range d.Corpus {
		kids[d.Parent[doc.ID]] = append(kids[d.Parent[doc.ID]], i)
	}
	out := map[string]Qrels{}
	for q, rel := range d.Qrels {
		var answer map[string]bool
		if a, ok := d.QueryMeta[q][answerField]; ok && a != nil {
			answer = contentWords(fmt.Sprint(a))
		}
		question := contentWords(d.Queries[q])
		out[q] = Qrels{}
		for turn, g := range rel {
			if g <= 0 || len(kids[turn]) == 0 {
				out[q][turn] = g
				continue
			}
			best, with := [2]int{-1, -1}, []string(nil)
			for _, i := range kids[turn] {
				w := contentWords(d.Corpus[i].Text)
				s := [2]int{overlap(w, answer), overlap(w, question)}
				switch {
				case s[0] > best[0] || s[0] == best[0] && s[1] > best[1]:
					best, with = s, []string{d.Corpus[i].ID}
				case s == best:
					with = append(with, d.Corpus[i].ID)
				}
			}
			for _, id := range with {
				out[q][id] = g
			}
		}
	}
	return out
}

// contentWords are the lower-cased words of s (letters and digits) but a few that frame
// rather than say. Unlike summarize.Words it keeps words of one and two characters: an
// answer's day ("7 May") or age ("32") is often one.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !frameWords[w] {
			out[w] = true
		}
	}
	return out
}

var frameWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the and or but of to in on at by for with is are was were be been i me my you your he him his she her it its they them their we us our what when where who whom why how did does do which that this these those s t") {
		m[w] = true
	}
	return m
}()

// overlap counts the words a and b share.
func overlap(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

// SplitMessages cuts a turn's text into messages: after a run of '.', '!' or '?' followed by
// a space, and around a bracketed part, never inside brackets. A leading "Name: " (a name of
// at most four words before the first colon) is the speaker's label and starts every
// message. Parts left without a letter or digit join the message before them.
func SplitMessages(text string) []string {
	label, body := "", strings.TrimSpace(text)
	if i := strings.Index(body, ": "); i > 0 && len(strings.Fields(body[:i])) <= 4 && !strings.ContainsAny(body[:i], ".!?[]") {
		label, body = body[:i+2], strings.TrimSpace(body[i+2:])
	}
	var parts []string
	var cur strings.Builder
	cut := func() {
		p := strings.TrimSpace(cur.String())
		cur.Reset()
		if p == "" {
			return
		}
		if !strings.ContainsFunc(p, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) && len(parts) > 0 {
			parts[len(parts)-1] += " " + p
			return
		}
		parts = append(parts, p)
	}
	depth := 0
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRuneInString(body[i:])
		switch {
		case r == '[':
			if depth == 0 {
				cut()
			}
			depth++
		case r == ']' && depth > 0:
			depth--
		}
		cur.WriteRune(r)
		i += n
		if r == ']' && depth == 0 {
			cut()
			continue
		}
		if depth == 0 && strings.ContainsRune(".!?", r) {
			j := i
			for j < len(body) && strings.ContainsRune(".!?", rune(body[j])) {
				cur.WriteByte(body[j])
				j++
			}
			i = j
			if i == len(body) || body[i] == ' ' {
				cut()
			}
		}
	}
	cut()
	for i := range parts {
		parts[i] = label + parts[i]
	}
	return parts
}

// ToParents scores one ranking by parent: each id becomes its parent (an id parent does not
// hold stays itself), but one whose parent came earlier stays itself, unjudged, so a turn
// counts once, at the place of its first message.
func ToParents(ids []string, parent map[string]string) []string {
	if len(parent) == 0 {
		return ids
	}
	out := make([]string, len(ids))
	seen := map[string]bool{}
	for i, id := range ids {
		p, ok := parent[id]
		if !ok || seen[p] {
			out[i] = id
			continue
		}
		seen[p] = true
		out[i] = p
	}
	return out
}

// Search is search with its rankings scored by d's parents (ToParents) when d was cut into
// messages, search itself otherwise.
func (d *Dataset) Search(search SearchFunc) SearchFunc {
	if d.Parent == nil {
		return search
	}
	return func(ctx context.Context, q Query, plan statement.Plan, budget int) ([]string, error) {
		ids, err := search(ctx, q, plan, budget)
		if err != nil {
			return nil, err
		}
		return ToParents(ids, d.Parent), nil
	}
}
