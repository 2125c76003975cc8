#!/usr/bin/env python3
"""Compiles and runs every Swift code block of the pages a newcomer copies from.

Pages: README.md, docs/getting-started.md and the DocC articles of CoreMotion (getting started, porting,
testing). For each page, one throw-away package beside a temporary folder holds its blocks:

- a block with top-level statements is a program: an executable target of its own (`main.swift`), built
  against this repository and run for a few seconds on a simulated walk (COREMOTION_DEVICE=sim:walking-in-hand);
  it must print at least one line and must not crash (a program that runs until stopped is stopped);
- a block with `@Test` functions goes into the page's test target, with the page's blocks that only
  declare types (the "your code" of the page), and the tests run with `Fixtures/walk.cmrec` and
  `Fixtures/walk.zip` (a simulated 66 s walk) in the working folder, as the pages name them;
- a manifest fragment (`.package(`, `.product(`, `.testTarget(`) is checked for what a reader copies: the
  product names exist in Package.swift and the version is this release's.

Usage: tools/docs/check-code-blocks.py [--scratch DIR] [--coremotion PATH]
  --scratch: the build folder shared by the pages' packages (CI: the clients' folder, so that the library is
  compiled once); --coremotion: a built `coremotion` tool (makes the fixture; default .build/debug/coremotion).
Prints PASS/FAIL per block; exits 1 when any block fails.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = [  # the pages a newcomer copies from
    "README.md",
    "docs/getting-started.md",
    "Sources/CoreMotion/CoreMotion.docc/CoreMotion.md",
    "Sources/CoreMotion/CoreMotion.docc/PortingAnIOSApp.md",
    "Sources/CoreMotion/CoreMotion.docc/TestingMotionCode.md",
]
DECLARATION = re.compile(
    r"^(import |@|//|}|\)|$|(public |private |fileprivate |internal |final |open )*(class|struct|enum|actor|protocol|extension|func|let|var) )")
MANIFEST = re.compile(r"^\s*\.(package|product|testTarget|target|executableTarget)\(")
RUN_SECONDS = 4


def blocks(path):
    """(line, text) of every ```swift block of the page."""
    found, current, start = [], None, 0
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if current is None and line.strip() == "```swift":
                current, start = [], number + 1
            elif current is not None and line.strip() == "```":
                found.append((start, "".join(current)))
                current = None
            elif current is not None:
                current.append(line)
    return found


def kind(text):
    lines = [l for l in text.splitlines() if l.strip()]
    if any(MANIFEST.match(l) for l in lines) and not any(l.startswith("import ") for l in lines):
        return "manifest"
    if "@Test" in text:
        return "test"
    top_level = [l for l in lines if not l.startswith((" ", "\t")) and not DECLARATION.match(l)]
    return "program" if top_level else "declarations"


def release_version():
    source = open(os.path.join(ROOT, "Sources/MotionSamples/Version/CoreMotionVersion.swift"), encoding="utf-8").read()
    return re.search(r'static let string = "([^"]+)"', source).group(1)


def check_manifest(text):
    manifest = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read()
    products = set(re.findall(r'\.library\(name: "([^"]+)"', manifest))
    problems = []
    for name in re.findall(r'\.product\(name: "([^"]+)", package: "swift-core-motion"\)', text):
        if name not in products:
            problems.append(f"no product {name} in Package.swift")
    for version in re.findall(r'from: "([^"]+)"', text):
        if version != release_version():
            problems.append(f'from: "{version}" is not this release ({release_version()})')
    return problems


