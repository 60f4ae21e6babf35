package synth

import (
	"strings"
	"testing"
)

// TestChat: the chat has the shape the long-chat benchmark claims: turns of 100-400 words,
// the user and the assistant taking turns from the user, sessions of PerSession places from
// 1, the same turn for the same index; a question's words are its evidence turn's.
func TestChat(t *testing.T) {
	t.Parallel()
	ch := NewChat(ChatConfig{Messages: 131})
	if ch.Sessions() != 7 {
		t.Fatalf("%d sessions, want 7", ch.Sessions())
	}
	for i := range ch.Cfg.Messages {
		turn := ch.Turn(i)
		n := len(strings.Fields(turn.Text))
		speaker := []string{"user", "assistant"}[i%2]
		if n < 100 || n > 400+3*2 || turn.Speaker != speaker || turn.Session != i/20 || turn.Position != i%20+1 {
			t.Fatalf("turn %d: %d words, %s, session %d place %d", i, n, turn.Speaker, turn.Session, turn.Position)
		}
		if again := ch.Turn(i); again != turn {
			t.Fatalf("turn %d differs when made again", i)
		}
	}
	for i := range 50 {
		q, id := ch.Question(i)
		var turn ChatTurn
		for j := range ch.Cfg.Messages {
			if ch.Turn(j).ID == id {
				turn = ch.Turn(j)
			}
		}
		asks := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(q, "What did I say about "), "What did you suggest about "), "?")
		if asks == q || turn.Speaker == "" || (strings.Contains(q, "you suggest") != (turn.Speaker == "assistant")) {
			t.Fatalf("question %d %q: evidence %s by %q", i, q, id, turn.Speaker)
		}
		text := strings.ToLower(turn.Text)
		for _, w := range strings.Fields(asks) {
			if !strings.Contains(text, w) {
				t.Fatalf("question %d %q: %q is not in %s", i, q, w, id)
			}
		}
	}
}
