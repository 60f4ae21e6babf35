// Every call of the client against a real recall serve: RECALL_TEST_URL and RECALL_TEST_KEY
// name it and a key of user ana that reads and writes scope "team" (cmd/recall's
// TestTypeScriptClient starts one on a fresh database and runs this suite).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

import { Client, DEFAULT_BUDGET, IngestFailed, RecallError } from "../src/client.js";

const url = process.env.RECALL_TEST_URL;
const key = process.env.RECALL_TEST_KEY;
if (!url || !key) throw new Error("RECALL_TEST_URL and RECALL_TEST_KEY must name a running recall serve and a key of it");
const client = new Client({ url, apiKey: key, strict: true });

function chat(name: string) {
  return client.rememberTurns(name, [
    { speaker: "user", text: "I adopted a beagle named Toby from the shelter on Elm Street.", time: "2024-03-02T10:00:00Z" },
    { speaker: "assistant", text: "Congratulations! Beagles love long walks and sniffing games.", time: "2024-03-02T10:00:30Z" },
    { speaker: "user", text: "My sister Priya lives in Lisbon and works as a pharmacist.", time: "2024-03-02T10:01:00Z" },
  ], { title: "Talking about pets", scopes: ["team"] });
}

const fresh = (p: string) => `${p}-${randomUUID().slice(0, 8)}`;

test("me", async () => {
  const me = await client.me();
  assert.deepEqual([me.user, me.read, me.write, me.can_write], ["ana", ["team"], ["team"], true]);
});

test("remember, recall, trace", async () => {
  const name = fresh("chat");
  const res = await chat(name);
  assert.deepEqual([res.memories, res.sources], [3, 1]);
  const pack = await client.recall("What is the name of the beagle I adopted?");
  assert.equal(pack.budget, DEFAULT_BUDGET);
  assert.ok(pack.used <= pack.budget);
  assert.equal(pack.items[0]?.external_id, `${name}:1`);
  assert.equal(pack.items[0]?.speaker, "user");
  const small = await client.recall("Where does my sister live?", 40, { read: ["team"] });
  assert.ok(small.used <= 40 && small.items.some((i) => i.external_id === `${name}:3`));
  const tr = await client.trace("What is the name of the beagle I adopted?", 200);
  assert.equal(tr.candidates[0]?.external_id, `${name}:1`);
  const lanes = new Set(tr.lanes.map((l) => l.lane));
  assert.ok(lanes.has("bm25") && lanes.has("vector"));
});

test("browse and memory", async () => {
  const name = fresh("chat");
  await chat(name);
  const page = await client.browse({ source: name });
  assert.deepEqual(page.memories.map((m) => m.id), [1, 2, 3].map((p) => `${name}:${p}`));
  assert.equal(page.more, false);
  const got = await client.memory(`${name}:2`);
  assert.deepEqual(got.memories[0]?.neighbours.map((n) => [n.id, n.position]), [1, 2, 3].map((p) => [`${name}:${p}`, p]));
});

test("supersede and forget", async () => {
  const name = fresh("chat");
  await chat(name);
  const moved = `${name}:moved`;
  await client.remember({ memories: [{ id: moved, text: "Priya moved from Lisbon to Porto and still works as a pharmacist.", occurred_start: "2024-06-01T09:00:00Z" }], scopes: ["team"] });
  assert.equal((await client.supersede({ by: moved, supersedes: [`${name}:3`] })).superseded, 1);
  const ids = (await client.recall("Where does my sister Priya live?", 300)).items.map((i) => i.external_id);
  assert.ok(ids.includes(moved) && !ids.includes(`${name}:3`), ids.join(" "));
  assert.equal((await client.forget([moved])).deleted, 1);
  assert.equal((await client.forget([moved])).deleted, 0);
  assert.deepEqual((await client.memory(moved)).memories, []);
});

