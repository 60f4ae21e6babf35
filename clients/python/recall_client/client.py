"""A client of recall's HTTP API (server/openapi.json), standard library only."""

import http.client
import json
import os
import time
import urllib.parse

from . import _models as m
from ._wire import encode_value

DEFAULT_URL = "http://127.0.0.1:7411"
DEFAULT_BUDGET = 1000  # recall.DefaultBudget: the budget a recall gets when none is given

# Every operation of the API and the Client method that calls it (tests/test_api.py checks
# the table against the server's OpenAPI document both ways).
OPERATIONS = {
    ("POST", "/v1/recall"): "recall",
    ("POST", "/v1/trace"): "trace",
    ("POST", "/v1/memories"): "remember",
    ("DELETE", "/v1/memories"): "forget",
    ("POST", "/v1/supersede"): "supersede",
    ("POST", "/v1/browse"): "browse",
    ("POST", "/v1/memory"): "memory",
    ("POST", "/v1/ingest"): "ingest",
    ("GET", "/v1/me"): "me",
    ("POST", "/v1/prune"): "prune",
    ("POST", "/v1/summarize"): "summarize",
    ("DELETE", "/v1/scopes/{scope}"): "erase",
    ("GET", "/v1/export"): "export",
}


class RecallError(Exception):
    """An answer that is not a success, with the problem+json fields the server sent: type
    (e.g. "invalid", "busy"), title, status, detail and errors (FieldError: the field, the
    problem, the limit). retry_after is the Retry-After header's seconds, when sent."""

    def __init__(self, status, type="", title="", detail="", errors=None, retry_after=None):
        self.status, self.type, self.title, self.detail = status, type, title, detail
        self.errors = errors or []
        self.retry_after = retry_after
        msg = "%d %s" % (status, title or type)
        if detail:
            msg += ": " + detail
        super().__init__(msg)


class BadRequest(RecallError):
    """400: a field out of its range or of the wrong type (errors names it)."""


class Unauthorized(RecallError):
    """401: no key, or a key the server does not know."""


class Forbidden(RecallError):
    """403: the key may not do this (write, or a scope it does not hold)."""


class TooLarge(RecallError):
    """413: the body passes the server's --max-body."""


class Busy(RecallError):
    """429: the key's or the server's slots are taken; retried after Retry-After."""


class NotImplementedByServer(RecallError):
    """501: this server cannot do it (a read across scope sets on a Citus cluster)."""


class Unavailable(RecallError):
    """503: the database is unreachable or restarting, or the server is unreachable
    (status 0); retried after Retry-After."""


class Timeout(RecallError):
    """504: the request passed the server's timeout."""


class IngestFailed(RecallError):
    """An ingest that stopped at a line: progress is its last IngestProgress, whose error
    names the line and, for a body cut at the limit, last_written, the line to resume after.
    The batches before it stay written."""

    def __init__(self, progress):
        self.progress = progress
        e = progress.error
        super().__init__(200, "ingest", "ingest stopped", "line %s: %s" % (e.line, e.problem))


_BY_STATUS = {400: BadRequest, 401: Unauthorized, 403: Forbidden, 413: TooLarge, 429: Busy,
              501: NotImplementedByServer, 503: Unavailable, 504: Timeout}


