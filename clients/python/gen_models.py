"""Writes recall_client/_models.py from the server's OpenAPI document (server/openapi.json).

Every schema of the document becomes a dataclass whose fields are the schema's properties:
the required ones first and typed, the others Optional with None for "not sent" or "not
given". tests/test_api.py fails when the file is not what this script writes from the
document, so the client cannot drift from the API:

    python3 clients/python/gen_models.py            # rewrite the file
    python3 clients/python/gen_models.py --check    # exit 1 when it differs
"""

import json
import keyword
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
DOC = HERE.parent.parent / "server" / "openapi.json"
OUT = HERE / "recall_client" / "_models.py"

SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "dict"}


def ref_name(ref):
    return ref.rsplit("/", 1)[-1]


def py_type(prop):
    """The annotation of one property and its shape for the decoder: (annotation, kind, class)."""
    if "$ref" in prop:
        n = ref_name(prop["$ref"])
        return n, "one", n
    t = prop.get("type")
    if t == "array":
        inner = prop.get("items", {})
        if "$ref" in inner:
            n = ref_name(inner["$ref"])
            return "List[%s]" % n, "list", n
        return "List[%s]" % SCALARS.get(inner.get("type"), "Any"), None, None
    return SCALARS.get(t, "Any"), None, None


def attr(name):
    return name + "_" if keyword.iskeyword(name) else name


def render(doc):
    schemas = doc["components"]["schemas"]
    out = [
        '"""The API\'s schemas as dataclasses. Written by gen_models.py from server/openapi.json: do not edit."""',
        "",
        "from __future__ import annotations",
        "",
        "from dataclasses import dataclass",
        "from typing import Any, List, Optional  # noqa: F401",
        "",
        "from ._wire import Model",
        "",
    ]
    for name in sorted(schemas):
        s = schemas[name]
        props = s.get("properties", {})
        required = [p for p in sorted(props) if p in s.get("required", [])]
        optional = [p for p in sorted(props) if p not in required]
        out += ["", "@dataclass", "class %s(Model):" % name]
        desc = s.get("description")
        if desc:
            out.append('    """%s"""' % desc.replace('"""', "'''"))
            out.append("")
        wire, nested = {}, {}
        for p in required + optional:
            ann, kind, cls = py_type(props[p])
            a = attr(p)
            if a != p:
                wire[a] = p
            if kind:
                nested[a] = (kind, cls)
            if p in required:
                out.append("    %s: %s" % (a, ann))
            else:
                out.append("    %s: Optional[%s] = None" % (a, ann))
        if not props:
            out.append("    pass")
        out.append("")
        out.append("    _required = (%s)" % "".join(repr(attr(p)) + ", " for p in required))
        out.append("    _wire = %r" % wire)
        out.append("    _nested = {%s}" % ", ".join("%r: (%r, %r)" % (k, v[0], v[1]) for k, v in sorted(nested.items())))
    out.append("")
    out.append("SCHEMAS = {%s}" % ", ".join("%r: %s" % (n, n) for n in sorted(schemas)))
    out.append("")
    return "\n".join(out)


def main():
    text = render(json.loads(DOC.read_text()))
    if "--check" in sys.argv[1:]:
        if OUT.read_text() != text:
            print("%s is not what gen_models.py writes from %s: run python3 %s" % (OUT, DOC, __file__), file=sys.stderr)
            sys.exit(1)
        return
    OUT.write_text(text)


if __name__ == "__main__":
    main()
