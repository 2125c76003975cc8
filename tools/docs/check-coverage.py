#!/usr/bin/env python3
"""Fails when a public symbol declared in a module's sources has no doc comment of its own.

Reads the symbol graphs that `swift package generate-documentation` extracted (under
.build/<triple>/extracted-symbols/<package>/<Module>/) for each module named on the command line.
A symbol counts when it has a source location in this repository (symbols the compiler synthesises
and default implementations inherited from the standard library or Foundation have none). It is
documented when a `///` comment sits on the declaration itself: a comment inherited from an
overridden Foundation method or a protocol requirement does not count, because DocC does not show
those for another module's symbols.

Usage: tools/docs/check-coverage.py [--build-dir .build] MODULE...
"""
import glob
import json
import os
import sys


def own_comment(symbol):
    comment, location = symbol.get("docComment"), symbol.get("location")
    if not comment or not location or comment.get("uri") != location.get("uri"):
        return False
    ends = [line["range"]["end"]["line"] for line in comment.get("lines", []) if "range" in line]
    if not ends:
        return False
    # The comment ends just above the declaration (attribute lines such as @available may sit between).
    return 0 < location["position"]["line"] - max(ends) <= 4


def main(argv):
    build = ".build"
    if len(argv) > 2 and argv[1] == "--build-dir":
        build, argv = argv[2], argv[2:]
    modules = argv[1:]
    if not modules:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    failed = False
    for module in modules:
        folders = glob.glob(os.path.join(build, "*", "extracted-symbols", "*", module))
        if not folders:
            print(f"{module}: no symbol graph under {build}/*/extracted-symbols; run generate-documentation first",
                  file=sys.stderr)
            return 2
        folder = max(folders, key=os.path.getmtime)
        checked, missing = 0, []
        for path in sorted(glob.glob(os.path.join(folder, "*.symbols.json"))):
            with open(path, encoding="utf-8") as f:
                graph = json.load(f)
            for symbol in graph["symbols"]:
                if "location" not in symbol:
                    continue
                checked += 1
                if not own_comment(symbol):
                    location = symbol["location"]
                    file = location["uri"].removeprefix("file://")
                    file = os.path.relpath(file) if file.startswith("/") else file
                    missing.append(f"{file}:{location['position']['line'] + 1}: error: "
                                   f"{symbol['kind']['displayName'].lower()} {'.'.join(symbol['pathComponents'])} "
                                   "has no doc comment")
        print(f"{module}: {checked - len(missing)} of {checked} public declarations documented")
        if missing:
            failed = True
            print(f"{module}: {len(missing)} public declaration(s) without a doc comment of their own:")
            print("\n".join(sorted(set(missing))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
