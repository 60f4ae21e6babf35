// recall's TypeScript client: the HTTP API (server/openapi.json) as typed calls, with no
// runtime dependency beyond fetch.
import * as m from "./models.js";
import { SCHEMAS } from "./models.js";

export * from "./models.js";

export const DEFAULT_URL = "http://127.0.0.1:7411";
/** recall.DefaultBudget: the budget a recall gets when none is given. */
export const DEFAULT_BUDGET = 1000;

/** Every operation of the API and the Client method that calls it (test/api.test.ts checks
 * the table against the server's OpenAPI document both ways). */
export const OPERATIONS: Record<string, keyof Client> = {
  "POST /v1/recall": "recall",
  "POST /v1/trace": "trace",
  "POST /v1/memories": "remember",
  "DELETE /v1/memories": "forget",
  "POST /v1/supersede": "supersede",
  "POST /v1/browse": "browse",
  "POST /v1/memory": "memory",
  "POST /v1/ingest": "ingest",
  "GET /v1/me": "me",
  "POST /v1/prune": "prune",
  "POST /v1/summarize": "summarize",
  "DELETE /v1/scopes/{scope}": "erase",
  "GET /v1/export": "export",
};

/** An answer that is not a success, with the problem+json fields the server sent. status 0:
 * the server could not be reached. retryAfter: the Retry-After header's seconds. */
export class RecallError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly title: string,
    readonly detail: string = "",
    readonly errors: m.FieldError[] = [],
    readonly retryAfter?: number,
  ) {
    super(`${status} ${title || type}${detail ? ": " + detail : ""}`);
    this.name = "RecallError";
  }
  /** 429 (busy) or 503 (unavailable, or unreachable): worth retrying after retryAfter. */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503 || this.status === 0;
  }
}

/** An ingest that stopped at a line: progress.error names it and, for a body cut at the
 * server's limit, last_written, the line to resume after. The batches before stay written. */
export class IngestFailed extends RecallError {
  constructor(readonly progress: m.IngestProgress) {
    super(200, "ingest", "ingest stopped", `line ${progress.error?.line}: ${progress.error?.problem}`);
    this.name = "IngestFailed";
  }
}

/** An answer without the shape the API document gives it. */
export class DecodeError extends Error {
  override name = "DecodeError";
}

export interface ClientOptions {
  /** Default $RECALL_URL, else DEFAULT_URL. */
  url?: string;
  /** Default $RECALL_API_KEY. */
  apiKey?: string;
  /** Each request's timeout in ms (default 60000). */
  timeoutMs?: number;
  /** 429 and 503 retried this many times (default 3), waiting Retry-After (at most maxWaitMs). */
  retries?: number;
  maxWaitMs?: number;
  /** Unknown answer fields are errors (default: $RECALL_CLIENT_STRICT is "1"); the tests run so. */
  strict?: boolean;
}

export type RecallOptions = Omit<m.RecallRequest, "query" | "budget">;

/** A conversation turn for rememberTurns: speaker and text, and optionally an id (default
 * "<conversation>:<n>"), a time (occurred_start) and any other Memory field. */
export type Turn = Partial<m.Memory> & { speaker: string; text: string; time?: string };

const env = (k: string): string | undefined => (globalThis as any).process?.env?.[k];

export class Client {
  readonly url: string;
  private readonly key: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly maxWaitMs: number;
  private readonly strict: boolean;

  constructor(o: ClientOptions = {}) {
    const url = o.url ?? env("RECALL_URL") ?? DEFAULT_URL;
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new TypeError(`url ${url}: want http:// or https://`);
    this.url = url.replace(/\/+$/, "");
    this.key = o.apiKey ?? env("RECALL_API_KEY") ?? "";
    this.timeoutMs = o.timeoutMs ?? 60000;
    this.retries = o.retries ?? 3;
    this.maxWaitMs = o.maxWaitMs ?? 30000;
    this.strict = o.strict ?? env("RECALL_CLIENT_STRICT") === "1";
  }

  /** The evidence for query that fits budget tokens. */
  recall(query: string, budget: number = DEFAULT_BUDGET, options: RecallOptions = {}): Promise<m.Pack> {
    return this.call("POST", "/v1/recall", "RecallRequest", { ...options, query, budget }, "Pack");
  }

  /** The recall laid open: every candidate, its lanes and its fate. */
  trace(query: string, budget: number = DEFAULT_BUDGET, options: RecallOptions = {}): Promise<m.TraceResponse> {
    return this.call("POST", "/v1/trace", "RecallRequest", { ...options, query, budget }, "TraceResponse");
  }

  /** Writes one batch (all of it or nothing). */
  remember(batch: m.Batch): Promise<m.Result> {
    return this.call("POST", "/v1/memories", "Batch", batch, "Result");
  }

