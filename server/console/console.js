// recall's console. It talks only to this server's HTTP API, with the key its user types in:
// the key is kept in this tab's sessionStorage and sent as "Authorization: Bearer", never in
// a URL. Every memory text, title and name is put on the page as text (textContent), never
// as markup, so a memory holding <script> or an onerror= attribute shows as what it is.
"use strict";

const KEY = "recall.key";
const $ = (id) => document.getElementById(id);
let me = null; // GET /v1/me
let lastQuestion = null; // the Ask form's request, for Why
let lastTrace = null;
let browseOffset = 0;

// el makes an element; string and number children become text nodes, never markup.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function clear(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c));
}

function when(t) {
  return t ? new Date(t).toISOString().replace("T", " ").slice(0, 16) : "";
}

// api calls a route with the key; a problem answer becomes an Error with its detail and
// the fields it names.
async function api(method, path, body, raw) {
  const key = sessionStorage.getItem(KEY);
  const init = { method, headers: { Authorization: "Bearer " + key }, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    if (!raw) init.headers["Content-Type"] = "application/json";
  }
  const res = await fetch(path, init);
  if (raw && res.ok) return res;
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    let msg = (data && (data.detail || data.title)) || res.status + " " + res.statusText;
    if (data && data.errors) msg += " (" + data.errors.map((e) => e.field + ": " + e.problem).join("; ") + ")";
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return data;
}

function status(id, msg, bad) {
  const p = $(id);
  p.textContent = msg;
  p.classList.toggle("error", !!bad);
}

// ---- sign in ----

async function signIn(key) {
  sessionStorage.setItem(KEY, key);
  try {
    me = await api("GET", "/v1/me");
  } catch (e) {
    sessionStorage.removeItem(KEY);
    me = null;
    throw e;
  }
  $("who").textContent = me.user + (me.label ? " (" + me.label + ")" : "") + " · reads " + me.read.join(", ") +
    (me.can_write ? " · writes " + me.write.join(", ") : " · read only");
  $("login").hidden = true;
  $("app").hidden = false;
  $("signout").hidden = false;
  $("writes").hidden = !me.can_write;
  const options = (scopes) => scopes.map((s) => el("option", { value: s, text: s }));
  clear($("b-scope"), el("option", { value: "", text: "all" }), options(me.read));
  for (const id of ["note-scope", "upload-scope", "sum-scope"]) clear($(id), options(me.write));
  $("q").focus();
}

function signOut() {
  sessionStorage.removeItem(KEY);
  me = null;
  location.reload();
}

// ---- tabs ----

const tabs = ["ask", "why", "browse"];
function show(name) {
  for (const t of tabs) {
    const on = t === name;
    $("tab-" + t).setAttribute("aria-selected", on);
    $("tab-" + t).tabIndex = on ? 0 : -1;
    $("view-" + t).hidden = !on;
  }
  if (name === "why" && lastQuestion && (!lastTrace || lastTrace.asked !== JSON.stringify(lastQuestion))) trace();
  if (name === "browse" && !$("memories").childElementCount) browse(0);
}

// ---- ask ----

function question() {
  return {
    query: $("q").value,
    budget: parseInt($("budget").value, 10) || 1000,
    altitude: $("altitude").value,
    graph_context: $("graph").checked,
    mark_stale: $("stale").checked,
  };
}

function laneChips(lanes) {
  return Object.entries(lanes || {})
    .sort((a, b) => a[1].rank - b[1].rank)
    .map(([lane, h]) => el("span", { class: "chip lane-" + lane, text: lane + " #" + h.rank, title: lane + " rank " + h.rank + ", score " + h.score.toFixed(4) }));
}

async function ask(ev) {
  ev.preventDefault();
  lastQuestion = question();
  status("ask-status", "asking…");
  try {
    const p = await api("POST", "/v1/recall", lastQuestion);
    renderPack(p);
    status("ask-status", p.items.length + " items, " + p.used + " of " + p.budget + " tokens" + (p.abstain && p.abstain.no_match ? " · nothing matched" : ""));
  } catch (e) {
    status("ask-status", e.message, true);
  }
}

