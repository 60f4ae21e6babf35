// The client follows the API: its types are the OpenAPI document's schemas, every operation
// of the document has a method (and no method calls one it does not have), and a request
// with a field the API does not take is refused before it is sent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { Client, DecodeError, OPERATIONS, SCHEMAS } from "../src/client.js";

const root = new URL("../../../../", import.meta.url);
const doc = JSON.parse(readFileSync(new URL("server/openapi.json", root), "utf8"));

test("the models are the document's schemas", () => {
  const gen = fileURLToPath(new URL("clients/typescript/gen-models.mjs", root));
  execFileSync(process.execPath, [gen, "--check"], { stdio: "pipe" });
  for (const [name, s] of Object.entries<any>(doc.components.schemas)) {
    assert.deepEqual(Object.keys(SCHEMAS[name]!.properties).sort(), Object.keys(s.properties ?? {}).sort(), name);
  }
});

test("every operation has a method", () => {
  const ops = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    if (!path.startsWith("/v1/")) continue;
    for (const method of Object.keys(item)) ops.add(`${method.toUpperCase()} ${path}`);
  }
  assert.deepEqual([...ops].sort(), Object.keys(OPERATIONS).sort());
  for (const name of Object.values(OPERATIONS)) assert.equal(typeof (Client.prototype as any)[name], "function", name);
});

test("a field the API does not take is refused before anything is sent", async () => {
  const c = new Client({ url: "http://127.0.0.1:9", apiKey: "k", retries: 0 });
  await assert.rejects(c.recall("q", 10, { top_k: 3 } as any), (e: Error) => e instanceof TypeError && /top_k/.test(e.message));
  await assert.rejects(c.browse({ order: "asc" } as any), (e: Error) => e instanceof TypeError && /order/.test(e.message));
});

test("strict decoding names a renamed field", async () => {
  const pack = {
    query: "q", budget: 10, items: [], used: 0, omitted: [], omitted_tokens: 0,
    abstain: { no_match: true, low_similarity: false, top_similarity: 0, too_few: false },
    altitude: "memories", passages: "auto", sources: [], warnings: [], served_by: "primary", accessed: 0,
    timings: Object.fromEntries(doc.components.schemas.Timings.required.map((k: string) => [k, 0])),
  };
  const { items, ...rest } = pack;
  const renamed = { ...rest, entries: items };
  for (const strict of [true, false]) {
    const c = new Client({ url: "http://x.invalid", strict }) as any;
    assert.equal(c.decode("Pack", pack).budget, 10);
    assert.throws(() => c.decode("Pack", renamed), (e: Error) => e instanceof DecodeError && /items/.test(e.message));
  }
  const extra = { ...pack, novel: 1 };
  assert.equal((new Client({ url: "http://x.invalid", strict: false }) as any).decode("Pack", extra).used, 0);
  assert.throws(() => (new Client({ url: "http://x.invalid", strict: true }) as any).decode("Pack", extra), /novel/);
});