  /** Writes a conversation's turns as one batch: a source of id conversation and a memory per
   * turn, in order (position 1, 2, ...). */
  rememberTurns(conversation: string, turns: Turn[], o: { title?: string; scopes?: string[] } = {}): Promise<m.Result> {
    const memories = turns.map(({ time, ...t }, i) => ({
      id: `${conversation}:${i + 1}`,
      ...t,
      source: conversation,
      position: i + 1,
      ...(time !== undefined ? { occurred_start: time } : {}),
    }));
    const source: m.WriteSource = o.title !== undefined ? { id: conversation, title: o.title } : { id: conversation };
    return this.remember({ memories, sources: [source], ...(o.scopes ? { scopes: o.scopes } : {}) });
  }

  /** Deletes memories by id (and the summaries that cover them). */
  forget(ids: string[], scopes?: string[]): Promise<m.DeleteResponse> {
    return this.call("DELETE", "/v1/memories", "DeleteRequest", { ids, ...(scopes ? { scopes } : {}) }, "DeleteResponse");
  }

  /** Marks the memories supersedes as replaced by memory by. */
  supersede(req: m.SupersedeRequest): Promise<m.SupersedeResponse> {
    return this.call("POST", "/v1/supersede", "SupersedeRequest", req, "SupersedeResponse");
  }

  /** A page of the key's memories by scope, source, kind, tag, text and time. */
  browse(query: m.BrowseQuery = {}): Promise<m.BrowseResult> {
    return this.call("POST", "/v1/browse", "BrowseQuery", query, "BrowseResult");
  }

  /** The key's memories of id, with their neighbours, entities and relations. */
  memory(id: string, scope?: string): Promise<m.MemoryResponse> {
    return this.call("POST", "/v1/memory", "MemoryRequest", { id, ...(scope ? { scope } : {}) }, "MemoryResponse");
  }

  /** Who the key is. */
  me(): Promise<m.MeResponse> {
    return this.call("GET", "/v1/me", null, null, "MeResponse");
  }

  /** Deletes the memories whose expires_at has passed. */
  prune(req: m.PruneRequest = {}): Promise<m.PruneResponse> {
    return this.call("POST", "/v1/prune", "PruneRequest", req, "PruneResponse");
  }

  /** Builds the summaries of a scope set. */
  summarize(req: m.SummarizeRequest = {}): Promise<m.SummarizeResponse> {
    return this.call("POST", "/v1/summarize", "SummarizeRequest", req, "SummarizeResponse");
  }

  /** Erases everything of the scope set scopes (exactly that set) and resolves to the
   * receipt: each table's rows of the set and the time. Takes an admin key (403 otherwise);
   * dryRun counts and removes nothing. */
  erase(scopes: string | string[], dryRun = false): Promise<m.Receipt> {
    const set = (typeof scopes === "string" ? [scopes] : scopes).map(encodeURIComponent).join(",");
    return this.call("DELETE", `/v1/scopes/${set}${dryRun ? "?dry_run=true" : ""}`, null, null, "Receipt");
  }

  /** Yields the native records of one scope set the key reads (a scope, or a list: exactly
   * that set; none: the key's only write scope, else its only read scope), as recall export
   * writes them: the "export" header first, then sources, entities, memories (with their
   * embeddings when asked), relations, and the "export_end" record with the counts; ingest
   * reads them back. Throws when the stream ends without its export_end record (cut). */
  async *export(scopes?: string | string[], o: { embeddings?: boolean } = {}): AsyncGenerator<Record<string, unknown>> {
    const params = new URLSearchParams();
    if (scopes !== undefined) params.set("scope", (typeof scopes === "string" ? [scopes] : scopes).join(","));
    if (o.embeddings) params.set("embeddings", "true");
    const resp = await this.send("GET", "/v1/export" + (params.size ? "?" + params.toString() : ""), null, "application/json", true);
    let ended = false;
    for await (const line of lines(resp)) {
      const rec = JSON.parse(line) as Record<string, unknown>;
      ended = rec.type === "export_end";
      yield rec;
    }
    if (!ended) throw new RecallError(0, "unavailable", "the export ended without its export_end record: it was cut");
  }

  /** Loads JSONL records as recall ingest does. data is a string (JSONL) or an iterable of
   * records (objects) or lines; progress is called with each batch's IngestProgress. Resolves
   * to the last (done); rejects with IngestFailed when a line stops it. A string body is
   * retried on 429 and 503; a stream is not (it cannot be sent twice). */
  async ingest(
    data: string | Iterable<unknown> | AsyncIterable<unknown>,
    o: { format?: string; scope?: string; duplicates?: string; duplicate_match?: string; batch?: number; progress?: (p: m.IngestProgress) => void } = {},
  ): Promise<m.IngestProgress> {
    const params = new URLSearchParams();
    for (const k of ["format", "scope", "duplicates", "duplicate_match", "batch"] as const) {
      if (o[k] !== undefined) params.set(k, String(o[k]));
    }
    const path = "/v1/ingest" + (params.size ? "?" + params.toString() : "");
    const resend = typeof data === "string";
    const body = resend ? (data as string) : lineStream(data as Iterable<unknown> | AsyncIterable<unknown>);
    const resp = await this.send("POST", path, body, "application/x-ndjson", resend);
    let last: m.IngestProgress | undefined;
    for await (const line of lines(resp)) {
      last = this.decode<m.IngestProgress>("IngestProgress", JSON.parse(line));
      if (!last.error && o.progress) o.progress(last);
    }
    if (!last) throw new RecallError(0, "unavailable", "ingest answered nothing");
    if (last.error) throw new IngestFailed(last);
    return last;
  }

