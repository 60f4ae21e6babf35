#!/usr/bin/python3
"""Write random-weight BERT-shaped ONNX models with a real WordPiece tokenizer.json.

recall's ONNX code is tested on tiny models this script writes (kept in the repo under
testdata/models/) and measured on models of real shape it writes on demand (MiniLM-L6:
6 layers, hidden 384, 12 heads, vocabulary 30522). No pretrained weights are involved: the
weights are random (seeded), so outputs mean nothing, but shapes, operators, tokenization,
padding and truncation are those of a sentence-transformers export.

Usage: gen-models.py DIR --kind embedder|cross-encoder [--layers N --hidden N --heads N
       --intermediate N --vocab N --max-pos N --max-seq N --seed N]

Needs Debian's python3-onnx and python3-numpy (apt-get install python3-onnx python3-numpy).
"""
import argparse
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

# Whole words of the vocabulary; anything else splits into these, letters and ##letters.
WORDS = """the of and to a in is was for that on with as by at from it an be are this or
which not have has had were but been their its also they one two three more than all
into other who can when after about these there used some time first new most such may
only would between over year years during many people study studies patients cell cells
risk disease treatment effect effects increased reduced lower higher results found
associated clinical human protein gene genes expression level levels response data
analysis trial group high low role factor cancer blood heart health age women men
children years aspirin tower river city harbor crane cranes lisbon tokyo rotterdam
alice bob carol dan martin stone diaz wu moved walked presented budget project lemon
cake bread cat marathon conference travel diary minutes recipes world fair built
mitochondria produce energy atp dose trial randomized attack attacks older adults
""".split()

PIECES = ["ing", "ed", "er", "ers", "ly", "tion", "tions", "s", "es", "al", "ment", "ness", "ic", "ous"]


def vocabulary(size):
    chars = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)]
    punct = list(".,;:!?'\"()[]{}-_/\\@#$%^&*+=<>|~`")
    vocab = list(SPECIALS)
    for tok in chars + punct:
        vocab.append(tok)
    for tok in chars:
        vocab.append("##" + tok)
    for p in PIECES:
        vocab.append("##" + p)
    seen = set(vocab)
    for w in WORDS:
        if w not in seen:
            vocab.append(w)
            seen.add(w)
    i = 0
    while len(vocab) < size:  # filler entries give real-shape models their full vocabulary
        tok = "##x%d" % i if i % 2 else "w%d" % i
        if tok not in seen:
            vocab.append(tok)
            seen.add(tok)
        i += 1
    return vocab


def tokenizer_json(vocab, max_seq):
    ids = {t: i for i, t in enumerate(vocab)}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True}
            for t in SPECIALS
        ],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ["[CLS]", "[SEP]"]},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


class Graph:
    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.n = 0

    def name(self, p):
        self.n += 1
        return "%s_%d" % (p, self.n)

    def weight(self, shape, std=0.05, value=None):
        n = self.name("w")
        arr = np.full(shape, value, np.float32) if value is not None else (self.rng.standard_normal(shape) * std).astype(np.float32)
        self.inits.append(numpy_helper.from_array(arr, n))
        return n

    def const(self, arr):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def op(self, kind, inputs, out=None, **attrs):
        out = out or self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(self, x, din, dout):
        return self.op("Add", [self.op("MatMul", [x, self.weight([din, dout])]), self.weight([dout], value=0.0)])

    def layer_norm(self, x, h):
        return self.op("LayerNormalization", [x, self.weight([h], value=1.0), self.weight([h], value=0.0)], axis=-1, epsilon=1e-12)


