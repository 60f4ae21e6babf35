"""The client follows the API: its dataclasses are the OpenAPI document's schemas, and every
operation of the document has a method (and no method calls an operation it does not have)."""

import json
import pathlib
import subprocess
import sys

import recall_client
from recall_client import OPERATIONS, Client, DecodeError, Pack

ROOT = pathlib.Path(__file__).resolve().parents[3]
DOC = json.loads((ROOT / "server" / "openapi.json").read_text())


def test_models_are_the_documents_schemas():
    gen = pathlib.Path(__file__).resolve().parents[1] / "gen_models.py"
    r = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_operation_has_a_method():
    ops = {(meth.upper(), path) for path, item in DOC["paths"].items() if path.startswith("/v1/") for meth in item}
    assert ops == set(OPERATIONS), "document only: %s; client only: %s" % (ops - set(OPERATIONS), set(OPERATIONS) - ops)
    for name in OPERATIONS.values():
        assert callable(getattr(Client, name)), name


def test_request_fields_are_the_documents():
    # What a method sends is one of the document's request schemas, built by its dataclass:
    # a field the API does not take cannot be passed.
    for path, item in DOC["paths"].items():
        for op in item.values():
            content = op.get("requestBody", {}).get("content", {}).get("application/json")
            if not content:
                continue
            name = content["schema"]["$ref"].rsplit("/", 1)[-1]
            cls = getattr(recall_client, name)
            props = set(DOC["components"]["schemas"][name].get("properties", {}))
            wire = {cls._wire.get(f, f) for f in cls.__dataclass_fields__}
            assert wire == props, name
    try:
        recall_client.RecallRequest(query="q", budget=10, top_k=3)
    except TypeError:
        pass
    else:
        raise AssertionError("a RecallRequest took a field the API does not have")


def test_strict_decoding_names_a_renamed_field():
    pack = {"query": "q", "budget": 10, "items": [], "used": 0, "omitted": [], "omitted_tokens": 0,
            "abstain": {"no_match": True, "low_similarity": False, "top_similarity": 0, "too_few": False},
            "altitude": "memories", "passages": "auto", "sources": [], "warnings": [], "served_by": "primary",
            "accessed": 0, "timings": {k: 0 for k in DOC["components"]["schemas"]["Timings"]["required"]}}
    assert Pack.decode(pack, strict=True).budget == 10
    renamed = dict(pack)
    renamed["entries"] = renamed.pop("items")
    for strict, want in ((True, "items"), (False, "items")):
        try:
            Pack.decode(renamed, strict=strict)
        except DecodeError as e:
            assert want in str(e), e
        else:
            raise AssertionError("a Pack without items decoded")
    extra = dict(pack, novel=1)
    assert Pack.decode(extra, strict=False).used == 0
    try:
        Pack.decode(extra, strict=True)
    except DecodeError as e:
        assert "novel" in str(e)
    else:
        raise AssertionError("strict decoding took an unknown field")
