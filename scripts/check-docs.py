#!/usr/bin/env python3
"""Every file and folder docs/architecture.md names exists.

A name in backticks that looks like a path (it ends in .swift, .md, .sh, .py, .json or .c, or it is
`Folder/`) must be a file or folder of the repository: a relative path that exists from the root, or
the tail of one path under Sources/, Tests/, Benchmarks/, scripts/, docs/ or Fuzz/. Module rows of the
table (`Sources/X`) must exist as folders. Exits 1 naming each name that matches nothing.

usage: scripts/check-docs.py [--self-test]
"""
import os
import re
import sys
import tempfile

NAME = re.compile(r"`([A-Za-z0-9_+./-]+(?:\.(?:swift|md|sh|py|json|c|h)|/))`")
ROOTS = ["Sources", "Tests", "Benchmarks", "scripts", "docs", "Fuzz", "certify", "scenarios", "tune", ".ci"]


def paths(top):
    """Every file and folder under the roots, relative to `top`, folders with a trailing slash."""
    found = set()
    for root in ROOTS:
        for folder, folders, files in os.walk(os.path.join(top, root)):
            relative = os.path.relpath(folder, top)
            found.add(relative + "/")
            for name in files:
                found.add(os.path.join(relative, name))
    return found


def missing(top, document):
    """(line number, name) of every path-like name in `document` that no path matches."""
    known = paths(top)
    result = []
    with open(document, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            for name in NAME.findall(line):
                if name.startswith(("http", "<")) or "<" in name:
                    continue
                if os.path.exists(os.path.join(top, name)):
                    continue
                if any(path == name or path.endswith("/" + name) for path in known):
                    continue
                result.append((number, name))
    return result


def self_test():
    with tempfile.TemporaryDirectory() as top:
        os.makedirs(os.path.join(top, "Sources", "Kit", "Room"))
        open(os.path.join(top, "Sources", "Kit", "Room", "Thing.swift"), "w").close()
        document = os.path.join(top, "doc.md")
        with open(document, "w", encoding="utf-8") as handle:
            handle.write("`Thing.swift` and `Room/` and `Kit/Room/Thing.swift`\n`Gone.swift` and `Lost/`\n")
        found = missing(top, document)
        if found != [(2, "Gone.swift"), (2, "Lost/")]:
            print(f"self-test failed: planted missing names gave {found}", file=sys.stderr)
            sys.exit(1)
    print("docs self-test: a planted file and folder that do not exist are caught; existing ones by tail pass")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    document = os.path.join(top, "docs", "architecture.md")
    found = missing(top, document)
    for number, name in found:
        print(f"docs/architecture.md:{number}: names {name}, which is not in the repository", file=sys.stderr)
    if found:
        sys.exit(1)
    print("docs: every file and folder docs/architecture.md names exists")


if __name__ == "__main__":
    main()
