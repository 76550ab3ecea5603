#!/usr/bin/env python3
"""Checks that each layered target's folders use only the folders below them.

A folder "uses" another when one of its files names a type, a protocol, a type alias or a
top-level function declared in the other, or calls (`.name`) a member an extension in the other
declares, when no type at or below the user, and nothing in another target, has a member of that
name (comments and string literals are not read). The order of
each target's folders, top to bottom, is written below and in docs/architecture.md; folders on one
line are peers and may not use each other either. Exit 0 when the order holds, 1 with every
offending reference (file:line, the name, where it is declared) when it does not, 2 when a folder
exists that the order does not place.

    python3 scripts/check-layers.py            # check
    python3 scripts/check-layers.py --graph    # print who uses whom
    python3 scripts/check-layers.py --self-test  # the check catches a planted upward use

It also checks that no oracle leans on the SDK it judges (docs/architecture.md, "Oracles"):
FakeFrontmail and LoadKit may use the SDK's types to drive it, but never name the SDK's logic that
decides a delay, a key, a retry or a reading (its Retry-After parser, its backoff, its key maker,
its budget, its response reading, its date arithmetic): the expected value of a verdict is
computed by the suite's own code.

And that no metric key is spelled as a string where code records or reads one: keys are declared
once, in Sources/LoadKit/Metrics/MetricKey.swift, and everything else names them.
"""
import os
import re
import sys
import tempfile

# Top to bottom. A tuple is a row of peers.
LAYERS = {
    "Sources/FakeFrontmail": ["Harness", "Server", "Core", "Ledger", "Plan", "Input"],
    "Sources/LoadKit": [
        "Certify",
        ("Tune", "Explore"),
        "ScaleOut",
        "Run",
        "Report",
        "Gate",
        "Experiments",
        "Judging",
        "Probes",
        "Results",
        "Load",
        "Input",
        "Metrics",
        "Stats",
    ],
}

# The SDK's deciding logic, by the names FakeFrontmail and LoadKit must not use.
ORACLE_TARGETS = ["Sources/FakeFrontmail", "Sources/LoadKit"]
SDK_DECISIONS = {
    "RetryAfter": "the SDK's Retry-After parser",
    "backoffDelay": "the SDK's jittered backoff",
    "backoffCap": "the SDK's backoff cap",
    "unitDraw": "the SDK's jitter draw",
    "makeIdempotencyKey": "the SDK's key maker",
    "keyWords": "the SDK's key bits",
    "randomWords": "the SDK's random source",
    "EntropyPool": "the SDK's random source",
    "RetryBucket": "the SDK's retry budget",
    "isRetryable": "the SDK's retry decision",
    "responseError": "the SDK's reading of an error answer",
    "parseSendResult": "the SDK's reading of a send's answer",
    "ISO8601": "the SDK's date arithmetic",
    "docsURL": "the SDK's documentation links",
    "JSONReader": "the SDK's JSON reader (the fake reads bodies with JSONScanner)",
    "JSONWriter": "the SDK's JSON writer (the fake writes answers with JSONBytes)",
}

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private|final|nonisolated|indirect)\s+)*"
    r"(?:struct|enum|class|actor|protocol|typealias|func)\s+([A-Za-z_][A-Za-z0-9_]*)"
)
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
EXTENSION = re.compile(r"^(?:(?:public|package|internal|fileprivate|private)\s+)*extension\s")
# A member one level inside a type or an extension: what `.name` may call.
MEMBER = re.compile(
    r"^    (?:@\w+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private|final|nonisolated|static|class|mutating|override|lazy|convenience|required)\s+)*"
    r"(?:func|var|let|case|subscript|init)\s*([A-Za-z_][A-Za-z0-9_]*)?"
)
MEMBER_USE = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")