function itemView(it, sources) {
  const src = sources.get(it.source_id);
  const meta = [src ? src.title || src.external_id : "", it.speaker, when(it.occurred_start), it.tokens + " tokens", it.kind].filter((x) => x);
  return el("li", { "data-id": it.external_id },
    el("div", { class: "text", text: it.text }),
    el("div", { class: "meta" }, el("span", { class: "id", text: it.external_id }), " · ", meta.join(" · ")),
    el("div", { class: "chips" }, laneChips(it.lanes), it.direct ? el("span", { class: "chip", text: "direct" }) : null,
      it.stale ? el("span", { class: "chip stale", text: it.stale }) : null));
}

function renderPack(p) {
  const sources = new Map((p.sources || []).map((s) => [s.id, s]));
  const byId = new Map(p.items.map((it) => [it.id, it]));
  const attached = new Map();
  for (const it of p.items) {
    if (it.attached_to && byId.has(it.attached_to)) {
      if (!attached.has(it.attached_to)) attached.set(it.attached_to, []);
      attached.get(it.attached_to).push(it);
    }
  }
  const list = el("ol", { class: "items", id: "items" });
  for (const it of p.items) {
    if (it.attached_to && byId.has(it.attached_to)) continue;
    const li = itemView(it, sources);
    for (const a of attached.get(it.id) || []) {
      const sub = itemView(a, sources);
      sub.className = "attached";
      sub.prepend(el("div", { class: "meta", text: a.context === "answer" ? "the turn that answers it" : a.context === "reply_to" ? "the turn it replies to" : "attached" }));
      li.append(sub);
    }
    list.append(li);
  }
  const t = p.timings || {};
  const stages = ["embed", "entities", "statement", "order", "rerank", "pack", "access", "total"];
  clear($("pack"),
    el("h2", { text: "Evidence" }), p.items.length ? list : el("p", { text: "Nothing fits: " + (p.empty || "no match") }),
    p.omitted && p.omitted.length ? [el("h2", { text: "Did not fit" }),
      el("ul", { id: "omitted" }, p.omitted.map((o) => el("li", { text: "memory " + o.id + ": " + o.tokens + " tokens (" + o.reason + ")" })))] : null,
    p.graph_context && p.graph_context.length ? [el("h2", { text: "Graph context" }),
      el("ul", {}, p.graph_context.map((g) => el("li", { text: g.subject + " " + g.predicate + " " + g.object + (g.evidence ? " (" + g.evidence + ")" : "") })))] : null,
    sources.size ? [el("h2", { text: "Sources" }), el("ul", { id: "sources" }, [...sources.values()].map((s) => el("li", { text: (s.title || s.external_id) + (s.uri ? " · " + s.uri : "") })))] : null,
    p.warnings && p.warnings.length ? [el("h2", { text: "Warnings" }), el("ul", {}, p.warnings.map((w) => el("li", { class: "error", text: w.stage + ": " + w.message })))] : null,
    el("h2", { text: "Timings" }),
    el("table", { id: "timings" }, el("tr", {}, stages.map((s) => el("th", { scope: "col", text: s }))),
      el("tr", {}, stages.map((s) => el("td", { text: ((t[s + "_ns"] || 0) / 1e6).toFixed(1) + " ms" })))),
  );
}

// ---- why ----

async function trace() {
  if (!lastQuestion) {
    status("why-status", "Ask a question first.");
    return;
  }
  status("why-status", "tracing…");
  try {
    lastTrace = await api("POST", "/v1/trace", lastQuestion);
    lastTrace.asked = JSON.stringify(lastQuestion);
    renderTrace(lastTrace);
    status("why-status", lastTrace.candidates.length + " candidates; " + lastTrace.pack.items.length + " packed");
  } catch (e) {
    status("why-status", e.message, true);
  }
}

