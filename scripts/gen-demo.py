#!/usr/bin/env python3
"""Write the demo corpus of `recall demo` (cmd/recall/demo/corpus.jsonl): a year and a half in
Marlow Bay, a small fishing town restoring its lighthouse. People, places and dates recur so
that every lane has something to find: names (mention and graph lanes), source titles (title
lane), dates (temporal lane), and plain words (BM25 and vector lanes).

The text is this project's own. Deterministic: the same script writes the same file.
Usage: scripts/gen-demo.py > cmd/recall/demo/corpus.jsonl
"""
import json
import random
import sys
from datetime import date, timedelta

rng = random.Random(7)

people = {
    "nadia": ("Nadia Okafor", ["Nadia"], "person", "the harbor master"),
    "tomas": ("Tomas Lindqvist", ["Tomas"], "person", "a boat builder"),
    "ines": ("Ines Duarte", ["Ines"], "person", "the town archivist"),
    "ravi": ("Ravi Menon", ["Ravi"], "person", "a marine biologist"),
    "greta": ("Greta Holm", ["Greta"], "person", "the baker on Quay Street"),
    "malik": ("Malik Haddad", ["Malik"], "person", "the lighthouse engineer"),
    "june": ("June Park", ["June"], "person", "the school teacher"),
    "oscar": ("Oscar Brandt", ["Oscar"], "person", "the mayor"),
    "lea": ("Lea Moreau", ["Lea"], "person", "a visiting painter"),
    "sam": ("Sam Achebe", ["Sam"], "person", "a ferry captain"),
}
places = ["Marlow Bay", "the North Pier", "Quay Street", "Gull Island", "the old lighthouse",
          "the fish market", "Saltmarsh Lane", "the town hall", "Kestrel Point", "the boatyard"]

sources = [
    ("council", "Town council minutes", "meeting"),
    ("harborlog", "Harbor master's logbook", "log"),
    ("lighthouse", "Lighthouse restoration project", "project"),
    ("bakery", "Greta's bakery notebook", "notebook"),
    ("fieldnotes", "Ravi's field notes on Gull Island", "field"),
    ("school", "Marlow Bay school newsletter", "newsletter"),
]

# Hand-written memories the demo questions are about.
facts = [
    ("lighthouse", "2024-03-12", ["malik", "oscar"], "Malik Haddad reported that the lighthouse lantern room needs a new copper roof; the council budgeted 48,000 euros for it.", ["lighthouse", "budget"]),
    ("lighthouse", "2024-06-21", ["malik", "tomas"], "The lighthouse lamp was relit on midsummer night for the first time since 1987. Tomas Lindqvist rowed Malik out to check the beam from the water.", ["lighthouse"]),
    ("council", "2024-02-05", ["oscar", "nadia"], "The council voted to close the North Pier to cars after Nadia Okafor showed cracks in its pilings.", ["council", "pier"]),
    ("council", "2024-09-30", ["oscar", "ines"], "Oscar Brandt asked Ines Duarte to digitize the harbor records from 1890 to 1950 before the archive moves.", ["council", "archive"]),
    ("harborlog", "2024-11-14", ["nadia", "sam"], "Storm warning: Nadia Okafor kept every boat in port; Sam Achebe cancelled the Gull Island ferry for two days.", ["storm", "ferry"]),
    ("fieldnotes", "2024-05-03", ["ravi"], "Ravi Menon counted 212 puffin burrows on Gull Island, up from 170 last spring.", ["puffins", "birds"]),
    ("fieldnotes", "2024-08-19", ["ravi", "lea"], "Lea Moreau joined Ravi on Gull Island to paint the seal colony at low tide.", ["seals", "art"]),
    ("bakery", "2024-04-02", ["greta"], "Greta Holm's recipe for cardamom buns: wheat flour, butter, milk, sugar, fresh yeast and crushed cardamom; the dough rests overnight.", ["recipe"]),
    ("bakery", "2024-12-13", ["greta", "june"], "Greta baked three hundred saffron buns for the school's winter concert that June Park organized.", ["school", "recipe"]),
    ("school", "2024-10-08", ["june", "ravi"], "June Park's class visited Ravi Menon's tide pool lab at Kestrel Point and found two sea stars.", ["school", "tide pools"]),
    ("harborlog", "2025-01-20", ["tomas", "nadia"], "Tomas Lindqvist launched the new pilot boat Ada from the boatyard; Nadia named it after her grandmother.", ["boats"]),
    ("council", "2025-03-03", ["oscar", "malik", "ines"], "The lighthouse museum will open in June 2025 with Ines Duarte's exhibition of old keeper logbooks.", ["lighthouse", "museum"]),
    ("lighthouse", "2025-05-28", ["malik", "lea"], "Lea Moreau painted a mural of the 1920 keeper family on the lighthouse's ground floor.", ["lighthouse", "art"]),
    ("harborlog", "2025-02-11", ["sam"], "Sam Achebe's ferry hit a floating log near Kestrel Point; no one was hurt and the hull was patched at the boatyard.", ["ferry", "incident"]),
]