def make_fixtures(folder, coremotion):
    fixtures = os.path.join(folder, "Fixtures")
    os.makedirs(fixtures, exist_ok=True)
    walk = os.path.join(fixtures, "walk.cmrec")
    subprocess.run([coremotion, "simulate", "walking-in-hand", "-o", walk], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with zipfile.ZipFile(os.path.join(fixtures, "walk.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        z.write(walk, "walk.cmrec")


def package_for(page, items, folder):
    name = re.sub(r"[^A-Za-z0-9]", "", os.path.splitext(os.path.basename(page))[0]) or "Page"
    targets, programs = [], []
    for index, (line, text, what) in enumerate(items):
        if what == "program":
            target = f"{name}Line{line}"
            os.makedirs(os.path.join(folder, "Sources", target))
            with open(os.path.join(folder, "Sources", target, "main.swift"), "w", encoding="utf-8") as f:
                f.write(f"// {page}, line {line}\n{text}")
            targets.append(
                f'.executableTarget(name: "{target}", dependencies: [.product(name: "CoreMotion", package: "swift-core-motion")])')
            programs.append((line, target))
    tests = [(line, text) for line, text, what in items if what in ("test", "declarations")]
    has_tests = any(what == "test" for _, _, what in items)
    if has_tests:
        os.makedirs(os.path.join(folder, "Tests", f"{name}Tests"))
        # A block that continues an earlier one (no imports of its own) gets the page's imports, as a reader
        # who pastes it below the earlier block has them.
        imports = sorted({l for _, text in tests for l in text.splitlines() if l.startswith("import ")})
        for line, text in tests:
            own = {l for l in text.splitlines() if l.startswith("import ")}
            header = "".join(i + "\n" for i in imports if i not in own)
            with open(os.path.join(folder, "Tests", f"{name}Tests", f"Line{line}.swift"), "w", encoding="utf-8") as f:
                f.write(f"// {page}, line {line}\nimport Foundation\n{header}{text}")
        targets.append(
            f'.testTarget(name: "{name}Tests", dependencies: [.product(name: "CoreMotion", package: "swift-core-motion"), '
            f'.product(name: "CoreMotionTesting", package: "swift-core-motion")])')
    with open(os.path.join(folder, "Package.swift"), "w", encoding="utf-8") as f:
        f.write("// swift-tools-version:6.0\nimport PackageDescription\n\n"
                f'let package = Package(\n    name: "{name}Blocks",\n'
                f'    dependencies: [.package(name: "swift-core-motion", path: "{ROOT}")],\n'
                "    targets: [\n        " + ",\n        ".join(targets) + "\n    ]\n)\n")
    return programs, has_tests


def run_program(executable, cwd):
    env = dict(os.environ, COREMOTION_DEVICE="sim:walking-in-hand", COREMOTION_HISTORY="memory")
    process = subprocess.Popen([executable], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=RUN_SECONDS)
        stopped = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        out, err = process.communicate()
        stopped = True
    lines = out.decode(errors="replace").splitlines()
    crashed = (not stopped and process.returncode != 0) or b"Fatal error" in err
    return lines, stopped, crashed, err.decode(errors="replace")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scratch", default=os.path.join(ROOT, ".build", "code-blocks"))
    parser.add_argument("--coremotion", default=os.path.join(ROOT, ".build", "debug", "coremotion"))
    args = parser.parse_args()
    failures, passes = 0, 0
    work = tempfile.mkdtemp(prefix="coremotion-code-blocks.")

    def report(ok, name, detail):
        nonlocal failures, passes
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
        if ok:
            passes += 1
        else:
            failures += 1

    try:
        for page in PAGES:
            items = [(line, text, kind(text)) for line, text in blocks(page)]
            for line, text, what in items:
                if what == "manifest":
                    problems = check_manifest(text)
                    report(not problems, f"{page}:{line}", "; ".join(problems) or "manifest lines name real products and this release")
            code = [item for item in items if item[2] in ("program", "test")]
            if not code:
                continue
            folder = os.path.join(work, re.sub(r"[^A-Za-z0-9]", "-", page))
            os.makedirs(folder)
            programs, has_tests = package_for(page, items, folder)
            make_fixtures(folder, args.coremotion)
            started = time.time()
            build = subprocess.run(
                ["swift", "build", "--build-tests", "--package-path", folder, "--scratch-path", args.scratch,
                 "--disable-build-manifest-caching"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            log = build.stdout.decode(errors="replace")
            ours = [l for l in log.splitlines() if folder in l and (" error:" in l or " warning:" in l)]
            if build.returncode != 0 or ours:
                for l in (ours or log.splitlines()[-15:]):
                    print("   " + l.replace(folder + "/", ""))
                for line, text, what in code:
                    report(False, f"{page}:{line}", f"the page's package does not build without warnings ({what})")
                continue
            print(f"INFO {page}: {len(programs)} program(s){' and tests' if has_tests else ''} built in {time.time() - started:.0f} s")
            binaries = subprocess.run(["swift", "build", "--package-path", folder, "--scratch-path", args.scratch,
                                       "--show-bin-path"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().strip()
            for line, target in programs:
                lines, stopped, crashed, err = run_program(os.path.join(binaries, target), folder)
                ok = bool(lines) and not crashed
                detail = f"{len(lines)} lines in {RUN_SECONDS} s{' (stopped: it runs until stopped)' if stopped else ''}"
                if lines:
                    detail += f"; first: {lines[0][:80]!r}"
                if crashed:
                    detail += f"; crashed: {err.strip().splitlines()[-1:]}"
                report(ok, f"{page}:{line}", detail)
            if has_tests:
                test = subprocess.run(["swift", "test", "--skip-build", "--package-path", folder, "--scratch-path", args.scratch],
                                      cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                out = test.stdout.decode(errors="replace")
                for line, text, what in items:
                    if what != "test":
                        continue
                    names = re.findall(r"@Test func (\w+)", text)
                    failed = [n for n in names if re.search(rf'Test {n}\(\) (recorded an issue|failed)', out)]
                    passed = [n for n in names if re.search(rf'Test {n}\(\) passed', out)]
                    ok = test.returncode == 0 and len(passed) == len(names) and not failed
                    report(ok, f"{page}:{line}", f"tests {', '.join(names)}: {'passed' if ok else 'FAILED'}")
                    if not ok:
                        for l in [l for l in out.splitlines() if "✘" in l or "error" in l][:10]:
                            print("   " + l[:300])
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    print(f"{passes} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