function renderTrace(t) {
  const byExt = new Map(t.candidates.map((c) => [c.external_id, c]));
  const snip = (s) => (s.length > 70 ? s.slice(0, 69) + "…" : s);
  const lanes = el("div", { class: "lanes", id: "lane-lists" }, t.lanes.map((l) =>
    el("section", { "data-lane": l.lane, "aria-label": l.lane + " lane" },
      el("h3", {}, el("span", { class: "chip lane-" + l.lane, text: l.lane }), " weight " + l.weight.toFixed(3)),
      l.ids.length ? el("ol", {}, l.ids.slice(0, 15).map((id) => el("li", { title: byExt.has(id) ? byExt.get(id).text : "", text: id })))
        : el("p", { class: "meta", text: "found nothing" }))));
  const top = Math.max(1e-12, ...t.candidates.map((c) => c.score));
  const rows = t.candidates.slice(0, Math.max(t.k, 10)).map((c) => {
    const parts = Object.entries(c.lanes).sort((a, b) => b[1].adds - a[1].adds);
    const bar = el("div", { class: "bar", role: "img",
      "aria-label": parts.map(([l, h]) => l + " adds " + h.adds.toFixed(4)).join(", ") || "no lane" });
    for (const [l, h] of parts) {
      const seg = el("span", { class: "lane-" + l, title: l + " #" + h.rank + " adds " + h.adds.toFixed(4), "data-lane": l });
      seg.style.width = (260 * h.adds / top).toFixed(1) + "px";
      bar.append(seg);
    }
    if (c.score - c.rrf > 0) {
      const seg = el("span", { class: "lane-other", title: "recency and frequency add " + (c.score - c.rrf).toFixed(4), "data-lane": "recency" });
      seg.style.width = (260 * (c.score - c.rrf) / top).toFixed(1) + "px";
      bar.append(seg);
    }
    return el("tr", { "data-id": c.external_id },
      el("td", { text: c.fused_rank }), el("td", { text: c.merit_rank || "" }),
      el("td", {}, el("span", { class: "id", text: c.external_id }), el("div", { class: "meta", text: snip(c.text) })),
      el("td", {}, bar), el("td", { text: c.score.toFixed(4) }), el("td", { text: c.decision }));
  });
  const legend = el("p", { class: "legend" }, t.lanes.map((l) => el("span", { class: "chip lane-" + l.lane, text: l.lane })),
    el("span", { class: "chip lane-other", text: "recency/frequency" }));
  clear($("trace"),
    el("h2", { text: "Each lane's list" }), lanes,
    el("h2", { text: "Fused order" }), legend,
    el("table", { id: "fused" },
      el("tr", {}, ["fused", "merit", "memory", "score by lane", "score", "decision"].map((h) => el("th", { scope: "col", text: h }))),
      rows),
    t.left_out && t.left_out.length ? [el("h2", { text: "Left out (no longer holds)" }),
      el("ul", {}, t.left_out.map((l) => el("li", { text: l.external_id + ": " + l.why })))] : null);
}

function whyNot(ev) {
  ev.preventDefault();
  const id = $("whynot").value.trim();
  const out = $("whynot-out");
  if (!lastTrace) {
    out.textContent = "Ask a question and open Why first.";
    return;
  }
  const c = lastTrace.candidates.find((x) => x.external_id === id);
  const left = (lastTrace.left_out || []).find((x) => x.external_id === id);
  out.textContent = c ? c.why : left ? id + " was found but left out: " + left.why
    : id + " is not among the " + lastTrace.candidates.length + " candidates: no lane found it for this question (or it is not in your scopes).";
}

// ---- browse ----

function browseQuery(offset) {
  const q = { scope: $("b-scope").value, source: $("b-source").value, kind: $("b-kind").value, tag: $("b-tag").value,
    text: $("b-text").value, limit: 50, offset };
  if ($("b-from").value) q.from = $("b-from").value + "T00:00:00Z";
  if ($("b-to").value) q.to = $("b-to").value + "T00:00:00Z";
  return q;
}

// browseSeq numbers the browse requests: a response that a newer request has overtaken is
// dropped, so that a slow answer to an earlier query (the refresh after a write, say) never
// replaces the list the user asked for since.
let browseSeq = 0;