class Client:
    """One recall server, one key. url defaults to $RECALL_URL (else DEFAULT_URL), api_key
    to $RECALL_API_KEY. A 429 or 503 is retried up to retries times, waiting what its
    Retry-After says (at most max_wait seconds each); timeout is each request's, in seconds."""

    def __init__(self, url=None, api_key=None, timeout=60.0, retries=3, max_wait=30.0):
        url = url or os.environ.get("RECALL_URL") or DEFAULT_URL
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("url %r: want http://host:port or https://host:port" % url)
        self.url, self._u = url, u
        self.api_key = api_key if api_key is not None else os.environ.get("RECALL_API_KEY", "")
        self.timeout, self.retries, self.max_wait = timeout, retries, max_wait

    # The calls, one per operation (OPERATIONS).

    def recall(self, query, budget=DEFAULT_BUDGET, **options):
        """The evidence for query that fits budget tokens (a Pack). options are
        RecallRequest's other fields: read, filters (a Filters or dict), as_of, altitude,
        passages ("auto", "whole", "passage"), graph_context, mark_stale, ..."""
        req = m.RecallRequest(query=query, budget=budget, **options)
        return m.Pack.decode(self._call("POST", "/v1/recall", req))

    def trace(self, query, budget=DEFAULT_BUDGET, **options):
        """The recall laid open: every candidate, its lanes and its fate (a TraceResponse)."""
        req = m.RecallRequest(query=query, budget=budget, **options)
        return m.TraceResponse.decode(self._call("POST", "/v1/trace", req))

    def remember(self, memories=(), sources=(), entities=(), relations=(), scopes=None, **options):
        """Writes one batch (all of it or nothing) and returns its Result. memories,
        sources, entities and relations are dataclasses of the API's schemas or dicts;
        options are Batch's other fields (duplicates, duplicate_match, no_extract, ...)."""
        req = m.Batch(memories=list(memories) or None, sources=list(sources) or None,
                      entities=list(entities) or None, relations=list(relations) or None,
                      scopes=scopes, **options)
        return m.Result.decode(self._call("POST", "/v1/memories", req))

    def remember_turns(self, conversation, turns, title=None, scopes=None, **options):
        """Writes a conversation's turns as one batch: a source of id conversation and a
        memory per turn, in order (position 1, 2, ...). A turn is a dict with speaker and
        text, and optionally id (default "<conversation>:<n>"), time (occurred_start) and
        any Memory field."""
        memories = []
        for n, t in enumerate(turns, 1):
            t = dict(t)
            if "time" in t:
                t["occurred_start"] = t.pop("time")
            t.setdefault("id", "%s:%d" % (conversation, n))
            memories.append(m.Memory(source=conversation, position=n, **{k: encode_value(v) for k, v in t.items()}))
        src = m.WriteSource(id=conversation, title=title)
        return self.remember(memories=memories, sources=[src], scopes=scopes, **options)

    def forget(self, ids, scopes=None):
        """Deletes memories by id (and the summaries that cover them): a DeleteResponse."""
        req = m.DeleteRequest(ids=list(ids), scopes=scopes)
        return m.DeleteResponse.decode(self._call("DELETE", "/v1/memories", req))

    def supersede(self, by, supersedes, at=None, scopes=None):
        """Marks the memories supersedes as replaced by memory by: a SupersedeResponse."""
        req = m.SupersedeRequest(by=by, supersedes=list(supersedes), at=at, scopes=scopes)
        return m.SupersedeResponse.decode(self._call("POST", "/v1/supersede", req))

    def browse(self, **query):
        """A page of the key's memories (BrowseQuery's fields: scope, source, kind, tag,
        text, from_, to, limit, offset): a BrowseResult."""
        return m.BrowseResult.decode(self._call("POST", "/v1/browse", m.BrowseQuery(**query)))

    def memory(self, id, scope=None):
        """The key's memories of id with their neighbours, entities and relations."""
        return m.MemoryResponse.decode(self._call("POST", "/v1/memory", m.MemoryRequest(id=id, scope=scope)))

    def me(self):
        """Who the key is: its user, label, scopes and whether it may write."""
        return m.MeResponse.decode(self._call("GET", "/v1/me", None))

    def prune(self, at=None, scopes=None):
        """Deletes the memories whose expires_at has passed: a PruneResponse."""
        return m.PruneResponse.decode(self._call("POST", "/v1/prune", m.PruneRequest(at=at, scopes=scopes)))

    def summarize(self, by=None, max_tokens=None, scopes=None):
        """Builds the summaries of a scope set: a SummarizeResponse."""
        req = m.SummarizeRequest(by=by, max_tokens=max_tokens, scopes=scopes)
        return m.SummarizeResponse.decode(self._call("POST", "/v1/summarize", req))

    def erase(self, scopes, dry_run=False):
        """Erases everything of the scope set scopes (a scope, or a list: exactly that set)
        and returns the Receipt: each table's rows of the set and the time. Takes an admin
        key (Forbidden otherwise); dry_run counts and removes nothing."""
        if isinstance(scopes, str):
            scopes = [scopes]
        path = "/v1/scopes/" + urllib.parse.quote(",".join(scopes), safe=",")
        if dry_run:
            path += "?dry_run=true"
        return m.Receipt.decode(self._call("DELETE", path, None))

    def export(self, scopes=None, embeddings=False):
        """Yields the native records (dicts) of one scope set the key reads (a scope, or a
        list: exactly that set; None: the key's only write scope, else its only read scope),
        as recall export writes them: the "export" header first, then sources, entities,
        memories (with their embeddings when asked), relations, and the "export_end" record
        with the counts. ingest() reads them back. Raises Unavailable when the stream ends
        without its export_end record: the export was cut."""
        params = {}
        if scopes:
            params["scope"] = ",".join([scopes] if isinstance(scopes, str) else scopes)
        if embeddings:
            params["embeddings"] = "true"
        path = "/v1/export" + ("?" + urllib.parse.urlencode(params) if params else "")
        ended = False
        for line in self._stream("GET", path, None, True):
            rec = json.loads(line)
            ended = rec.get("type") == "export_end"
            yield rec
        if not ended:
            raise Unavailable(0, "unavailable", "the export ended without its export_end record: it was cut")

    def ingest(self, data, format=None, scope=None, duplicates=None, duplicate_match=None, batch=None, progress=None):
        """Loads JSONL records as recall ingest does: data is bytes, str, a file opened in
        binary mode, or an iterable of records (dicts) or lines. progress, when given, is
        called with each IngestProgress as the server writes batches. Returns the last one
        (done); raises IngestFailed when a line stops it (the batches before stay written).
        Only bytes and str bodies are retried on 429 and 503: a stream cannot be sent twice."""
        params = {k: v for k, v in (("format", format), ("scope", scope), ("duplicates", duplicates),
                                    ("duplicate_match", duplicate_match), ("batch", batch)) if v is not None}
        path = "/v1/ingest" + ("?" + urllib.parse.urlencode(params) if params else "")
        if isinstance(data, str):
            data = data.encode()
        body, resend = data, isinstance(data, bytes)
        if not resend and not hasattr(data, "read"):
            body = (_line(r) for r in data)
        last = None
        for line in self._stream("POST", path, body, resend):
            last = m.IngestProgress.decode(json.loads(line))
            if progress is not None and last.error is None:
                progress(last)
        if last is None:
            raise Unavailable(0, "unavailable", "ingest answered nothing")
        if last.error is not None:
            raise IngestFailed(last)
        return last

    # The transport.

    def _call(self, method, path, req):
        body = json.dumps(req.encode()).encode() if req is not None else None
        status, headers, data = self._send(method, path, body, "application/json", True)
        return json.loads(data)

    def _stream(self, method, path, body, resend):
        conn, resp = self._open(method, path, body, "application/x-ndjson", resend)
        try:
            for raw in resp:
                raw = raw.strip()
                if raw:
                    yield raw
        finally:
            conn.close()

    def _send(self, method, path, body, ctype, resend):
        conn, resp = self._open(method, path, body, ctype, resend)
        try:
            return resp.status, resp.headers, resp.read()
        finally:
            conn.close()

    def _open(self, method, path, body, ctype, resend):
        """Sends the request, retrying 429 and 503 (and an unreachable server) when the body
        can be sent again; returns the connection and a 200 response, or raises."""
        attempt = 0
        while True:
            conn = self._connection()
            headers = {"Accept": "application/json, application/x-ndjson", "User-Agent": "recall-python"}
            if self.api_key:
                headers["Authorization"] = "Bearer " + self.api_key
            if body is not None:
                headers["Content-Type"] = ctype
            try:
                chunked = body is not None and not isinstance(body, bytes)
                conn.request(method, self._u.path.rstrip("/") + path, body=body, headers=headers, encode_chunked=chunked)
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                err = Unavailable(0, "unavailable", "recall server unreachable", "%s: %s" % (self.url, e))
                if not resend or attempt >= self.retries:
                    raise err from e
                attempt += 1
                time.sleep(min(self.max_wait, 0.2 * 2 ** attempt))
                continue
            if resp.status == 200:
                return conn, resp
            err = _problem(resp)
            conn.close()
            if err.status in (429, 503) and resend and attempt < self.retries:
                attempt += 1
                time.sleep(min(self.max_wait, err.retry_after if err.retry_after is not None else 0.2 * 2 ** attempt))
                continue
            raise err

    def _connection(self):
        cls = http.client.HTTPSConnection if self._u.scheme == "https" else http.client.HTTPConnection
        return cls(self._u.hostname, self._u.port, timeout=self.timeout)


def _line(record):
    if isinstance(record, bytes):
        return record.rstrip(b"\n") + b"\n"
    if isinstance(record, str):
        return record.rstrip("\n").encode() + b"\n"
    return json.dumps(encode_value(record)).encode() + b"\n"


def _problem(resp):
    """The typed error of a response that is not a 200, from its problem+json body."""
    raw = resp.read()
    retry = resp.headers.get("Retry-After")
    retry_after = float(retry) if retry and retry.replace(".", "", 1).isdigit() else None
    cls = _BY_STATUS.get(resp.status, RecallError)
    try:
        p = m.Problem.decode(json.loads(raw), strict=False)
    except (ValueError, TypeError):
        return cls(resp.status, "", resp.reason, raw.decode(errors="replace")[:500], retry_after=retry_after)
    return cls(p.status, p.type, p.title, p.detail or "", p.errors, retry_after)