  // The transport.

  private async call<T>(method: string, path: string, reqSchema: string | null, req: object | null, respSchema: string): Promise<T> {
    if (reqSchema && req) checkRequest(reqSchema, req);
    const resp = await this.send(method, path, req ? JSON.stringify(req) : null, "application/json", true);
    return this.decode<T>(respSchema, await resp.json());
  }

  private async send(method: string, path: string, body: string | ReadableStream<Uint8Array> | null, ctype: string, resend: boolean): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { Accept: "application/json, application/x-ndjson", "User-Agent": "recall-typescript" };
      if (this.key) headers.Authorization = `Bearer ${this.key}`;
      if (body !== null) headers["Content-Type"] = ctype;
      let resp: Response;
      try {
        const init: RequestInit & { duplex?: string } = { method, headers, signal: AbortSignal.timeout(this.timeoutMs) };
        if (body !== null) init.body = body;
        if (body instanceof ReadableStream) init.duplex = "half";
        resp = await fetch(this.url + path, init);
      } catch (e) {
        const err = new RecallError(0, "unavailable", "recall server unreachable", `${this.url}: ${(e as Error).message}`);
        if (!resend || attempt >= this.retries) throw err;
        await sleep(Math.min(this.maxWaitMs, 200 * 2 ** (attempt + 1)));
        continue;
      }
      if (resp.ok) return resp;
      const err = await problem(resp);
      if ((err.status === 429 || err.status === 503) && resend && attempt < this.retries) {
        await sleep(Math.min(this.maxWaitMs, err.retryAfter !== undefined ? err.retryAfter * 1000 : 200 * 2 ** (attempt + 1)));
        continue;
      }
      throw err;
    }
  }

  private decode<T>(schema: string, v: unknown): T {
    check(schema, v, this.strict, schema);
    return v as T;
  }
}

/** Throws a TypeError naming a field of req that the API's schema does not have. */
function checkRequest(schema: string, req: object): void {
  for (const k of Object.keys(req)) {
    if (!(k in SCHEMAS[schema]!.properties)) throw new TypeError(`${schema}: the API takes no field ${JSON.stringify(k)}`);
  }
}

/** Checks an answer against its schema: required fields present, nested schemas too; in
 * strict mode no field the schema does not have. */
function check(schema: string, v: unknown, strict: boolean, where: string): void {
  const s = SCHEMAS[schema];
  if (!s) return;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new DecodeError(`${where}: want an object`);
  const obj = v as Record<string, unknown>;
  const missing = s.required.filter((k) => !(k in obj));
  if (missing.length) throw new DecodeError(`${where}: required fields missing: ${missing.join(", ")}`);
  for (const [k, x] of Object.entries(obj)) {
    if (!(k in s.properties)) {
      if (strict) throw new DecodeError(`${where}: a field the API document does not give: ${k}`);
      continue;
    }
    const sub = s.properties[k];
    if (!sub || x === null || x === undefined) continue;
    if (Array.isArray(x)) x.forEach((e, i) => check(sub, e, strict, `${where}.${k}[${i}]`));
    else check(sub, x, strict, `${where}.${k}`);
  }
}

async function problem(resp: Response): Promise<RecallError> {
  const ra = resp.headers.get("Retry-After");
  const retryAfter = ra !== null && /^\d+(\.\d+)?$/.test(ra) ? Number(ra) : undefined;
  const text = await resp.text();
  try {
    const p = JSON.parse(text) as m.Problem;
    return new RecallError(p.status ?? resp.status, p.type ?? "", p.title ?? "", p.detail ?? "", p.errors ?? [], retryAfter);
  } catch {
    return new RecallError(resp.status, "", resp.statusText, text.slice(0, 500), [], retryAfter);
  }
}

function lineStream(data: Iterable<unknown> | AsyncIterable<unknown>): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const it = (Symbol.asyncIterator in data ? (data as AsyncIterable<unknown>)[Symbol.asyncIterator]() : (data as Iterable<unknown>)[Symbol.iterator]()) as
    | AsyncIterator<unknown>
    | Iterator<unknown>;
  return new ReadableStream<Uint8Array>({
    async pull(ctl) {
      const r = await it.next();
      if (r.done) return ctl.close();
      const line = typeof r.value === "string" ? r.value.replace(/\n$/, "") : JSON.stringify(r.value);
      ctl.enqueue(enc.encode(line + "\n"));
    },
  });
}

async function* lines(resp: Response): AsyncGenerator<string> {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of resp.body as unknown as AsyncIterable<Uint8Array>) {
    buf += dec.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line) yield line;
    }
  }
  if (buf.trim()) yield buf.trim();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