def strip_comments_and_strings(text):
    """The source with comments and string literals blanked, line breaks kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            # Interpolations name things too: keep what is inside \( ).
            inner = text[i + 1 : j]
            out.append(" ".join(re.findall(r"\\\((.*?)\)", inner)))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def folder_of(root, path):
    rel = os.path.relpath(path, root)
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else "."


def member_names(top):
    """Every member name declared anywhere in the package's sources, with how often."""
    counts = {}
    for dirpath, _, names in os.walk(os.path.join(top, "Sources")):
        for name in names:
            if name.endswith(".swift"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as handle:
                    for line in strip_comments_and_strings(handle.read()).split("\n"):
                        member = MEMBER.match(line)
                        if member and member.group(1):
                            counts[member.group(1)] = counts.get(member.group(1), 0) + 1
    return counts


# Members of the standard library and Foundation that an extension of ours may share a name with:
# a call of one of these is not evidence of an upward call.
LIBRARY_MEMBERS = {
    "append", "close", "contains", "count", "decode", "description", "encode", "filter", "first", "index",
    "insert", "last", "map", "merge", "read", "reduce", "remove", "run", "sorted", "start", "stop", "value",
    "write", "reject",
}


def analyse(root, order, elsewhere=None):
    rank = {}
    for position, row in enumerate(order):
        for name in row if isinstance(row, tuple) else (row,):
            rank[name] = position
    files = []
    for dirpath, _, names in os.walk(root):
        files += [os.path.join(dirpath, n) for n in names if n.endswith(".swift")]
    unplaced = sorted({folder_of(root, f) for f in files} - set(rank))
    declared = {}
    # Members declared in an extension (what `.name` reaches in another folder), and every
    # member of any type (a name declared at or below the user is no evidence of an upward call).
    extended = {}
    members = {}
    member_lines = {}
    sources = {}
    for path in files:
        with open(path, encoding="utf-8") as handle:
            text = strip_comments_and_strings(handle.read())
        sources[path] = text
        folder = folder_of(root, path)
        in_extension = False
        for line in text.split("\n"):
            # Only top-level declarations (column 0) name what a folder offers.
            if not line[:1].isspace() and line.strip():
                in_extension = bool(EXTENSION.match(line))
            match = DECLARATION.match(line)
            if match and not line[:1].isspace():
                declared.setdefault(match.group(1), set()).add(folder)
            member = MEMBER.match(line)
            if member and member.group(1):
                members.setdefault(member.group(1), set()).add(folder)
                member_lines[member.group(1)] = member_lines.get(member.group(1), 0) + 1
                if in_extension:
                    extended.setdefault(member.group(1), set()).add(folder)
    uses = []
    for path, text in sources.items():
        folder = folder_of(root, path)
        for number, line in enumerate(text.split("\n"), 1):
            for name in set(IDENTIFIER.findall(line)):
                homes = declared.get(name, set())
                if not homes or folder in homes:
                    continue
                for home in homes:
                    uses.append((folder, home, name, os.path.relpath(path), number))
            for name in set(MEMBER_USE.findall(line)) - set(declared) - LIBRARY_MEMBERS:
                homes = extended.get(name, set())
                if not homes or folder in homes:
                    continue
                # Declared as a member at or below this folder, or in another target: the call may
                # be that one.
                if any(rank.get(other, -1) >= rank.get(folder, -1) for other in members.get(name, set())):
                    continue
                if elsewhere is not None and elsewhere.get(name, 0) > member_lines.get(name, 0):
                    continue
                for home in homes:
                    uses.append((folder, home, name, os.path.relpath(path), number))
    return rank, unplaced, uses


def sdk_decisions_used(root):
    """(path, line, name) of every use of the SDK's deciding logic below root."""
    found = []
    for dirpath, _, names in os.walk(root):
        for name in sorted(n for n in names if n.endswith(".swift")):
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as handle:
                text = strip_comments_and_strings(handle.read())
            for number, line in enumerate(text.split("\n"), 1):
                for word in sorted(set(IDENTIFIER.findall(line)) & set(SDK_DECISIONS)):
                    found.append((os.path.relpath(path), number, word))
    return found


# Metric keys are declared once (Sources/LoadKit/Metrics/MetricKey.swift) and used by name in code:
# a key spelled as a string where code records or reads one is a contract the compiler cannot see.
KEY_HOME = "Sources/LoadKit/Metrics/MetricKey.swift"
KEY_HOMES = {KEY_HOME, "Sources/LoadKit/Metrics/MetricKey+Families.swift"}
KEY_TARGETS = ["Sources", "Benchmarks"]
SPELLED_KEYS = [
    (re.compile(r"\bMetricKey\(\s*\""), "makes a metric key outside " + KEY_HOME),
    (re.compile(r"\brecord\(\s*\""), "records a metric by a string; use its MetricKey"),
    (re.compile(r"\bmetrics\[\s*\""), "reads a metric by a string; use its MetricKey"),
    (re.compile(r"\bvalue\(\s*named:\s*\""), "reads a metric by a string; use its MetricKey"),
]


def spelled_keys(root, top):
    """(path, line, reason) of every metric key spelled as a string in code below root."""
    found = []
    for dirpath, _, names in os.walk(root):
        for name in sorted(n for n in names if n.endswith(".swift")):
            path = os.path.join(dirpath, name)
            if os.path.relpath(path, top) in KEY_HOMES:
                continue
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().split("\n")
            for number, line in enumerate(lines, 1):
                code = line.split("//", 1)[0]
                for pattern, reason in SPELLED_KEYS:
                    if pattern.search(code):
                        found.append((os.path.relpath(path, top), number, reason))
    return found


def self_test():
    """A planted upward use is caught; names in comments, strings and own-folder uses are not."""
    files = {
        "Top/Runner.swift": "struct Runner {\n    let item = Item()\n}\n",
        "Bottom/Item.swift": "public struct Item {}\nfunc helper() -> Int { 1 }\n",
        "Bottom/Quiet.swift": '// Runner is named in a comment\nlet text = "Runner"\nlet n = helper()\n',
        "Bottom/Upward.swift": "extension Item {\n    var runner: Runner { Runner() }\n}\n",
        "Top/Item+Top.swift": "extension Item {\n    func judged() -> Int { 2 }\n}\n",
        "Bottom/Caller.swift": "func call(_ item: Item) -> Int {\n    item.judged()\n}\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        rank, unplaced, uses = analyse(root, ["Top", "Bottom"])
        against = sorted((u[0], u[1], u[2], os.path.basename(u[3]), u[4]) for u in uses if rank[u[0]] >= rank[u[1]])
        expected = [
            ("Bottom", "Top", "Runner", "Upward.swift", 2),
            ("Bottom", "Top", "judged", "Caller.swift", 2),
        ]
        if unplaced or against != expected:
            print(f"self-test failed: unplaced {unplaced}, upward uses {against}, expected {expected}", file=sys.stderr)
            sys.exit(1)
        _, unplaced, _ = analyse(root, ["Top"])
        if unplaced != ["Bottom"]:
            print(f"self-test failed: an unplaced folder went unnoticed ({unplaced})", file=sys.stderr)
            sys.exit(1)
    with tempfile.TemporaryDirectory() as root:
        planted = {
            "Probe.swift": "let wait = RetryAfter.parse(header, now: now)\n",
            "Quiet.swift": '// RetryAfter.parse is not called here\nlet text = "backoffDelay"\n',
        }
        for name, text in planted.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        found = [(os.path.basename(path), number, name) for path, number, name in sdk_decisions_used(root)]
        if found != [("Probe.swift", 1, "RetryAfter")]:
            print(f"self-test failed: a planted use of the SDK's parser gave {found}", file=sys.stderr)
            sys.exit(1)
    with tempfile.TemporaryDirectory() as root:
        planted = {
            "Probe.swift": 'recorder.record("send.ok", 1)\nlet n = measurement.metrics["send.sends"]\n'
            + 'let p = scenario.value(named: "send.latency.p99")\n',
            "Quiet.swift": '// recorder.record("send.ok", 1) in a comment\nrecorder.record(.sendOk, 1)\n',
        }
        for name, text in planted.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        found = [(path, number) for path, number, _ in spelled_keys(root, root)]
        if found != [("Probe.swift", 1), ("Probe.swift", 2), ("Probe.swift", 3)]:
            print(f"self-test failed: planted metric keys spelled as strings gave {found}", file=sys.stderr)
            sys.exit(1)
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "Bucket.swift"), "w", encoding="utf-8") as handle:
            handle.write("let ok = 1\n    package var budgetDefect: Int?\n")
        found = [(os.path.basename(path), number) for path, number, _ in sdk_mutant_words(root)]
        if found != [("Bucket.swift", 2)]:
            print(f"self-test failed: a planted defect switch in the SDK gave {found}", file=sys.stderr)
            sys.exit(1)
    print(
        "layers self-test: a planted defect switch in the SDK, a planted upward use (a type, an extension member), a planted oracle calling the "
        "SDK's parser and planted metric keys spelled as strings are caught; comments and strings are not read"
    )