test("ingest with progress, streamed", async () => {
  const name = fresh("bulk");
  function* records() {
    for (let i = 1; i <= 1200; i++) yield { type: "memory", id: `${name}-${i}`, text: `Shipment ${i} of spare parts reached dock ${i % 7}.` };
  }
  const seen: number[][] = [];
  const last = await client.ingest(records(), { scope: "team", batch: 500, progress: (p) => !p.done && seen.push([p.lines, p.result.memories]) });
  assert.ok(last.done && last.lines === 1200);
  assert.deepEqual(seen, [[500, 500], [1000, 1000], [1200, 1200]]);
  assert.equal((await client.browse({ text: "Shipment 1117" })).memories[0]?.id, `${name}-1117`);
});

test("ingest stops at a bad line", async () => {
  const name = fresh("bad");
  const body = `{"type": "memory", "id": "${name}-1", "text": "The crane was oiled on Monday."}\n{"type": "memory", "id": "${name}-2"`;
  await assert.rejects(client.ingest(body, { scope: "team", batch: 1 }), (e: Error) => e instanceof IngestFailed && e.progress.error?.line === 2);
  assert.deepEqual((await client.memory(`${name}-1`)).memories.map((m) => m.id), [`${name}-1`]);
});

test("export reads back", async () => {
  const name = fresh("export");
  await client.remember({ memories: [{ id: `${name}-a`, text: "Lena keeps the spare keys of the boathouse." }, { id: `${name}-b`, text: "The boathouse opens at seven.", tags: ["boats"] }], scopes: ["team"] });
  const recs: Record<string, unknown>[] = [];
  for await (const r of client.export("team")) recs.push(r);
  assert.equal(recs[0]?.type, "export");
  assert.deepEqual(recs[0]?.scopes, ["team"]);
  const end = recs[recs.length - 1]!;
  assert.equal(end.type, "export_end");
  assert.equal(end.memories, recs.filter((r) => r.type === "memory").length);
  const b = recs.find((r) => r.id === `${name}-b`)!;
  assert.deepEqual(b.tags, ["boats"]);
  assert.ok(!("embedding" in b));
  for await (const r of client.export(["team"], { embeddings: true })) {
    if (r.type === "memory") {
      assert.ok((r.embedding as number[]).length > 0);
      break;
    }
  }
  const last = await client.ingest(recs, { scope: "team" });
  assert.ok(last.done && last.result.memories === end.memories);
});

test("errors are typed", async () => {
  await assert.rejects(client.recall("anything", 0), (e: Error) => e instanceof RecallError && e.status === 400 && e.errors[0]?.field === "budget");
  await assert.rejects(new Client({ url, apiKey: "rk_not_a_key" }).me(), (e: Error) => e instanceof RecallError && e.status === 401);
  await assert.rejects(client.remember({ memories: [{ id: "x", text: "not mine" }], scopes: ["someone-else"] }), (e: Error) => e instanceof RecallError && e.status === 403);
  // Erasing takes an admin key; ana's is not one.
  await assert.rejects(client.erase("team", true), (e: Error) => e instanceof RecallError && e.status === 403 && e.type.endsWith("admin"));
});

test("retries honour Retry-After", async () => {
  const calls: number[] = [];
  const srv = createServer((_req, res) => {
    calls.push(Date.now());
    if (calls.length === 1) {
      res.writeHead(429, { "Content-Type": "application/json", "Retry-After": "1" }).end('{"type":"busy","title":"busy","status":429}');
    } else {
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"user":"ana","read":["team"],"write":[],"can_write":false}');
    }
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  try {
    assert.equal((await new Client({ url: `http://127.0.0.1:${port}`, apiKey: "k" }).me()).user, "ana");
    assert.equal(calls.length, 2);
    assert.ok(calls[1]! - calls[0]! >= 990, `waited ${calls[1]! - calls[0]!} ms`);
    calls.length = 0;
    await assert.rejects(new Client({ url: `http://127.0.0.1:${port}`, apiKey: "k", retries: 0 }).me(), (e: Error) => e instanceof RecallError && e.status === 429 && e.retryAfter === 1);
  } finally {
    srv.close();
  }
  await assert.rejects(new Client({ url: "http://127.0.0.1:9", apiKey: "k", retries: 1, maxWaitMs: 100 }).me(), (e: Error) => e instanceof RecallError && e.status === 0);
});
