package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// ChatVersion changes whenever the generated chat changes, so cached databases are rebuilt.
const ChatVersion = 1

// ChatConfig sizes a long chat between a user and an assistant: Messages turns in sessions
// of PerSession, each session on a topic, the user and the assistant taking turns. Zero
// fields take the defaults (1,200 messages, 20 a session, seed 42).
type ChatConfig struct {
	Messages   int
	PerSession int
	Seed       uint64
}

// Chat generates the turns of a long user-assistant chat: the shape of the memory an agent
// keeps of its user (long messages, sentences, the user speaking of themself and the
// assistant of "you", people and places named), with the pseudo-words of a Corpus as content
// words, so the lexical lanes, the passages, the names and the context lane see what they see
// on real chats. A user's turn holds 100-250 words, an assistant's 150-400.
type Chat struct {
	Cfg    ChatConfig
	corpus *Corpus
}

// ChatTurn is one message of the chat.
type ChatTurn struct {
	ID       string
	Session  int // its source: "session N"
	Position int // from 1 within the session
	Speaker  string
	Text     string
	At       time.Time
}

// Function words of each side: the user speaks of themself, the assistant to "you".
var (
	userWords = strings.Fields(`I I I my my me the the the a a and and to to of in it that is was for on with
		about I've I'm we our this have had been just so but really`)
	assistantWords = strings.Fields(`you you your your the the the a a and and to to of in it that is for on with
		can could here some also these this are be may would if or as`)
)

// NewChat returns the chat of cfg (after its defaults).
func NewChat(cfg ChatConfig) *Chat {
	if cfg.Messages == 0 {
		cfg.Messages = 1200
	}
	if cfg.PerSession == 0 {
		cfg.PerSession = 20
	}
	if cfg.Seed == 0 {
		cfg.Seed = 42
	}
	return &Chat{Cfg: cfg, corpus: New(Config{N: cfg.Messages, Seed: cfg.Seed})}
}

// Sessions is how many sessions (sources) the chat has.
func (ch *Chat) Sessions() int { return (ch.Cfg.Messages + ch.Cfg.PerSession - 1) / ch.Cfg.PerSession }

// Turn generates message i (0 <= i < Messages); the same i always gives the same turn.
func (ch *Chat) Turn(i int) ChatTurn {
	c := ch.corpus
	r := c.rng(6, uint64(i))
	session, pos := i/ch.Cfg.PerSession, i%ch.Cfg.PerSession
	topic := (session * 7919) % c.Cfg.Topics
	speaker, fn, n := "user", userWords, 100+r.IntN(151)
	if pos%2 == 1 {
		speaker, fn, n = "assistant", assistantWords, 150+r.IntN(251)
	}
	z := rand.NewZipf(r, 1.07, 2, uint64(c.Cfg.Vocab-1))
	names := 1 + r.IntN(3)
	var b strings.Builder
	words, inSentence := 0, 0
	sentence := 6 + r.IntN(14)
	for words < n {
		var w string
		switch f := r.Float64(); {
		case names > 0 && f < 0.02:
			w = c.People[(topic*3+r.IntN(6))%len(c.People)]
			names--
		case f < 0.45:
			w = fn[r.IntN(len(fn))]
		case f < 0.65:
			tw := c.TopicWord[topic]
			w = c.Words[tw[int(float64(len(tw))*r.Float64()*r.Float64())]]
		default:
			w = c.Words[z.Uint64()]
		}
		if inSentence == 0 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			w = capital(w)
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		words, inSentence = words+1, inSentence+1
		if inSentence == sentence || words == n {
			b.WriteByte('.')
			inSentence, sentence = 0, 6+r.IntN(14)
		}
	}
	at := Base.Add(time.Duration(session)*26*time.Hour + time.Duration(pos)*2*time.Minute)
	return ChatTurn{ID: fmt.Sprintf("t%d", i), Session: session, Position: pos + 1, Speaker: speaker, Text: b.String(), At: at}
}

// Question generates question i: three words of a user's turn asked back ("what did I say
// about ...?"), or, one time in four, of an assistant's ("what did you suggest about ...?"),
// the turn chosen from the seed. Evidence is that turn.
func (ch *Chat) Question(i int) (question, evidence string) {
	r := ch.corpus.rng(7, uint64(i))
	t := r.IntN(ch.Cfg.Messages)
	form := "What did I say about %s?"
	if r.IntN(4) == 0 && ch.Cfg.Messages > 1 {
		t = min(t|1, (ch.Cfg.Messages-2)|1) // an assistant's turn: odd places
		form = "What did you suggest about %s?"
	} else {
		t &^= 1 // a user's: even places
	}
	turn := ch.Turn(t)
	var content []string
	for _, w := range strings.Fields(strings.ToLower(strings.ReplaceAll(turn.Text, ".", ""))) {
		if len(w) > 4 && !containsS(content, w) && !containsS(userWords, w) && !containsS(assistantWords, w) {
			content = append(content, w)
		}
	}
	r.Shuffle(len(content), func(a, b int) { content[a], content[b] = content[b], content[a] })
	return fmt.Sprintf(form, strings.Join(content[:min(3, len(content))], " ")), turn.ID
}