async function browse(offset) {
  browseOffset = offset;
  const seq = ++browseSeq;
  status("browse-status", "reading…");
  try {
    const r = await api("POST", "/v1/browse", browseQuery(offset));
    if (seq !== browseSeq) return;
    const list = $("memories");
    if (offset === 0) clear(list);
    for (const m of r.memories) {
      const meta = [m.source_title || m.source, m.speaker, when(m.occurred_start), m.kind, m.scopes.join("+")].filter((x) => x);
      list.append(el("li", { "data-id": m.id },
        el("button", { type: "button", class: "open", "aria-label": "Open memory " + m.id, onclick: () => openMemory(m.id, m.scopes), text: m.id }),
        " ", el("span", { class: "text", text: m.text.length > 200 ? m.text.slice(0, 199) + "…" : m.text }),
        el("div", { class: "meta", text: meta.join(" · ") + (m.access_count ? " · recalled " + m.access_count + "×" : "") +
          (m.superseded_by ? " · superseded by " + m.superseded_by : "") + (m.duplicate_of ? " · duplicate of " + m.duplicate_of : "") })));
    }
    $("more").hidden = !r.more;
    const src = $("b-source");
    const keep = src.value;
    clear(src, el("option", { value: "", text: "all" }), r.sources.map((s) => el("option", { value: s.id, text: (s.title || s.id) + " (" + s.memories + ")" })));
    if (keep && !r.sources.some((s) => s.id === keep)) src.append(el("option", { value: keep, text: keep }));
    src.value = keep;
    status("browse-status", list.childElementCount + " memories" + (r.more ? " (more)" : ""));
  } catch (e) {
    if (seq === browseSeq) status("browse-status", e.message, true);
  }
}

async function openMemory(id, scopes) {
  try {
    const r = await api("POST", "/v1/memory", { id, scope: scopes[0] });
    const m = r.memories.find((x) => x.scopes.join() === scopes.join()) || r.memories[0];
    if (!m) {
      clear($("detail"), el("p", { text: id + " is gone." }));
      return;
    }
    const writable = me.can_write && m.scopes.every((s) => me.write.includes(s));
    clear($("detail"),
      el("h2", { text: m.id }),
      el("p", { class: "text", id: "detail-text", text: m.text }),
      el("p", { class: "meta", text: [m.kind, m.speaker, m.source_title || m.source, when(m.occurred_start), "scopes " + m.scopes.join("+")].filter((x) => x).join(" · ") }),
      el("p", { class: "meta", id: "detail-access", text: "recalled " + m.access_count + " times" + (m.last_accessed ? ", last on " + when(m.last_accessed) : "") }),
      m.superseded_by ? el("p", { class: "meta", text: "superseded by " + m.superseded_by + (m.superseded_at ? " on " + when(m.superseded_at) : "") }) : null,
      m.valid_from || m.valid_until ? el("p", { class: "meta", text: "holds " + (when(m.valid_from) || "…") + " to " + (when(m.valid_until) || "…") }) : null,
      m.expires_at ? el("p", { class: "meta", text: "expires " + when(m.expires_at) }) : null,
      m.neighbours.length ? [el("h3", { text: "In its conversation" }), el("ol", { id: "neighbours" }, m.neighbours.map((n) =>
        el("li", { value: n.position, class: n.id === m.id ? "self" : "", "data-id": n.id }, n.speaker ? n.speaker + ": " : "", n.text)))] : null,
      m.entities.length ? [el("h3", { text: "Entities" }), el("ul", { id: "entities" }, m.entities.map((e) => el("li", { text: e.name + (e.kind ? " (" + e.kind + ")" : "") + (e.speaker ? " · speaker" : "") })))] : null,
      m.relations.length ? [el("h3", { text: "Relations" }), el("ul", { id: "relations" }, m.relations.map((x) =>
        el("li", { text: x.subject + " " + x.predicate + " " + x.object + (x.evidence ? " (" + x.evidence + ")" : "") + (x.holds ? "" : " · no longer holds") })))] : null,
      writable ? el("button", { type: "button", id: "forget", onclick: () => forget(m), text: "Forget…" }) : null,
    );
  } catch (e) {
    clear($("detail"), el("p", { class: "error", text: e.message }));
  }
}

