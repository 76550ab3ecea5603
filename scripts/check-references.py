#!/usr/bin/env python3
"""The folder order and the oracle rule, checked from the compiler's own view.

scripts/check-layers.py reads the sources as text; this reads what the type checker resolved.
`swiftc -dump-ast` prints, for every reference in a module (a call, a member, a type, a default
argument), the declaration it resolved to and the file and line that declares it. So:

- every reference from a folder of FakeFrontmail or LoadKit must resolve to a declaration in the
  same folder or one below it (docs/architecture.md's order), however it is spelled: a method of an
  extension called with an implicit `self`, a member whose name other folders also declare, a
  static member reached through a type alias;
- no reference from FakeFrontmail, Simulator or LoadKit (the oracles and what they stand on) may
  resolve to one of the SDK's deciding declarations (its Retry-After parser, its backoff, its keys,
  its retry decision, its JSON reader and writer, ...), whatever path reaches it.

Run after `swift build` (it reads the built modules the sources import). Exits 1 naming each
reference against the rules, 2 when a module does not type-check.

usage: scripts/check-references.py [--self-test] [--build-path .build/debug]
"""
import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The folder orders and the SDK's deciding names are check-layers.py's: one list of each.
_spec = importlib.util.spec_from_file_location("check_layers", os.path.join(TOP, "scripts", "check-layers.py"))
check_layers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_layers)
LAYERS = check_layers.LAYERS
SDK_DECISIONS = check_layers.SDK_DECISIONS

MODULES = {"FakeFrontmail": "Sources/FakeFrontmail", "Simulator": "Sources/Simulator", "LoadKit": "Sources/LoadKit"}
ORACLES = set(MODULES)

SOURCE_FILE = re.compile(r'^\s*\(source_file "([^"]+)"')
REFERENCE = re.compile(r'\b(?:decl|bind|default_args_owner)="([^"@]+)@([^":]+):(\d+):\d+"')
LOCATION = re.compile(r"\blocation=([^ :]+):(\d+):\d+")
SDK_FOLDER = "Sources/Frontmail/"


def relative(path):
    """A path the compiler printed (relative to where it ran, or absolute), relative to the top."""
    return os.path.relpath(path, TOP) if os.path.isabs(path) else path


def room(path, target):
    """The folder of `target` that holds `path` (its first folder below the target), or None."""
    prefix = target.rstrip("/") + "/"
    if not path.startswith(prefix):
        return None
    parts = path[len(prefix):].split("/")
    return parts[0] if len(parts) > 1 else None


def decision(name):
    """The SDK's deciding name `name` (a declaration's qualified name) resolves to, or None."""
    words = set(re.split(r"[.( :)\[\]<>,]+", name))
    for decided in SDK_DECISIONS:
        if decided in words:
            return decided
    return None


def shown(name):
    """A declaration's qualified name as a reader writes it (`Low.helper()`)."""
    return name.split("(file).")[-1].replace(" extension.", ".")


def analyse(lines, module, target, order):
    """(path, line, message) of every reference in one module's AST against the rules."""
    # Top to bottom, a tuple a row of peers (check-layers.py's form): a folder may use only a
    # folder at a higher position.
    rank = {}
    for position, row in enumerate(order or []):
        for folder in row if isinstance(row, tuple) else (row,):
            rank[folder] = position
    found = set()
    current = None
    for line in lines:
        opened = SOURCE_FILE.match(line)
        if opened:
            current = relative(opened.group(1))
            continue
        if current is None or "=" not in line:
            continue
        at = LOCATION.search(line)
        number = int(at.group(2)) if at else 0
        for name, home_path, home_line in REFERENCE.findall(line):
            home = relative(home_path)
            if module in ORACLES and home.startswith(SDK_FOLDER):
                decided = decision(name)
                if decided:
                    found.add(
                        (current, number, f"resolves to {SDK_DECISIONS[decided]} ({shown(name)}, "
                         f"{home}:{home_line}): an oracle never computes with the SDK's deciding code"))
            if not order:
                continue
            user, owner = room(current, target), room(home, target)
            if user is None or owner is None or user == owner or user not in rank or owner not in rank:
                continue
            if rank[user] >= rank[owner]:
                found.add(
                    (current, number, f"{user}/ uses {shown(name)} from {owner}/ ({home}:{home_line}), "
                     "which is not below it"))
    return sorted(found)


