#!/usr/bin/env python3
"""The manifest tells the truth: Package.swift declares exactly the modules the code imports.

For every target of the package (Sources/*, Tests/*, the executables), the set of modules its Swift files
import must equal the set of dependencies Package.swift declares for it:

- imports: every `import` declaration, whatever its attributes and modifiers (`@testable`, `@_exported`,
  `@preconcurrency`, `@_spi(…)`, `@_implementationOnly`, `public`/`package`/`internal` …) and kind
  (`import struct X.Y` counts as X). Comments and string literals are skipped; imports inside `#if` count.
  System modules (SYSTEM_MODULES below: Foundation, Glibc, Testing, …) are ignored.
- declarations: the target's dependencies as `swift package dump-package` gives them (about a second,
  offline, in a scratch folder of its own so that a running build's lock does not block it): a target by
  name is that module; a product is mapped to the modules it provides by PRODUCTS below. A product missing
  from PRODUCTS is an error (add it there after reading its Package.swift), never a guess.

Transitive availability does not count: a module a target imports must be its own direct dependency,
even when another dependency brings it along or re-exports it (`@_exported import`).

Output: one line per problem,
    undeclared: TARGET imports MODULE (Sources/X/File.swift:LINE)
    unused: TARGET declares MODULE but no file imports it
then a summary line. Exit status 0 when the manifest and the code agree, 1 on any problem, 2 when the
check itself cannot run (dump-package fails, unknown product).

Usage:  python3 tools/manifest/check.py [--package-path DIR]      (from any directory; standard library only)
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Modules of the toolchain and the operating system: never declared in Package.swift.
SYSTEM_MODULES = {
    "Swift", "_Concurrency", "_StringProcessing", "RegexBuilder", "Observation", "Distributed",
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "CoreFoundation", "Dispatch", "Synchronization",
    "Glibc", "Musl", "Darwin", "Android", "Bionic", "WASILibc", "WinSDK", "ucrt", "os",
    "Testing", "XCTest",
}

# (package identity as written in `.product(name:package:)`, lowercased; product name) → the modules the
# product provides (its `targets:` in that package's Package.swift).
PRODUCTS = {
    ("swift-argument-parser", "ArgumentParser"): {"ArgumentParser"},
    ("swift-log", "Logging"): {"Logging"},
    ("swift-collections", "DequeModule"): {"DequeModule"},
    ("zipfoundation", "ZIPFoundation"): {"ZIPFoundation"},
    ("grdb.swift", "GRDB"): {"GRDB"},
    ("postgres-nio", "PostgresNIO"): {"PostgresNIO"},
    ("swift-nio", "NIOCore"): {"NIOCore"},
    ("swift-nio", "NIOPosix"): {"NIOPosix"},
    ("swift-nio", "NIOConcurrencyHelpers"): {"NIOConcurrencyHelpers"},
    ("swift-nio", "NIOEmbedded"): {"NIOEmbedded"},
    ("swift-nio", "NIOHTTP1"): {"NIOHTTP1"},
    ("swift-nio", "NIOWebSocket"): {"NIOWebSocket"},
    ("swift-nio-extras", "NIOHTTPTypes"): {"NIOHTTPTypes"},
    ("swift-service-lifecycle", "ServiceLifecycle"): {"ServiceLifecycle"},
    ("hummingbird", "Hummingbird"): {"Hummingbird"},
    ("hummingbird-websocket", "HummingbirdWebSocket"): {"HummingbirdWebSocket"},
}

IMPORT = re.compile(
    r"(?:^|;)[ \t]*"
    r"(?:@[A-Za-z_]\w*(?:\([^)\n]*\))?\s+)*"                                 # @testable, @_spi(X), …
    r"(?:(?:public|package|internal|fileprivate|private|open)\s+)?"
    r"import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func|actor|macro)\s+)?"
    r"([A-Za-z_]\w*)",
    re.M,
)


class CheckError(Exception):
    pass


def blank_comments_and_strings(src):
    """`src` with comments and string literal contents replaced by spaces (newlines kept, so that line
    numbers hold). Handles nested block comments, multi-line and raw strings and interpolation."""
    out = list(src)
    n = len(src)
    i = 0
    # Stack of frames: ("code", paren depth or None at top level) or ("str", delimiter, hashes).
    stack = [("code", None)]

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    string_start = re.compile(r'(#*)("""|")')
    while i < n:
        frame = stack[-1]
        if frame[0] == "code":
            c = src[i]
            if src.startswith("//", i):
                j = src.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
            elif src.startswith("/*", i):
                depth, j = 1, i + 2
                while j < n and depth:
                    if src.startswith("/*", j):
                        depth, j = depth + 1, j + 2
                    elif src.startswith("*/", j):
                        depth, j = depth - 1, j + 2
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif c in '#"' and (m := string_start.match(src, i)):
                stack.append(("str", m.group(2), len(m.group(1))))
                i = m.end()
            elif c == "(" and frame[1] is not None:
                stack[-1] = ("code", frame[1] + 1)
                i += 1
            elif c == ")" and frame[1] is not None:
                if frame[1] == 1:
                    stack.pop()  # end of an interpolation: back in the string
                else:
                    stack[-1] = ("code", frame[1] - 1)
                i += 1
            else:
                i += 1
        else:
            _, delim, hashes = frame
            end = delim + "#" * hashes
            escape = "\\" + "#" * hashes
            if src.startswith(end, i):
                stack.pop()
                i += len(end)
            elif src.startswith(escape, i):
                j = i + len(escape)
                if j < n and src[j] == "(":
                    blank(i, j)
                    stack.append(("code", 1))
                    i = j + 1
                else:
                    blank(i, min(j + 1, n))
                    i = j + 1
            else:
                if src[i] != "\n":
                    out[i] = " "
                i += 1
    return "".join(out)