def build(kind, layers, hidden, heads, inter, vocab_size, max_pos, seed):
    rng = np.random.default_rng(seed)
    g = Graph(rng)
    d = hidden // heads
    dyn = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dyn) for n in ["input_ids", "attention_mask", "token_type_ids"]]

    word = g.op("Gather", [g.weight([vocab_size, hidden], std=0.5), "input_ids"])
    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(np.array(1, np.int64))], axis=0)
    pos_ids = g.op("Unsqueeze", [g.op("Range", [g.const(np.array(0, np.int64)), seq, g.const(np.array(1, np.int64))]), g.const(np.array([0], np.int64))])
    pos = g.op("Gather", [g.weight([max_pos, hidden], std=0.5), pos_ids])
    typ = g.op("Gather", [g.weight([2, hidden], std=0.5), "token_type_ids"])
    x = g.layer_norm(g.op("Add", [g.op("Add", [word, pos]), typ]), hidden)

    mask = g.op("Cast", [g.op("Unsqueeze", ["attention_mask", g.const(np.array([1, 2], np.int64))])], to=TensorProto.FLOAT)
    ext = g.op("Mul", [g.op("Sub", [g.const(np.array(1.0, np.float32)), mask]), g.const(np.array(-10000.0, np.float32))])
    split = g.const(np.array([0, 0, heads, d], np.int64))
    merge = g.const(np.array([0, 0, hidden], np.int64))
    scale = g.const(np.array(1.0 / np.sqrt(d), np.float32))
    for _ in range(layers):
        def heads_of(t, perm):
            return g.op("Transpose", [g.op("Reshape", [t, split])], perm=perm)
        q = heads_of(g.linear(x, hidden, hidden), [0, 2, 1, 3])
        k = heads_of(g.linear(x, hidden, hidden), [0, 2, 3, 1])
        v = heads_of(g.linear(x, hidden, hidden), [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), ext])
        ctx = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
        x = g.layer_norm(g.op("Add", [g.linear(ctx, hidden, hidden), x]), hidden)
        hmid = g.linear(x, hidden, inter)
        gelu = g.op("Mul", [g.op("Mul", [hmid, g.const(np.array(0.5, np.float32))]),
                            g.op("Add", [g.const(np.array(1.0, np.float32)),
                                         g.op("Erf", [g.op("Div", [hmid, g.const(np.array(np.sqrt(2.0), np.float32))])])])])
        x = g.layer_norm(g.op("Add", [g.linear(gelu, inter, hidden), x]), hidden)

    if kind == "embedder":
        g.op("Identity", [x], out="last_hidden_state")
        outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])]
    else:
        first = g.op("Gather", [x, g.const(np.array(0, np.int64))], axis=1)
        pooled = g.op("Tanh", [g.linear(first, hidden, hidden)])
        g.op("Add", [g.op("MatMul", [pooled, g.weight([hidden, 1], std=0.5)]), g.weight([1], value=0.0)], out="logits")
        outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])]

    graph = helper.make_graph(g.nodes, "bert", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="recall gen-models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


# The reference: a plain numpy BERT forward pass over the same weights, with its own
# WordPiece tokenizer, so the Go side is checked against code it shares nothing with.

def basic_tokens(text):
    out, cur = [], ""
    for ch in text.lower():
        if ch.isspace():
            if cur:
                out.append(cur)
            cur = ""
        elif not ch.isalnum():
            if cur:
                out.append(cur)
            out.append(ch)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def wordpiece(text, ids):
    out = []
    for word in basic_tokens(text):
        start, pieces = 0, []
        while start < len(word):
            end, found = len(word), None
            while end > start:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                if sub in ids:
                    found = sub
                    break
                end -= 1
            if found is None:
                pieces = ["[UNK]"]
                break
            pieces.append(found)
            start = end
        out.extend(ids[p] for p in pieces)
    return out


def forward(model, input_ids, type_ids):
    w = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    env = dict(w)
    env["input_ids"] = np.array([input_ids], np.int64)
    env["token_type_ids"] = np.array([type_ids], np.int64)
    env["attention_mask"] = np.ones_like(env["input_ids"])

    def erf(x):
        return np.vectorize(__import__("math").erf)(x).astype(np.float32)

    for n in model.graph.node:
        a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
        i = [env[x] for x in n.input]
        k = n.op_type
        if k == "Gather":
            r = np.take(i[0], i[1], axis=a.get("axis", 0))
        elif k == "Shape":
            r = np.array(i[0].shape, np.int64)
        elif k == "Range":
            r = np.arange(i[0], i[1], i[2], dtype=np.int64)
        elif k == "Unsqueeze":
            r = i[0]
            for ax in sorted(i[1].tolist()):
                r = np.expand_dims(r, ax)
        elif k == "Cast":
            r = i[0].astype(np.float32)
        elif k in ("Add", "Sub", "Mul", "Div"):
            r = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[k](i[0], i[1]).astype(np.float32 if i[0].dtype == np.float32 else i[0].dtype)
        elif k == "MatMul":
            r = np.matmul(i[0], i[1])
        elif k == "LayerNormalization":
            mu = i[0].mean(-1, keepdims=True)
            var = ((i[0] - mu) ** 2).mean(-1, keepdims=True)
            r = (i[0] - mu) / np.sqrt(var + a["epsilon"]) * i[1] + i[2]
        elif k == "Reshape":
            shape = [i[0].shape[j] if d == 0 else d for j, d in enumerate(i[1].tolist())]
            r = i[0].reshape(shape)
        elif k == "Transpose":
            r = np.transpose(i[0], a["perm"])
        elif k == "Softmax":
            e = np.exp(i[0] - i[0].max(-1, keepdims=True))
            r = e / e.sum(-1, keepdims=True)
        elif k == "Erf":
            r = erf(i[0])
        elif k == "Tanh":
            r = np.tanh(i[0])
        elif k == "Identity":
            r = i[0]
        else:
            raise SystemExit("reference: no op " + k)
        env[n.output[0]] = r
    return env[model.graph.output[0].name][0]


REF_TEXTS = ["Aspirin lowers the risk of heart attacks in older adults.",
             "The Eiffel Tower was finished in 1889 for the World's Fair.",
             "Mitochondria produce most of the cell's ATP!", "x"]


def reference(model, kind, vocab, max_seq):
    ids = {t: i for i, t in enumerate(vocab)}
    cls, sep = ids["[CLS]"], ids["[SEP]"]
    out = {"texts": REF_TEXTS}
    if kind == "embedder":
        out["ids"], out["embeddings"] = [], []
        for t in REF_TEXTS:
            tok = [cls] + wordpiece(t, ids)[: max_seq - 2] + [sep]
            h = forward(model, tok, [0] * len(tok))
            v = h.mean(0)
            out["ids"].append(tok)
            out["embeddings"].append((v / np.linalg.norm(v)).tolist())
    else:
        q = "Does aspirin lower the risk of heart attacks?"
        out["query"], out["ids"], out["scores"] = q, [], []
        for t in REF_TEXTS:
            qa, da = wordpiece(q, ids), wordpiece(t, ids)
            tok = [cls] + qa + [sep] + da + [sep]
            types = [0] * (len(qa) + 2) + [1] * (len(da) + 1)
            logit = forward(model, tok, types)[0]
            out["ids"].append(tok)
            out["scores"].append(float(1 / (1 + np.exp(-logit))))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--kind", choices=["embedder", "cross-encoder"], required=True)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--intermediate", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=0, help="vocabulary size (0: just the built-in tokens)")
    ap.add_argument("--max-pos", type=int, default=128)
    ap.add_argument("--max-seq", type=int, default=64, help="max_seq_length the model declares")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reference", action="store_true", help="also write reference.json (numpy forward pass)")
    a = ap.parse_args()

    vocab = vocabulary(a.vocab)
    os.makedirs(a.dir, exist_ok=True)
    model = build(a.kind, a.layers, a.hidden, a.heads, a.intermediate, len(vocab), a.max_pos, a.seed)
    onnx.save(model, os.path.join(a.dir, "model.onnx"))

    def dump(name, obj):
        with open(os.path.join(a.dir, name), "w") as f:
            json.dump(obj, f, indent=1, sort_keys=True)
            f.write("\n")

    dump("tokenizer.json", tokenizer_json(vocab, a.max_seq))
    if a.reference:
        dump("reference.json", reference(model, a.kind, vocab, a.max_seq))
    config = {"model_type": "bert", "architectures": ["BertModel" if a.kind == "embedder" else "BertForSequenceClassification"],
              "hidden_size": a.hidden, "num_hidden_layers": a.layers, "num_attention_heads": a.heads,
              "intermediate_size": a.intermediate, "vocab_size": len(vocab), "max_position_embeddings": a.max_pos,
              "type_vocab_size": 2, "pad_token_id": 0, "_recall_provenance": "random weights, seed %d, scripts/gen-models.py" % a.seed}
    if a.kind == "cross-encoder":
        config["id2label"] = {"0": "LABEL_0"}
    dump("config.json", config)
    dump("special_tokens_map.json", {"cls_token": "[CLS]", "mask_token": "[MASK]", "pad_token": "[PAD]", "sep_token": "[SEP]", "unk_token": "[UNK]"})
    dump("tokenizer_config.json", {"do_lower_case": True, "model_max_length": a.max_seq, "tokenizer_class": "BertTokenizer"})
    if a.kind == "embedder":
        dump("sentence_bert_config.json", {"max_seq_length": a.max_seq, "do_lower_case": False})
        os.makedirs(os.path.join(a.dir, "1_Pooling"), exist_ok=True)
        with open(os.path.join(a.dir, "1_Pooling", "config.json"), "w") as f:
            json.dump({"word_embedding_dimension": a.hidden, "pooling_mode_mean_tokens": True}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