def dump(module, sources, build, cwd=TOP, name=None):
    """The module's AST as `swiftc -dump-ast` prints it (the lines), or exits 2 when it does not
    type-check."""
    package = "main"
    manifest = os.path.join(build, "..", "debug.yaml") if build.endswith("debug") else None
    for candidate in [manifest, os.path.join(TOP, ".build", "debug.yaml")]:
        if candidate and os.path.exists(candidate):
            with open(candidate, encoding="utf-8", errors="replace") as handle:
                match = re.search(r'"-package-name","([^"]+)"', handle.read())
            if match:
                package = match.group(1)
                break
    maps = []
    for modulemap in sorted(glob.glob(os.path.join(build, "*.build", "module.modulemap"))):
        maps += ["-Xcc", f"-fmodule-map-file={modulemap}"]
    command = (["swiftc", "-dump-ast", "-swift-version", "6", "-parse-as-library", "-module-name", name or module,
                "-package-name", package, "-I", os.path.join(build, "Modules")] + maps + sources)
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace")
    if result.returncode != 0:
        errors = [line for line in result.stderr.split("\n") if ": error:" in line][:10]
        print(f"references: {module} does not type-check for the AST dump:\n" + "\n".join(errors), file=sys.stderr)
        sys.exit(2)
    # The AST goes to stderr or stdout depending on the compiler's version: read both.
    return (result.stdout + "\n" + result.stderr).split("\n")


def self_test(build):
    """Plants the four violations that a lexer missed and checks each is reported."""
    planted = {
        # A lower folder calls an extension method of a higher one with an implicit self.
        "Sources/LoadKit/Stats/Low.swift": "struct Low {\n    func run() -> Int { helper() }\n}\n",
        "Sources/LoadKit/Report/High.swift": (
            "extension Low {\n    func helper() -> Int { 1 }\n}\n"
            "struct Shared {\n    static func make() -> Int { 2 }\n}\n"),
        # A member name that a folder below also declares: the compiler knows which one is meant.
        "Sources/LoadKit/Metrics/Same.swift": (
            "struct Other {\n    static func make() -> Int { 3 }\n}\n"
            "func useShared() -> Int { Shared.make() }\n"),
        # An SDK decision reached through a type alias.
        "Sources/LoadKit/Probes/Alias.swift": (
            "import Frontmail\ntypealias Reader = JSONReader\n"
            "func read() throws -> FrontmailValue { try Reader.parse(\"1\") }\n"),
    }
    with tempfile.TemporaryDirectory() as root:
        for path, text in planted.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
                handle.write(text)
        lines = dump("LoadKit", sorted(planted), build, cwd=root, name="PlantedLoadKit")
        found = analyse(lines, "LoadKit", "Sources/LoadKit", LAYERS["Sources/LoadKit"])
        # And an SDK decision reached from the simulator, which the lexer did not scan.
        simulator = {"Sources/Simulator/Plant.swift": "import Frontmail\nfunc plant() -> Bool { JSONReader.maxDepth > 0 }\n"}
        for path, text in simulator.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
                handle.write(text)
        found += analyse(
            dump("Simulator", sorted(simulator), build, cwd=root, name="PlantedSimulator"), "Simulator",
            "Sources/Simulator", None)
    wanted = [
        ("Sources/LoadKit/Stats/Low.swift", "Stats/ uses Low.helper()"),
        ("Sources/LoadKit/Metrics/Same.swift", "Metrics/ uses Shared.make()"),
        ("Sources/LoadKit/Probes/Alias.swift", "the SDK's JSON reader"),
        ("Sources/Simulator/Plant.swift", "the SDK's JSON reader"),
    ]
    missed = [want for want in wanted if not any(path == want[0] and want[1] in text for path, _, text in found)]
    if missed:
        print(f"self-test failed: planted violations not reported: {missed}\nreported: {found}", file=sys.stderr)
        sys.exit(1)
    print(
        "references self-test: an extension method called with an implicit self from a lower folder, a member "
        "a lower folder also names, an SDK decision through a type alias and one from the simulator are caught")


def main():
    build = os.path.join(TOP, ".build", "debug")
    if "--build-path" in sys.argv:
        build = os.path.abspath(sys.argv[sys.argv.index("--build-path") + 1])
    if not os.path.isdir(os.path.join(build, "Modules")):
        print(f"references: no built modules in {build}: run swift build first", file=sys.stderr)
        sys.exit(2)
    if "--self-test" in sys.argv:
        self_test(build)
        return
    failed = False
    for module, target in MODULES.items():
        sources = sorted(glob.glob(os.path.join(target, "**", "*.swift"), recursive=True))
        lines = dump(module, sources, build)
        for path, number, message in analyse(lines, module, target, LAYERS.get(target)):
            print(f"{path}:{number}: {message}", file=sys.stderr)
            failed = True
    if failed:
        sys.exit(1)
    print(
        "references: every resolved reference in FakeFrontmail and LoadKit stays in its folder or goes below it; "
        "no reference from the fake, the simulator or LoadKit resolves to the SDK's deciding code")


if __name__ == "__main__":
    main()