def imports_of(path):
    """[(module, line)] of the import declarations of one Swift file."""
    with open(path, encoding="utf-8") as f:
        code = blank_comments_and_strings(f.read())
    found = []
    for m in IMPORT.finditer(code):
        line = code.count("\n", 0, m.start(1)) + 1
        found.append((m.group(1), line))
    return found


def dump_package(package_path):
    swift = shutil.which("swift") or "/opt/swift/usr/bin/swift"
    # A scratch folder of its own: the package's .build is locked while a build runs there.
    try:
        with tempfile.TemporaryDirectory(prefix="manifest-check-") as scratch:
            result = subprocess.run(
                [swift, "package", "--package-path", package_path, "--scratch-path", scratch, "dump-package"],
                capture_output=True, text=True, timeout=60,
            )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CheckError(f"cannot run `swift package dump-package`: {e}")
    if result.returncode != 0:
        raise CheckError(f"`swift package dump-package` failed:\n{result.stderr.strip()}")
    return json.loads(result.stdout)


def target_dir(package_path, target):
    if target.get("path"):
        return os.path.join(package_path, target["path"])
    roots = ["Tests"] if target["type"] == "test" else ["Sources", "Source", "src", "srcs"]
    for root in roots:
        candidate = os.path.join(package_path, root, target["name"])
        if os.path.isdir(candidate):
            return candidate
    raise CheckError(f"no folder for target {target['name']} (looked in {', '.join(roots)})")


def swift_files(package_path, target):
    """The target's Swift sources: its folder (or `sources:`) minus `exclude:` and resource folders."""
    base = target_dir(package_path, target)
    skipped = [os.path.normpath(os.path.join(base, p)) for p in target.get("exclude", [])]
    skipped += [os.path.normpath(os.path.join(base, r["path"])) for r in target.get("resources", [])]
    roots = [os.path.join(base, s) for s in target["sources"]] if target.get("sources") else [base]

    def kept(p):
        p = os.path.normpath(p)
        return not any(p == s or p.startswith(s + os.sep) for s in skipped)

    files = []
    for root in roots:
        if os.path.isfile(root):
            if root.endswith(".swift") and kept(root):
                files.append(root)
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if kept(os.path.join(dirpath, d)))
            files += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".swift") and kept(os.path.join(dirpath, f))]
    return files


def declared_modules(target, local_targets):
    """{module: description of the dependency that declares it}."""
    modules = {}
    for dep in target.get("dependencies", []):
        (kind, value), = dep.items()
        if kind in ("byName", "target") and value[0] in local_targets:
            modules[value[0]] = value[0]
            continue
        if kind == "product":
            name, package = value[0], (value[1] or "")
        elif kind == "byName":
            name, package = value[0], ""  # a product named without its package
        else:
            raise CheckError(f"{target['name']}: dependency on unknown target {value[0]}")
        matches = [mods for (pkg, prod), mods in PRODUCTS.items() if prod == name and (not package or pkg == package.lower())]
        if len(matches) != 1:
            raise CheckError(
                f"{target['name']}: unknown product {name!r} of package {package or '?'!r}: add the modules it "
                f"provides to PRODUCTS in tools/manifest/check.py (see its Package.swift's `.library(…, targets:)`)"
            )
        for module in matches[0]:
            modules[module] = f"product {name}"
    return modules


def check(package_path):
    manifest = dump_package(package_path)
    local_targets = {t["name"] for t in manifest["targets"]}
    problems = []
    nfiles = 0
    for target in sorted(manifest["targets"], key=lambda t: t["name"]):
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        name = target["name"]
        declared = declared_modules(target, local_targets)
        imported = {}  # module → first (file, line)
        for path in swift_files(package_path, target):
            nfiles += 1
            for module, line in imports_of(path):
                if module in SYSTEM_MODULES or module == name:
                    continue
                imported.setdefault(module, (os.path.relpath(path, package_path), line))
        for module in sorted(set(imported) - set(declared)):
            path, line = imported[module]
            problems.append(f"undeclared: {name} imports {module} ({path}:{line})")
        for module in sorted(set(declared) - set(imported)):
            via = "" if declared[module] == module else f" (through {declared[module]})"
            problems.append(f"unused: {name} declares {module}{via} but no file imports it")
    return problems, len(manifest["targets"]), nfiles


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\nUsage:")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package-path", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."),
                        help="the package's folder (default: this repository)")
    args = parser.parse_args()
    package_path = os.path.normpath(args.package_path)
    start = time.monotonic()
    try:
        problems, ntargets, nfiles = check(package_path)
    except CheckError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    elapsed = time.monotonic() - start
    if problems:
        print(f"FAIL: {len(problems)} difference(s) between Package.swift and the imports "
              f"({ntargets} targets, {nfiles} files, {elapsed:.1f} s)")
        return 1
    print(f"OK: Package.swift declares exactly what the code imports ({ntargets} targets, {nfiles} files, {elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