function forget(m) {
  const d = $("confirm");
  $("confirm-text").textContent = "Forget " + m.id + "? It is deleted, with the summaries that cover it.";
  const done = async (yes) => {
    d.close();
    if (!yes) return;
    try {
      const r = await api("DELETE", "/v1/memories", { scopes: m.scopes, ids: [m.id] });
      status("write-status", "forgot " + r.deleted + " memory");
      clear($("detail"));
      browse(0);
    } catch (e) {
      status("write-status", e.message, true);
    }
  };
  $("confirm-yes").onclick = () => done(true);
  $("confirm-no").onclick = () => done(false);
  d.showModal();
}

// ---- writes ----

async function writeNote(ev) {
  ev.preventDefault();
  const id = "note-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 8);
  const tags = $("note-tags").value.split(",").map((s) => s.trim()).filter((s) => s);
  try {
    const r = await api("POST", "/v1/memories", { scopes: [$("note-scope").value], memories: [{ id, text: $("note-text").value, tags }] });
    status("write-status", "wrote " + id + " (" + r.memories + " memory, " + r.extracted + " entities extracted)");
    $("note-text").value = "";
    browse(0);
  } catch (e) {
    status("write-status", e.message, true);
  }
}

async function upload(ev) {
  ev.preventDefault();
  const file = $("upload-file").files[0];
  if (!file) return;
  const bar = $("upload-progress");
  bar.max = Math.max(1, file.size);
  bar.value = 0;
  const q = new URLSearchParams({ format: $("upload-format").value, scope: $("upload-scope").value });
  status("write-status", "uploading " + file.name + "…");
  try {
    const res = await api("POST", "/v1/ingest?" + q, file, true);
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    let last = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        last = JSON.parse(line);
        if (last.bytes) bar.value = last.bytes;
        status("write-status", file.name + ": " + last.lines + " lines, " + last.result.memories + " memories written");
      }
      if (done) break;
    }
    if (last && last.error) {
      status("write-status", file.name + (last.error.line ? ":" + last.error.line : "") + ": " + last.error.problem +
        " (" + last.result.memories + " memories of the batches before it written)", true);
    } else if (last && last.done) {
      bar.value = bar.max;
      status("write-status", file.name + ": done, " + last.lines + " lines, " + last.result.memories + " memories, " + last.result.duplicates + " duplicates");
      browse(0);
    }
  } catch (e) {
    status("write-status", e.message, true);
  }
}

async function summarize(ev) {
  ev.preventDefault();
  status("write-status", "summarizing…");
  try {
    const r = await api("POST", "/v1/summarize", { scopes: [$("sum-scope").value] });
    status("write-status", "summaries: " + r.written + " written, " + r.pruned + " pruned");
  } catch (e) {
    status("write-status", e.message, true);
  }
}

// ---- wiring ----

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const key = $("key").value.trim();
    $("key").value = "";
    try {
      await signIn(key);
      status("login-error", "");
    } catch (e) {
      status("login-error", e.status === 401 ? "That key is not valid (or revoked)." : e.message, true);
    }
  });
  $("signout").addEventListener("click", signOut);
  for (const t of tabs) $("tab-" + t).addEventListener("click", () => show(t));
  $("app").querySelector("[role=tablist]").addEventListener("keydown", (ev) => {
    const i = tabs.findIndex((t) => $("tab-" + t).getAttribute("aria-selected") === "true");
    const d = ev.key === "ArrowRight" ? 1 : ev.key === "ArrowLeft" ? -1 : 0;
    if (!d) return;
    const next = tabs[(i + d + tabs.length) % tabs.length];
    show(next);
    $("tab-" + next).focus();
  });
  $("ask-form").addEventListener("submit", ask);
  $("ask-why").addEventListener("click", () => {
    lastQuestion = question();
    show("why");
  });
  $("whynot-form").addEventListener("submit", whyNot);
  $("browse-form").addEventListener("submit", (ev) => { ev.preventDefault(); browse(0); });
  $("more").addEventListener("click", () => browse(browseOffset + 50));
  $("note-form").addEventListener("submit", writeNote);
  $("upload-form").addEventListener("submit", upload);
  $("summarize-form").addEventListener("submit", summarize);
  const key = sessionStorage.getItem(KEY);
  if (key) signIn(key).catch(() => {});
});
