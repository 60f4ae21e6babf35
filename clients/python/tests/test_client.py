"""Every call of the client against a real recall serve (conftest.py), each answer checked."""

import http.server
import threading
import time
import uuid

import pytest

from recall_client import (BadRequest, Client, Forbidden, IngestFailed, Memory, Unauthorized, Unavailable,
                           DEFAULT_BUDGET)


def chat(client, name):
    """Writes a three-turn chat of conversation name and returns the write's Result."""
    return client.remember_turns(name, [
        {"speaker": "user", "text": "I adopted a beagle named Toby from the shelter on Elm Street.",
         "time": "2024-03-02T10:00:00Z"},
        {"speaker": "assistant", "text": "Congratulations! Beagles love long walks and sniffing games.",
         "time": "2024-03-02T10:00:30Z"},
        {"speaker": "user", "text": "My sister Priya lives in Lisbon and works as a pharmacist.",
         "time": "2024-03-02T10:01:00Z"},
    ], title="Talking about pets", scopes=["team"])


def test_me(client):
    me = client.me()
    assert (me.user, me.read, me.write, me.can_write) == ("ana", ["team"], ["team"], True)


def test_remember_recall_trace(client):
    name = "chat-" + uuid.uuid4().hex[:8]
    res = chat(client, name)
    assert (res.memories, res.sources) == (3, 1)
    pack = client.recall("What is the name of the beagle I adopted?")
    assert pack.budget == DEFAULT_BUDGET and pack.used <= pack.budget
    ids = [i.external_id for i in pack.items]
    assert ids[0] == name + ":1", ids
    assert pack.items[0].speaker == "user" and "Toby" in pack.items[0].text
    small = client.recall("Where does my sister live?", budget=40, read=["team"])
    assert small.used <= 40 and name + ":3" in [i.external_id for i in small.items]
    tr = client.trace("What is the name of the beagle I adopted?", budget=200)
    assert tr.candidates and tr.candidates[0].external_id == name + ":1"
    assert {lane.lane for lane in tr.lanes} >= {"bm25", "vector"}


def test_browse_and_memory(client):
    name = "chat-" + uuid.uuid4().hex[:8]
    chat(client, name)
    page = client.browse(source=name)
    assert [m.id for m in page.memories] == [name + ":1", name + ":2", name + ":3"]
    assert not page.more
    got = client.memory(name + ":2")
    assert len(got.memories) == 1
    assert [(n.id, n.position) for n in got.memories[0].neighbours] == [(name + ":%d" % p, p) for p in (1, 2, 3)]


def test_supersede_and_forget(client):
    name = "chat-" + uuid.uuid4().hex[:8]
    chat(client, name)
    new = name + ":moved"
    client.remember(memories=[Memory(id=new, text="Priya moved from Lisbon to Porto and still works as a pharmacist.",
                                     occurred_start="2024-06-01T09:00:00Z")], scopes=["team"])
    assert client.supersede(by=new, supersedes=[name + ":3"]).superseded == 1
    pack = client.recall("Where does my sister Priya live?", budget=300)
    ids = [i.external_id for i in pack.items]
    assert new in ids and name + ":3" not in ids, ids
    assert client.forget([new]).deleted == 1
    assert client.forget([new]).deleted == 0
    assert client.memory(new).memories == []


def test_ingest_with_progress(client):
    name = "bulk-" + uuid.uuid4().hex[:8]
    records = [{"type": "memory", "id": "%s-%d" % (name, i), "text": "Shipment %d of spare parts reached dock %d." % (i, i % 7)}
               for i in range(1, 1201)]
    seen = []
    last = client.ingest(records, scope="team", batch=500, progress=seen.append)
    assert last.done and last.lines == 1200 and last.error is None
    assert [p.lines for p in seen if not p.done] == [500, 1000, 1200]
    assert [p.result.memories for p in seen if not p.done] == [500, 1000, 1200]  # totals so far
    assert client.browse(text="Shipment 1117").memories[0].id == name + "-1117"


def test_ingest_stops_at_a_bad_line(client):
    name = "bad-" + uuid.uuid4().hex[:8]
    body = "\n".join(['{"type": "memory", "id": "%s-1", "text": "The crane was oiled on Monday."}' % name,
                      '{"type": "memory", "id": "%s-2"' % name])
    with pytest.raises(IngestFailed) as e:
        client.ingest(body, scope="team", batch=1)
    assert e.value.progress.error.line == 2
    assert [m.id for m in client.memory(name + "-1").memories] == [name + "-1"]


def test_export_reads_back(client):
    name = "export-" + uuid.uuid4().hex[:8]
    client.remember(memories=[Memory(id=name + "-a", text="Lena keeps the spare keys of the boathouse."),
                              Memory(id=name + "-b", text="The boathouse opens at seven.", tags=["boats"])], scopes=["team"])
    recs = list(client.export("team"))
    assert recs[0]["type"] == "export" and recs[0]["scopes"] == ["team"], recs[0]
    assert recs[-1]["type"] == "export_end" and recs[-1]["memories"] == sum(r["type"] == "memory" for r in recs)
    mine = {r["id"]: r for r in recs if r["type"] == "memory" and r["id"].startswith(name)}
    assert mine[name + "-b"]["tags"] == ["boats"] and "embedding" not in mine[name + "-b"], mine
    assert len(next(r for r in client.export(["team"], embeddings=True) if r["type"] == "memory")["embedding"]) > 0
    # Read back: the same file restores (writing the same ids again updates them in place).
    last = client.ingest(recs, scope="team")
    assert last.done and last.result.memories == recs[-1]["memories"], last


def test_errors_are_typed(client, server):
    with pytest.raises(BadRequest) as e:
        client.recall("anything", budget=0)
    assert e.value.status == 400 and e.value.errors and e.value.errors[0].field == "budget"
    with pytest.raises(Unauthorized):
        Client(server[0], "rk_not_a_key").me()
    with pytest.raises(Forbidden):
        client.remember(memories=[Memory(id="x", text="not mine")], scopes=["someone-else"])
    with pytest.raises(TypeError):
        client.recall("anything", top_k=3)  # not a field of the API
    with pytest.raises(Forbidden) as e:  # erasing takes an admin key; ana's is not one
        client.erase("team", dry_run=True)
    assert e.value.type.endswith("admin")


class _Flaky(http.server.BaseHTTPRequestHandler):
    """A server that is busy (429, Retry-After: 1) for its first answer, then answers /v1/me."""

    calls = []

    def do_GET(self):
        _Flaky.calls.append(time.monotonic())
        if len(_Flaky.calls) == 1:
            body = b'{"type":"busy","title":"busy","status":429}'
            self.send_response(429)
            self.send_header("Retry-After", "1")
        else:
            body = b'{"user":"ana","read":["team"],"write":[],"can_write":false}'
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_retries_honour_retry_after():
    srv = http.server.HTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        url = "http://127.0.0.1:%d" % srv.server_address[1]
        assert Client(url, "k").me().user == "ana"
        assert len(_Flaky.calls) == 2 and _Flaky.calls[1] - _Flaky.calls[0] >= 1.0
        _Flaky.calls.clear()
        with pytest.raises(Exception) as e:
            Client(url, "k", retries=0).me()
        assert getattr(e.value, "status", None) == 429 and e.value.retry_after == 1
    finally:
        srv.shutdown()
    with pytest.raises(Unavailable) as e:
        Client("http://127.0.0.1:9", "k", retries=1, max_wait=0.1).me()
    assert e.value.status == 0
