#!/usr/bin/env python3
"""Structure-aware mutants of the suite's input formats, for scripts/hostile.sh.

    mutate.py json SEED COUNT OUT_DIR FILE...    JSON inputs (scenarios, tune files, plans)
    mutate.py csv SEED COUNT OUT_DIR FILE...     summary CSVs (a run's RUN.csv)
    mutate.py bytes SEED COUNT OUT_DIR FILE...   binary files (.fmshard)

Each mutant is one or a few edits a hostile user (or a damaged disk) could make: a value of the
wrong type or out of range, a key removed, renamed, repeated or added, a subtree swapped in from
elsewhere, deep nesting, hostile strings; for CSV, fields and lines; for bytes, flips, cuts and
splices. Writes OUT_DIR/<n>-<name> and prints nothing. Deterministic for a seed.
"""
import json
import os
import random
import sys

HOSTILE_NUMBERS = [0, -1, 1, 2.5, -0.0, 1e308, -1e308, 1e-320, 2**63, 2**64, -(2**63) - 1, 10**30, 0.1]
HOSTILE_STRINGS = [
    "", " ", "nan", "inf", "-inf", "1e999", "0x10", "10", "10s", "-5s", "1h", "9999999h", "0ms", "abc",
    "../../etc/passwd", "/dev/null", "a\u0000b", "\u202e", "é" * 300, "x" * 5000, "<script>", "a|b",
    "30%", "150%", "-5%", "Wed, 21 Oct 2015 07:28:00 GMT", "{}", "[]", "null", "true",
]


def paths(value, prefix=()):
    yield prefix, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, prefix + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from paths(child, prefix + (index,))


def get(root, path):
    for step in path:
        root = root[step]
    return root


def put(root, path, value):
    if not path:
        return value
    get(root, path[:-1])[path[-1]] = value
    return root


def hostile_value(rng, original, donors):
    choice = rng.random()
    if choice < 0.3:
        return rng.choice(HOSTILE_NUMBERS)
    if choice < 0.55:
        return rng.choice(HOSTILE_STRINGS)
    if choice < 0.65:
        return rng.choice([None, True, False, [], {}, [None], {"": 1}])
    if choice < 0.8 and donors:
        # A copy: a subtree put under itself would make the document a cycle.
        return json.loads(json.dumps(rng.choice(donors)))
    if isinstance(original, (int, float)) and not isinstance(original, bool):
        return rng.choice([original * 10**rng.randint(1, 12), -original, original + 0.5, original - 1])
    if isinstance(original, str):
        return rng.choice([original * rng.randint(2, 50), original[::-1], original.upper(), original + "x"])
    if isinstance(original, list):
        return original * rng.randint(2, 300) if original else [original]
    return original


def mutate_json(rng, document):
    all_paths = list(paths(document))
    donors = [value for _, value in all_paths]
    text = None
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        all_paths = list(paths(document))
        path, value = rng.choice(all_paths)
        parent = get(document, path[:-1]) if path else None
        operation = rng.random()
        if operation < 0.45 or not path:
            document = put(document, path, hostile_value(rng, value, donors))
        elif operation < 0.6 and isinstance(parent, dict):
            del parent[path[-1]]
        elif operation < 0.7 and isinstance(parent, dict):
            parent[str(path[-1]) + rng.choice(["x", "_", "S", ""])] = json.loads(json.dumps(value))
        elif operation < 0.78 and isinstance(parent, dict):
            parent[rng.choice(["unknown", "type", "name", "rate", "sends", "status", "retryAfter"])] = (
                hostile_value(rng, value, donors))
        elif operation < 0.85:
            # Deep nesting, written as text (Python's own recursion would not hold it).
            depth = rng.choice([10, 100, 600, 5000])
            sentinel = "\u0000deep\u0000"
            document = put(document, path, sentinel)
            inner = json.dumps(value)
            opener, closer = ("[", "]") if rng.random() < 0.5 else ('{"a":', "}")
            return json.dumps(document).replace(json.dumps(sentinel), opener * depth + inner + closer * depth, 1)
        elif operation < 0.92 and isinstance(parent, list):
            parent.insert(rng.randrange(len(parent) + 1), json.loads(json.dumps(rng.choice(donors))))
        else:
            # A key given twice: only text can say it.
            text = json.dumps(document)
            if isinstance(parent, dict) and isinstance(path[-1], str):
                key = json.dumps(path[-1])
                where = text.find(key + ":")
                if where >= 0:
                    text = text[:where] + key + ": " + json.dumps(hostile_value(rng, value, donors)) + ", " + text[where:]
            break
    return text if text is not None else json.dumps(document, ensure_ascii=rng.random() < 0.5)


def mutate_csv(rng, text):
    lines = text.split("\n")
    for _ in range(rng.choice([1, 1, 2, 4])):
        operation = rng.random()
        if len(lines) < 2:
            lines.append("x")
        row = rng.randrange(len(lines))
        fields = lines[row].split(",")
        if operation < 0.5:
            column = rng.randrange(len(fields))
            fields[column] = rng.choice(
                HOSTILE_STRINGS + ["-1", "1.5", "NaN", "1e308", "-0", '"', '"a,b"', "\r"] + [str(rng.choice(HOSTILE_NUMBERS))])
            lines[row] = ",".join(fields)
        elif operation < 0.65:
            del lines[row]
        elif operation < 0.8:
            lines.insert(row, lines[rng.randrange(len(lines))])
        elif operation < 0.9:
            lines[row] = ",".join(fields[: rng.randrange(len(fields) + 1)])
        else:
            lines[row] = lines[row] + "," + rng.choice(HOSTILE_STRINGS)
    return "\n".join(lines)


def mutate_bytes(rng, data):
    data = bytearray(data)
    operation = rng.random()
    if operation < 0.4 and data:
        for _ in range(rng.choice([1, 1, 2, 8])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif operation < 0.6:
        data = data[: rng.randrange(len(data) + 1)]
    elif operation < 0.8 and data:
        start = rng.randrange(len(data))
        data[start:start] = data[rng.randrange(len(data)):][: rng.randrange(1, 64)]
    else:
        for _ in range(rng.choice([1, 4])):
            if len(data) >= 8:
                at = rng.randrange(len(data) - 7)
                data[at : at + 8] = rng.choice([b"\xff" * 8, b"\x00" * 8, b"\x7f\xf8" + b"\x00" * 6])
    return bytes(data)


def main():
    kind, seed, count, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    files = sys.argv[5:]
    if kind not in ("json", "csv", "bytes") or not files or not 1 <= count <= 1_000_000:
        sys.exit("usage: mutate.py json|csv|bytes SEED COUNT(1-1000000) OUT_DIR FILE...")
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    sources = []
    for name in files:
        with open(name, "rb") as handle:
            sources.append((os.path.basename(name), handle.read()))
    for number in range(count):
        name, raw = rng.choice(sources)
        if kind == "json":
            result = mutate_json(rng, json.loads(raw)).encode("utf-8", "surrogatepass")
        elif kind == "csv":
            result = mutate_csv(rng, raw.decode("utf-8")).encode("utf-8")
        else:
            result = mutate_bytes(rng, raw)
        with open(os.path.join(out, f"{number}-{name}"), "wb") as handle:
            handle.write(result)


if __name__ == "__main__":
    main()
