"""How the dataclasses of _models.py are read from and written to the API's JSON."""

import dataclasses
import os
import sys


class DecodeError(ValueError):
    """An answer that does not have the shape the API document gives it."""


def strict_default():
    """Strict decoding (unknown fields are errors) when RECALL_CLIENT_STRICT is 1: the
    client's tests run so, so that a field the server renames fails them. Otherwise unknown
    fields are ignored, so an older client reads a newer server."""
    return os.environ.get("RECALL_CLIENT_STRICT") == "1"


class Model:
    """The base of every schema's dataclass: decode from and encode to the wire's JSON."""

    _required = ()
    _wire = {}
    _nested = {}

    @classmethod
    def decode(cls, obj, strict=None, where=None):
        """Reads obj (a dict from the JSON answer) as this schema. A required field missing
        is a DecodeError naming it; in strict mode so is a field the schema does not have."""
        strict = strict_default() if strict is None else strict
        where = where or cls.__name__
        if not isinstance(obj, dict):
            raise DecodeError("%s: want an object, got %r" % (where, type(obj).__name__))
        schemas = sys.modules[cls.__module__].SCHEMAS
        names = {f.name: cls._wire.get(f.name, f.name) for f in dataclasses.fields(cls)}
        wire_names = set(names.values())
        missing = [w for a, w in names.items() if a in cls._required and w not in obj]
        if missing:
            raise DecodeError("%s: required fields missing: %s" % (where, ", ".join(missing)))
        if strict:
            unknown = sorted(set(obj) - wire_names)
            if unknown:
                raise DecodeError("%s: fields the API document does not give: %s" % (where, ", ".join(unknown)))
        args = {}
        for attr, wire in names.items():
            if wire not in obj:
                continue
            v = obj[wire]
            kind = cls._nested.get(attr)
            if kind and v is not None:
                sub = schemas[kind[1]]
                if kind[0] == "one":
                    v = sub.decode(v, strict, "%s.%s" % (where, wire))
                else:
                    v = [sub.decode(x, strict, "%s.%s[%d]" % (where, wire, i)) for i, x in enumerate(v)]
            args[attr] = v
        return cls(**args)

    def encode(self):
        """The JSON object to send: the fields that are set (None is "not sent"), by their
        wire names."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if v is None:
                continue
            out[self._wire.get(f.name, f.name)] = encode_value(v)
        return out


def encode_value(v):
    if isinstance(v, Model):
        return v.encode()
    if isinstance(v, (list, tuple)):
        return [encode_value(x) for x in v]
    if isinstance(v, dict):
        return {k: encode_value(x) for k, x in v.items()}
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v
