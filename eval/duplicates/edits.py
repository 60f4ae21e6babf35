"""Pairs of near-alike texts for the duplicate study (eval/results/duplicates.md).

From each document of a BEIR corpus (title and text), an edited copy of one of four kinds:
  restated  the same words once articles, case and final punctuation are set aside, and a
            filler added ("really"): a restatement, which the words rule merges;
  number    the first number changed by one;
  negation  "not" after the first is/was/are/were/did/does/can;
  word      one word of 7+ letters replaced by "placebo".
The last three change what the text says. Writes CSV rows (id, kind, original, edited) to
stdout. Usage: python3 edits.py CORPUS.jsonl > edits.csv
"""
import csv
import json
import random
import re
import sys

random.seed(35)
out = csv.writer(sys.stdout)
for line in open(sys.argv[1], encoding="utf-8"):
    d = json.loads(line)
    t = (d.get("title") or "") + ". " + d["text"]
    r = re.sub(r"\b(the|a|The|A) ", "", t).lower().rstrip(".") + " really"
    out.writerow([d["_id"], "restated", t, r])
    m = re.search(r"\b\d+\b", t)
    if m:
        out.writerow([d["_id"], "number", t, t[: m.start()] + str(int(m.group()) + 1) + t[m.end():]])
    m = re.search(r"\b(is|was|are|were|did|does|can)\b", t)
    if m:
        out.writerow([d["_id"], "negation", t, t[: m.end()] + " not" + t[m.end():]])
    words = list(re.finditer(r"\b[a-z]{7,}\b", t))
    if words:
        x = random.choice(words)
        out.writerow([d["_id"], "word", t, t[: x.start()] + "placebo" + t[x.end():]])
