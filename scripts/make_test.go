package scripts_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestMakeHelpPlain: make help writes no terminal escape codes into a pipe (it bolds target
// names only on a terminal), and lists the targets a user starts with.
func TestMakeHelpPlain(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	cmd := exec.Command("make", "-s", "-C", "..", "help")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(out.Bytes(), 0x1b) >= 0 {
		t.Fatalf("escape codes in a pipe: %q", out.String())
	}
	for _, target := range []string{"test", "demo", "db"} {
		if !strings.Contains(out.String(), "  "+target+" ") {
			t.Fatalf("make help lacks %s:\n%s", target, out.String())
		}
	}
}