# The SDK ships no code whose only use is to break it on purpose: the suite's deliberately broken
# clients live in Sources/FrontmailMutants, built on the SDK's seams.
SDK_TARGET = "Sources/Frontmail"
SDK_MUTANT_WORDS = re.compile(r"defect|mutant|broken on purpose|deliberately (?:wrong|broken)", re.IGNORECASE)


def sdk_mutant_words(root):
    """(path, line number, text) of every line of the SDK that speaks of breaking it on purpose."""
    found = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle, 1):
                    if SDK_MUTANT_WORDS.search(line):
                        found.append((path, number, line.strip()))
    return found


def main():
    if "--self-test" in sys.argv:
        self_test()
        return
    graph = "--graph" in sys.argv
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    failed = 0
    elsewhere = member_names(top)
    for target, order in LAYERS.items():
        root = os.path.join(top, target)
        rank, unplaced, uses = analyse(root, order, elsewhere)
        if unplaced:
            print(f"{target}: folders the order does not place: {', '.join(unplaced)}", file=sys.stderr)
            failed = max(failed, 2)
        if graph:
            pairs = sorted({(user, home) for user, home, *_ in uses})
            print(f"{target}:")
            for user, home in pairs:
                mark = "" if rank.get(user, -1) < rank.get(home, -1) else "   <- against the order"
                print(f"  {user} -> {home}{mark}")
            continue
        for user, home, name, path, number in sorted(uses, key=lambda u: (u[3], u[4], u[2])):
            if user in rank and home in rank and rank[user] >= rank[home]:
                print(f"{path}:{number}: {user}/ uses {name} from {home}/, which is not below it", file=sys.stderr)
                failed = max(failed, 1)
    for target in ORACLE_TARGETS:
        for path, number, name in sdk_decisions_used(os.path.join(top, target)):
            print(
                f"{path}:{number}: uses {name} ({SDK_DECISIONS[name]}): an oracle computes what it expects "
                "with its own code, never the SDK's",
                file=sys.stderr,
            )
            failed = max(failed, 1)
    for path, number, text in sdk_mutant_words(os.path.join(top, SDK_TARGET)):
        print(
            f"{path}:{number}: the SDK speaks of breaking itself on purpose ({text[:80]}): deliberately "
            "broken clients belong in Sources/FrontmailMutants",
            file=sys.stderr,
        )
        failed = max(failed, 1)
    for target in KEY_TARGETS:
        for path, number, reason in spelled_keys(os.path.join(top, target), top):
            print(f"{path}:{number}: {reason}", file=sys.stderr)
            failed = max(failed, 1)
    if failed == 0 and not graph:
        print(
            "layers: every folder uses only folders below it; no oracle uses the SDK's deciding logic; "
            "no metric key is spelled as a string in code; the SDK holds no deliberately broken code"
        )
    sys.exit(failed)


if __name__ == "__main__":
    main()
