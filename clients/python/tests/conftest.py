"""The client's tests run against a real recall serve: RECALL_TEST_URL and RECALL_TEST_KEY
name it and a key of user ana that reads and writes scope "team" (cmd/recall's
TestPythonClient starts one on a fresh database and runs this suite; by hand, start one and
export both)."""

import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

os.environ.setdefault("RECALL_CLIENT_STRICT", "1")  # a field the server renames fails the suite


@pytest.fixture(scope="session")
def server():
    url, key = os.environ.get("RECALL_TEST_URL"), os.environ.get("RECALL_TEST_KEY")
    if not url or not key:
        pytest.fail("RECALL_TEST_URL and RECALL_TEST_KEY must name a running recall serve and a key of it "
                    "(go test ./cmd/recall -run TestPythonClient starts one)")
    return url, key


@pytest.fixture()
def client(server):
    from recall_client import Client

    return Client(server[0], server[1])
