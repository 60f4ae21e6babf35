"""recall's Python client: the HTTP API (server/openapi.json) as typed calls.

    from recall_client import Client
    c = Client()                       # $RECALL_URL and $RECALL_API_KEY
    c.remember_turns("chat-1", [{"speaker": "user", "text": "I adopted a beagle named Toby."}])
    pack = c.recall("What is my dog's name?", budget=500)
    for item in pack.items:
        print(item.external_id, item.text)
"""

from ._models import *  # noqa: F401,F403 (the API's schemas as dataclasses)
from ._wire import DecodeError
from .client import (DEFAULT_BUDGET, DEFAULT_URL, OPERATIONS, BadRequest, Busy, Client, Forbidden, IngestFailed,
                     NotImplementedByServer, RecallError, Timeout, TooLarge, Unauthorized, Unavailable)

__all__ = ["Client", "RecallError", "BadRequest", "Unauthorized", "Forbidden", "TooLarge", "Busy",
           "NotImplementedByServer", "Unavailable", "Timeout", "IngestFailed", "DecodeError",
           "DEFAULT_BUDGET", "DEFAULT_URL", "OPERATIONS"]
