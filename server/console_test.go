package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/recall-engine/recall"
	"github.com/recall-engine/recall/server"
)

// hostile is a memory text that would run script if the console put it on the page as
// markup.
const hostile = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> The harbor alarm code is 4471.`

// browser starts headless Chromium (RECALL_CHROMIUM, else chromium on PATH; make test
// installs it) and returns a tab's context. Without either the test is skipped, unless
// RECALL_CHROMIUM or CI is set: then a missing browser fails it.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("RECALL_CHROMIUM")
	if path == "" {
		p, err := exec.LookPath("chromium")
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("no chromium under CI: make test installs it (scripts/chromium-install.sh)")
			}
			t.Skip("no chromium: make test installs it (scripts/chromium-install.sh)")
		}
		path = p
	} else if _, err := os.Stat(path); err != nil {
		t.Fatalf("RECALL_CHROMIUM=%s: %v", path, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTime)
	return ctx
}

// run runs browser actions, failing the test on an error.
func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval returns a JavaScript expression's value, decoded into a value of type T.
func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it holds.
func waitFor(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("wait for %s: %v", what, err)
	}
}

// shot saves a screenshot of the page when RECALL_CONSOLE_SHOTS names a directory (make
// screenshots: docs/console).
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("RECALL_CONSOLE_SHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// submit submits a form as a person does (its submit event runs the page's handler;
// chromedp.Submit calls form.submit(), which skips it).
func submit(id string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](`document.getElementById(`+strconv.Quote(id)+`).requestSubmit()`)(ctx, tg)
		return chromedp.Void{}, err
	}
}

func signIn(t *testing.T, ctx context.Context, url, key string) {
	t.Helper()
	run(t, ctx, "sign in",
		chromedp.Navigate(url+"/console/"),
		func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := chromedp.Evaluate[any](`sessionStorage.clear()`)(ctx, tg)
			return chromedp.Void{}, err
		},
		chromedp.Navigate(url+"/console/"),
		chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), key),
		submit("login-form"),
		chromedp.WaitVisible(chromedp.ID("app")))
}

// TestConsole drives the console in headless Chromium against a real server on loopback:
// sign in with a key, ask and see the API's first memory first with its lanes; open the
// trace and see every lane's list and each candidate's contribution bar; browse, open a
// turn and see its neighbours; write a note, upload JSONL (a bad line named), forget with a
// confirmation; a read-only key sees no write controls and the server refuses its write
// from the page; a hostile memory text shows as text and runs nothing; a key for one scope
// never shows another's memories; the key is never in the URL and stays in the tab.
func TestConsole(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := browser(t)
	bg := context.Background()
	ana := recall.User{ID: "ana", Read: []string{"team", "ops"}, Write: []string{"team"}}
	var turns []recall.Memory
	for i, s := range []string{"Did the crane pass inspection?", "Yes, on Monday.", "Who signed it?", "Alice Martin signed it.", "Good.", "See you at the quay."} {
		turns = append(turns, recall.Memory{ID: fmt.Sprintf("c1-%d", i+1), Source: "c1", Position: i + 1, Speaker: []string{"Ana", "Bo"}[i%2], Kind: "experience", Text: s})
	}
	if _, err := w.engine.Write(bg, ana, recall.Batch{Sources: []recall.Source{{ID: "c1", Title: "Crane chat"}},
		Memories: append(turns, recall.Memory{ID: "hostile", Text: hostile})}); err != nil {
		t.Fatal(err)
	}

	// The API's own answer to the question, for the page to show.
	question := map[string]any{"query": "Who fixed the team crane 3?", "budget": 1000}
	r := w.do(t, "POST", "/v1/recall", w.keys["ana"], question)
	apiPack := pack(t, r)
	if len(apiPack.Items) == 0 || apiPack.Items[0].ExternalID != "team-3" {
		t.Fatalf("the API's pack: %v, want team-3 first", itemIDs(apiPack))
	}

	// Ask.
	signIn(t, ctx, w.url, w.keys["ana"])
	if href := eval[string](t, ctx, `location.href`); strings.Contains(href, w.keys["ana"]) {
		t.Fatalf("the key is in the URL: %s", href)
	}
	if got := eval[string](t, ctx, `sessionStorage.getItem("recall.key") + "|" + localStorage.length`); got != w.keys["ana"]+"|0" {
		t.Fatalf("key storage: %q", got)
	}
	// Every control has a name a screen reader reads (a label, or aria-label).
	if unlabeled := eval[[]string](t, ctx, `[...document.querySelectorAll("input, select, textarea, button")].filter(e =>
		!(e.labels && e.labels.length) && !e.getAttribute("aria-label") && !e.textContent.trim()).map(e => e.id || e.outerHTML)`); len(unlabeled) > 0 {
		t.Fatalf("controls without a label: %v", unlabeled)
	}
	// Keyboard alone: arrows move between the tabs, Enter in the question asks.
	run(t, ctx, "tabs by keyboard", chromedp.Focus(chromedp.ID("tab-ask")), chromedp.KeyEvent(kb.ArrowRight))
	if got := eval[string](t, ctx, `document.activeElement.id + "|" + document.getElementById("view-why").hidden`); got != "tab-why|false" {
		t.Fatalf("ArrowRight on the Ask tab: %s, want the Why tab focused and shown", got)
	}
	run(t, ctx, "back", chromedp.KeyEvent(kb.ArrowLeft))
	run(t, ctx, "ask by keyboard",
		chromedp.SendKeys(chromedp.ID("q"), "Who fixed the team crane 3?\r"))
	waitFor(t, ctx, "the pack", `document.querySelectorAll("#items > li").length > 0`)
	first := eval[string](t, ctx, `document.querySelector("#items > li").dataset.id`)
	chips := eval[[]string](t, ctx, `[...document.querySelectorAll("#items > li:first-child > .chips > .chip")].map(c => c.textContent)`)
	var raw struct {
		Items []struct {
			Lanes map[string]struct{ Rank int } `json:"lanes"`
		} `json:"items"`
	}
	if err := json.Unmarshal(r.body, &raw); err != nil {
		t.Fatal(err)
	}
	var want []string
	for lane, h := range raw.Items[0].Lanes {
		want = append(want, fmt.Sprintf("%s #%d", lane, h.Rank))
	}
	slices.Sort(chips)
	slices.Sort(want)
	if first != "team-3" || len(chips) == 0 || !slices.Equal(chips, want) {
		t.Fatalf("the page's first item %s with lanes %v; the API's team-3 with %v", first, chips, want)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#timings td").length`); n != 8 {
		t.Fatalf("%d stage timings shown, want 8", n)
	}
	shot(t, ctx, "ask")

	// Why: every lane's list and a contribution bar per candidate, as the trace says.
	var tr server.TraceResponse
	if r := w.do(t, "POST", "/v1/trace", w.keys["ana"], map[string]any{"query": "Who fixed the team crane 3?", "budget": 1000,
		"altitude": "auto"}); r.status != 200 || json.Unmarshal(r.body, &tr) != nil {
		t.Fatalf("trace: %d %s", r.status, r.body)
	}
	run(t, ctx, "why", chromedp.Click(chromedp.ID("ask-why")))
	waitFor(t, ctx, "the trace", `document.querySelectorAll("#fused tr[data-id]").length > 0`)
	lanes := eval[[]string](t, ctx, `[...document.querySelectorAll("#lane-lists section")].map(s => s.dataset.lane)`)
	var traceLanes []string
	for _, l := range tr.Lanes {
		traceLanes = append(traceLanes, l.Lane)
	}
	if !slices.Equal(lanes, traceLanes) {
		t.Fatalf("lane lists %v, the trace's %v", lanes, traceLanes)
	}
	for i, l := range tr.Lanes {
		shown := eval[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll("#lane-lists section:nth-child(%d) li")].map(li => li.textContent)`, i+1))
		if !slices.Equal(shown, l.IDs[:min(15, len(l.IDs))]) {
			t.Errorf("lane %s lists %v, the trace %v", l.Lane, shown, l.IDs)
		}
	}
	top := tr.Candidates[0]
	segs := eval[[]string](t, ctx, fmt.Sprintf(`[...document.querySelectorAll('#fused tr[data-id="%s"] .bar span')].filter(s => s.getBoundingClientRect().width > 0).map(s => s.dataset.lane)`, top.ExternalID))
	var wantSegs []string
	for l := range top.Lanes {
		wantSegs = append(wantSegs, l)
	}
	if top.Score > top.RRF {
		wantSegs = append(wantSegs, "recency")
	}
	slices.Sort(segs)
	slices.Sort(wantSegs)
	if !slices.Equal(segs, wantSegs) {
		t.Fatalf("the first candidate's bar shows %v, its lanes are %v", segs, wantSegs)
	}
	run(t, ctx, "why not", chromedp.SendKeys(chromedp.ID("whynot"), "ops-3"), submit("whynot-form"))
	waitFor(t, ctx, "why not", `document.getElementById("whynot-out").textContent.includes("ops-3")`)
	shot(t, ctx, "why")

	// Browse: a turn with its neighbours.
	run(t, ctx, "browse", chromedp.Click(chromedp.ID("tab-browse")))
	waitFor(t, ctx, "the list", `document.querySelectorAll("#memories li").length > 0`)
	run(t, ctx, "filter by source", chromedp.SetValue(chromedp.ID("b-source"), "c1"), submit("browse-form"))
	waitFor(t, ctx, "the source's turns", `[...document.querySelectorAll("#memories li")].map(l => l.dataset.id).join() === "c1-1,c1-2,c1-3,c1-4,c1-5,c1-6"`)
	run(t, ctx, "open c1-3", chromedp.Click(chromedp.CSS(`#memories li[data-id="c1-3"] button.open`)))
	waitFor(t, ctx, "neighbours", `document.querySelectorAll("#neighbours li").length > 0`)
	near := eval[[]string](t, ctx, `[...document.querySelectorAll("#neighbours li")].map(l => l.dataset.id)`)
	if !slices.Equal(near, []string{"c1-1", "c1-2", "c1-3", "c1-4", "c1-5", "c1-6"}) {
		t.Fatalf("neighbours of c1-3: %v", near)
	}
	shot(t, ctx, "browse")

	// The hostile memory, in the pack and opened: text, never markup.
	run(t, ctx, "find the hostile memory", chromedp.SetValue(chromedp.ID("b-source"), ""), chromedp.SetValue(chromedp.ID("b-text"), "alarm code"),
		submit("browse-form"))
	waitFor(t, ctx, "the hostile memory", `document.querySelector('#memories li[data-id="hostile"]') !== null`)
	run(t, ctx, "open it", chromedp.Click(chromedp.CSS(`#memories li[data-id="hostile"] button.open`)))
	waitFor(t, ctx, "its detail", `document.querySelector("#detail h2")?.textContent === "hostile"`)
	run(t, ctx, "ask for it", chromedp.Click(chromedp.ID("tab-ask")), chromedp.SetValue(chromedp.ID("q"), "harbor alarm code"),
		submit("ask-form"))
	waitFor(t, ctx, "its item", `document.querySelector('#items li[data-id="hostile"]') !== null`)
	state := eval[string](t, ctx, `String(window.__pwned) + "|" + document.querySelectorAll("img, script:not([src])").length + "|" +
		(document.getElementById("detail-text").textContent === `+mustJS(t, hostile)+`) + "|" +
		(document.querySelector('#items li[data-id="hostile"] .text').textContent === `+mustJS(t, hostile)+`)`)
	if state != "undefined|0|true|true" {
		t.Fatalf("hostile text: page state %q, want undefined|0|true|true (nothing ran, no element made, the text shown as is)", state)
	}

	// Writes: a note, an upload with a bad line then a good one, a forget with confirmation.
	before := w.count(t)
	run(t, ctx, "write a note", chromedp.Click(chromedp.ID("tab-browse")), chromedp.SendKeys(chromedp.ID("note-text"), "The quay lights are out."),
		submit("note-form"))
	waitFor(t, ctx, "the note written", `document.getElementById("write-status").textContent.startsWith("wrote note-")`)
	if n := w.count(t); n != before+1 {
		t.Fatalf("%d memories after the note, want %d", n, before+1)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	good := filepath.Join(dir, "good.jsonl")
	lines := `{"speaker": "Bo", "text": "tide at six", "conversation": "c2", "date": "2024-04-01"}` + "\n" +
		`{"speaker": "Ana", "text": "fine", "conversation": "c2", "date": "2024-04-01"}` + "\n"
	if err := os.WriteFile(bad, []byte(lines+`{"speaker": "Bo", "text": "x", "date": "whenever"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "upload a bad file", chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{bad}), submit("upload-form"))
	waitFor(t, ctx, "the bad line named", `document.getElementById("write-status").textContent.includes("bad.jsonl:3:")`)
	run(t, ctx, "upload a good file", chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{good}), submit("upload-form"))
	waitFor(t, ctx, "the upload done", `document.getElementById("write-status").textContent.includes("good.jsonl: done, 2 lines, 2 memories")`)
	run(t, ctx, "find the note", chromedp.SetValue(chromedp.ID("b-text"), "quay lights"), submit("browse-form"))
	waitFor(t, ctx, "the note listed", `(l => l.length === 1 && l[0].textContent.includes("The quay lights are out."))(document.querySelectorAll("#memories li"))`)
	run(t, ctx, "open the note", chromedp.Click(chromedp.CSS(`#memories li button.open`)))
	waitFor(t, ctx, "forget", `document.getElementById("forget") !== null && document.getElementById("detail-text").textContent === "The quay lights are out."`)
	run(t, ctx, "forget, then keep", chromedp.Click(chromedp.ID("forget")), chromedp.WaitVisible(chromedp.ID("confirm")), chromedp.Click(chromedp.ID("confirm-no")))
	if n := w.count(t); n != before+3 {
		t.Fatalf("%d memories after keeping the note, want %d", n, before+3)
	}
	run(t, ctx, "forget, then confirm", chromedp.Click(chromedp.ID("forget")), chromedp.WaitVisible(chromedp.ID("confirm")), chromedp.Click(chromedp.ID("confirm-yes")))
	waitFor(t, ctx, "forgotten", `document.getElementById("write-status").textContent.startsWith("forgot 1")`)
	if n := w.count(t); n != before+2 {
		t.Fatalf("%d memories after forgetting the note, want %d", n, before+2)
	}

	// A read-only key: no write controls, and the server refuses a write sent from the page.
	signIn(t, ctx, w.url, w.keys["reader"])
	if hidden := eval[bool](t, ctx, `document.getElementById("writes").hidden`); !hidden {
		t.Fatal("a read-only key sees the write controls")
	}
	run(t, ctx, "browse as the reader", chromedp.Click(chromedp.ID("tab-browse")))
	waitFor(t, ctx, "the list", `document.querySelectorAll("#memories li").length > 0`)
	run(t, ctx, "open one", chromedp.Click(chromedp.CSS(`#memories li button.open`)))
	waitFor(t, ctx, "its detail", `document.getElementById("detail-text") !== null`)
	if n := eval[int](t, ctx, `document.querySelectorAll("#forget").length`); n != 0 {
		t.Fatal("a read-only key sees Forget")
	}
	status := eval[int](t, ctx, `(async () => (await fetch("/v1/memories", {method: "POST", headers: {Authorization: "Bearer " + sessionStorage.getItem("recall.key"),
		"Content-Type": "application/json"}, body: JSON.stringify({memories: [{id: "sneak", text: "t"}]})})).status)()`)
	if status != 403 || w.count(t) != before+2 {
		t.Fatalf("a write from the page with a read-only key: status %d", status)
	}

	// A key for scope other: only other's memories, in browse and in a pack.
	signIn(t, ctx, w.url, w.keys["bob"])
	run(t, ctx, "browse as bob", chromedp.Click(chromedp.ID("tab-browse")))
	waitFor(t, ctx, "the list", `document.querySelectorAll("#memories li").length > 0 && !document.getElementById("browse-status").textContent.startsWith("reading")`)
	ids := eval[[]string](t, ctx, `[...document.querySelectorAll("#memories li")].map(l => l.dataset.id)`)
	if len(ids) != 6 || slices.ContainsFunc(ids, func(id string) bool { return !strings.HasPrefix(id, "other-") }) {
		t.Fatalf("bob browses %v, want other-0 to other-5", ids)
	}
	run(t, ctx, "ask as bob", chromedp.Click(chromedp.ID("tab-ask")), chromedp.SetValue(chromedp.ID("q"), "crane fixed harbor alarm code"),
		submit("ask-form"))
	waitFor(t, ctx, "bob's pack", `document.querySelectorAll("#items > li").length > 0`)
	ids = eval[[]string](t, ctx, `[...document.querySelectorAll("#items li")].map(l => l.dataset.id)`)
	if slices.ContainsFunc(ids, func(id string) bool { return !strings.HasPrefix(id, "other-") }) {
		t.Fatalf("bob's pack shows %v", ids)
	}
}

func mustJS(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConsoleHeaders: the console's files come with a strict Content-Security-Policy and
// no key; /console redirects to /console/; nothing under /console/ is an API route.
func TestConsoleHeaders(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, path := range []string{"/console/", "/console/console.js", "/console/console.css"} {
		r := w.do(t, "GET", path, "", nil)
		csp := r.header.Get("Content-Security-Policy")
		if r.status != 200 || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") ||
			strings.Contains(csp, "unsafe") || r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d, CSP %q", path, r.status, csp)
		}
	}
	if r := w.do(t, "GET", "/console/nothing", "", nil); r.status != 404 {
		t.Errorf("GET /console/nothing: %d", r.status)
	}
	if r := w.do(t, "POST", "/console/", w.keys["ana"], []byte("{}")); r.status != 405 {
		t.Errorf("POST /console/: %d", r.status)
	}
	html := string(w.do(t, "GET", "/console/", "", nil).body)
	if strings.Contains(html, "<script>") || strings.Contains(html, " style=") || strings.Contains(html, " onclick=") {
		t.Error("the page holds inline script or style, which its CSP refuses")
	}
}