# Templates for the everyday memories around them.
everyday = [
    ("harborlog", "{a} brought in {n} crates of {fish} to the fish market at dawn.", ["catch"]),
    ("harborlog", "Wind from the {wind} at {kn} knots; {a} kept the small boats inside the breakwater.", ["weather"]),
    ("council", "{a} and {b} discussed {topic} at the town hall; a decision was postponed to the next meeting.", ["council"]),
    ("council", "The council approved {amount} euros for {topic}, proposed by {a}.", ["council", "budget"]),
    ("lighthouse", "{a} sanded and primed {part} of the old lighthouse; {b} helped carry the scaffolding.", ["lighthouse"]),
    ("lighthouse", "Volunteers led by {a} repainted {part} white and red.", ["lighthouse"]),
    ("bakery", "{a} bought {n} {bread} at Greta's bakery on Quay Street.", ["bakery"]),
    ("bakery", "Greta Holm tried a new {bread} with {grain}; {a} said it was the best yet.", ["bakery", "recipe"]),
    ("fieldnotes", "Ravi Menon saw {n} {bird} near {place} during the {tide} tide.", ["birds"]),
    ("fieldnotes", "Water temperature at {place}: {temp} degrees; {a} helped take the samples.", ["science"]),
    ("school", "June Park's pupils wrote letters to {a} about {topic}.", ["school"]),
    ("school", "The school trip went to {place}; {a} showed the children {thing}.", ["school"]),
]
fish = ["cod", "mackerel", "herring", "plaice", "crab", "langoustine"]
winds = ["north", "north-west", "south-west", "east"]
topics = ["the North Pier repairs", "parking on Quay Street", "the summer festival", "the lighthouse museum",
          "a new bus to the station", "the harbor dredging", "the ferry timetable", "street lights on Saltmarsh Lane"]
parts = ["the gallery railing", "the lantern room door", "the spiral stairs", "the keeper's cottage", "the north wall"]
breads = ["rye loaves", "cinnamon rolls", "sourdough boules", "seed crackers", "cardamom buns"]
grains = ["spelt", "einkorn", "barley", "oats"]
birds = ["puffins", "eiders", "oystercatchers", "terns", "gannets"]
tides = ["low", "high", "spring"]
things = ["how nets are mended", "the lighthouse lens", "a seal skull", "the old harbor maps", "how boats are caulked"]

out = []
for key, (name, aliases, kind, role) in people.items():
    out.append({"type": "entity", "id": key, "name": name, "kind": kind, "aliases": aliases, "metadata": {"role": role}})
for sid, title, _ in sources:
    out.append({"type": "source", "id": sid, "title": title})

n = 0
for src, d, who, text, tags in facts:
    n += 1
    out.append({"type": "memory", "id": "fact%02d" % n, "source": src, "kind": "world", "text": text,
                "occurred_start": d, "tags": tags, "entities": who})

start = date(2024, 1, 1)
names = [v[0] for v in people.values()]
for i in range(300 - len(facts)):
    src, tpl, tags = everyday[i % len(everyday)]
    a, b = rng.sample(names, 2)
    text = tpl.format(a=a, b=b, n=rng.randint(2, 40), fish=rng.choice(fish), wind=rng.choice(winds),
                      kn=rng.randint(8, 45), topic=rng.choice(topics), amount=rng.choice([1200, 5000, 8000, 15000, 30000]),
                      part=rng.choice(parts), bread=rng.choice(breads), grain=rng.choice(grains), bird=rng.choice(birds),
                      place=rng.choice(places), tide=rng.choice(tides), temp=rng.randint(6, 18), thing=rng.choice(things))
    d = start + timedelta(days=rng.randint(0, 540))
    kind = "observation" if src in ("fieldnotes", "harborlog") else "experience"
    out.append({"type": "memory", "id": "day%03d" % i, "source": src, "kind": kind, "text": text,
                "occurred_start": d.isoformat(), "tags": tags})

for r in out:
    sys.stdout.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")
