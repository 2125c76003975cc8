#!/usr/bin/env python3
"""Checks every relative link of the repository's Markdown files.

For each Markdown file (README.md, CONTRIBUTING.md, API-STATUS.md, BENCHMARKS.md, CHANGELOG.md, docs/**,
the READMEs under tools/, Examples/ and elsewhere, the DocC articles Sources/**/*.docc/*.md; .build*,
Fuzz/Corpus and node_modules are skipped):

- every relative link `[text](path)`, `![alt](path)`, `[text](path#anchor)`, `[text](#anchor)` and reference
  definition `[label]: path` must name an existing file or folder (relative to the file; a leading `/` is
  the repository root), and an anchor must match a heading of the target Markdown file under GitHub's
  slug rule (lowercase; punctuation other than `-` and `_` dropped; each space becomes `-`; the second
  heading with the same slug gets `-1`, the third `-2`…) or an explicit `<a name="…">` / `id="…"`.
  Anchors into other files are accepted only as GitHub line anchors (`#L12`, `#L12-L20`);
- in a DocC catalog (`*.docc`), every `<doc:Name>` must name an article `Name.md` of the same catalog (file
  name with whitespace runs as `-`) or a heading of the current page, and `<doc:Name#Heading>` a heading
  of that article (DocC: whitespace runs become `-`, punctuation may be dropped); `<doc:>` links to
  symbols (a path with `/` or `(`) are left to the DocC build (tools/docs/build.sh). Every image
  `![alt](name)` must name a file under the catalog's Resources (DocC matches the file name with or
  without its extension, ignoring `@2x`/`~dark` variants);
- the same `<doc:>` rule applies to the `///` comments of the Swift sources of a module that has a catalog.

Links inside fenced code blocks and inline code are ignored; http(s), mailto and other URL schemes are
not fetched. Prints `file:line: broken link …` for each failure, then `OK: N links in M files` (exit 0) or
`FAIL: K broken of N links in M files` (exit 1).

Usage: python3 tools/docs/check-links.py [--root DIR]
"""
import os
import re
import sys
import unicodedata
from urllib.parse import unquote

SKIP_DIRS = {"node_modules", ".git", ".swiftpm"}
SKIP_PATHS = {os.path.join("Fuzz", "Corpus")}

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", re.S)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# [text](dest "title") and ![alt](dest); the text may hold one level of brackets and span lines.
LINK = re.compile(
    r"(!?)\[((?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)", re.M)
DOC_LINK = re.compile(r"<doc:([^>\s]+)>")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*(?:[ \t]#+[ \t]*)?$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
EXPLICIT_ANCHOR = re.compile(r"<a\s[^>]*\bname=[\"']([^\"']+)[\"']|\bid=[\"']([^\"']+)[\"']")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
LINE_ANCHOR = re.compile(r"^L\d+(?:C\d+)?(?:-L\d+(?:C\d+)?)?$")


def blank(text):
    """Same length and newlines, no content: keeps offsets and line numbers of what follows."""
    return re.sub(r"[^\n]", " ", text)


def strip_fences(text):
    """The text with fenced code blocks blanked out."""
    lines = text.split("\n")
    out, fence = [], None
    for line in lines:
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                out.append(blank(line))
            else:
                out.append(line)
        else:
            out.append(blank(line))
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and line.strip().strip(fence[0]) == "":
                fence = None
    return "\n".join(out)


def strip_inline(text):
    """The text with inline code and HTML comments blanked out as well."""
    text = HTML_COMMENT.sub(lambda m: blank(m.group(0)), text)
    return INLINE_CODE.sub(lambda m: blank(m.group(0)), text)


def heading_text(raw):
    """What GitHub renders of a heading's Markdown: link texts, code contents, no emphasis or tags."""
    t = re.sub(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", raw)
    t = re.sub(r"<[^>]+>", "", t)
    t = t.replace("`", "")
    t = re.sub(r"(\*+|(?<!\w)_+|_+(?!\w))", "", t)
    t = t.replace("\\", "")
    return t.strip()


def github_slug(text):
    out = []
    for ch in text.lower():
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LNM" or cat == "Pc":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def docc_forms(text):
    """The anchor forms DocC accepts for a heading: whitespace runs as `-`, with or without punctuation."""
    dashed = re.sub(r"\s+", "-", text.strip())
    bare = "".join(c for c in dashed if c == "-" or unicodedata.category(c)[0] in "LNM")
    return {dashed, bare, re.sub(r"-+", "-", bare).strip("-")}


class Page:
    """A Markdown file's headings (raw text), GitHub anchors and the code-free text."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.raw = f.read()
        unfenced = strip_fences(self.raw)
        self.text = strip_inline(unfenced)
        self.headings = []
        lines = unfenced.split("\n")
        for i, line in enumerate(lines):
            m = HEADING.match(line)
            if m:
                self.headings.append(heading_text(m.group(2)))
            elif i > 0 and SETEXT.match(line) and lines[i - 1].strip() \
                    and not HEADING.match(lines[i - 1]) and not lines[i - 1].lstrip().startswith(("-", "*", "|", ">")):
                self.headings.append(heading_text(lines[i - 1].strip()))
        self.anchors = set()
        seen = {}
        for h in self.headings:
            slug = github_slug(h)
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            self.anchors.add(slug if n == 0 else "%s-%d" % (slug, n))
        for m in EXPLICIT_ANCHOR.finditer(unfenced):
            self.anchors.add(m.group(1) or m.group(2))
        self.docc_anchors = set()
        for h in self.headings:
            self.docc_anchors |= docc_forms(h)


def markdown_files(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith(".build")
                             and os.path.normpath(os.path.join(rel, d)) not in SKIP_PATHS)
        for name in sorted(filenames):
            if name.lower().endswith(".md"):
                found.append(os.path.normpath(os.path.join(rel, name)))
    return found


def catalog_of(relpath):
    """The `*.docc` folder holding a file, or None."""
    parts = relpath.split(os.sep)
    for i, p in enumerate(parts):
        if p.endswith(".docc"):
            return os.sep.join(parts[:i + 1])
    return None


class Checker:
    def __init__(self, root):
        self.root = root
        self.pages = {}
        self.failures = []
        self.links = 0
        self.catalogs = {}

    def page(self, rel):
        if rel not in self.pages:
            self.pages[rel] = Page(os.path.join(self.root, rel))
        return self.pages[rel]

    def fail(self, rel, line, message):
        self.failures.append((rel, line, "%s:%d: broken link %s" % (rel, line, message)))

    def catalog(self, cat):
        """Articles (link name → relative path) and resource names of a DocC catalog."""
        if cat not in self.catalogs:
            articles, resources = {}, set()
            for dirpath, _, filenames in os.walk(os.path.join(self.root, cat)):
                for name in filenames:
                    full = os.path.relpath(os.path.join(dirpath, name), self.root)
                    base, ext = os.path.splitext(name)
                    if ext.lower() == ".md" or ext.lower() == ".tutorial":
                        articles[re.sub(r"\s+", "-", base)] = full
                    if "Resources" in os.path.relpath(dirpath, os.path.join(self.root, cat)).split(os.sep):
                        stem = re.sub(r"(@[123]x|~dark)+$", "", base)
                        resources |= {name, base, stem}
            self.catalogs[cat] = (articles, resources)
        return self.catalogs[cat]

    def check_target(self, rel, line, dest, image, cat):
        self.links += 1
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        shown = dest
        if cat and image and not dest.startswith("#"):
            _, resources = self.catalog(cat)
            if unquote(dest) not in resources:
                self.fail(rel, line, "(%s): no image of that name under %s/Resources" % (shown, cat))
            return
        path, _, anchor = dest.partition("#")
        path = unquote(path.split("?", 1)[0])
        anchor = unquote(anchor)
        if path == "":
            target = rel
        elif path.startswith("/"):
            target = os.path.normpath(path.lstrip("/"))
        else:
            target = os.path.normpath(os.path.join(os.path.dirname(rel), path))
        full = os.path.join(self.root, target)
        if target.startswith("..") or not os.path.exists(full):
            self.fail(rel, line, "(%s): no file %s" % (shown, target))
            return
        if not anchor:
            return
        if target.lower().endswith(".md") and os.path.isfile(full):
            if anchor not in self.page(target).anchors:
                self.fail(rel, line, "(%s): no heading #%s in %s" % (shown, anchor, target))
        elif not LINE_ANCHOR.match(anchor):
            self.fail(rel, line, "(%s): anchor #%s into a file that is not Markdown" % (shown, anchor))

    def check_doc_link(self, rel, line, ref, cat, page):
        self.links += 1
        name, _, heading = ref.partition("#")
        if "/" in name or "(" in name:
            return  # a symbol path: resolved (and checked) by the DocC build
        articles, _ = self.catalog(cat)
        if name == "" or (name not in articles and not heading):
            # `<doc:#Heading>` or `<doc:Heading>`: a heading on the current page.
            h = heading or name
            if page is not None and h in page.docc_anchors:
                return
            if name == "":
                self.fail(rel, line, "<doc:%s>: no heading %s on this page" % (ref, h))
                return
            self.fail(rel, line, "<doc:%s>: no article %s.md in %s" % (ref, name, cat))
            return
        if name not in articles:
            self.fail(rel, line, "<doc:%s>: no article %s.md in %s" % (ref, name, cat))
            return
        if heading and heading not in self.page(articles[name]).docc_anchors:
            self.fail(rel, line, "<doc:%s>: no heading %s in %s" % (ref, heading, articles[name]))

    def check_markdown(self, rel):
        page = self.page(rel)
        text = page.text
        cat = catalog_of(rel)

        def line_at(offset):
            return text.count("\n", 0, offset) + 1

        for m in LINK.finditer(text):
            dest = m.group(3)
            if dest == "" or SCHEME.match(dest.strip("<>")):
                continue
            self.check_target(rel, line_at(m.start()), dest, m.group(1) == "!", cat)
        for m in REF_DEF.finditer(text):
            dest = m.group(2)
            if SCHEME.match(dest.strip("<>")):
                continue
            self.check_target(rel, line_at(m.start()), dest, False, None)
        if cat:
            for m in DOC_LINK.finditer(text):
                self.check_doc_link(rel, line_at(m.start()), m.group(1), cat, page)

    def check_swift_comments(self, cat):
        """`<doc:>` links in the `///` comments of the module whose catalog is `cat`."""
        module_dir = os.path.dirname(cat)
        for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, module_dir)):
            dirnames[:] = [d for d in dirnames if not d.endswith(".docc")]
            for name in sorted(filenames):
                if not name.endswith(".swift"):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, self.root)
                with open(full, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        s = line.lstrip()
                        if not (s.startswith("///") or s.startswith("*") or s.startswith("/**")):
                            continue
                        if "<doc:" not in s:
                            continue
                        s = INLINE_CODE.sub(lambda m: blank(m.group(0)), s)
                        for m in DOC_LINK.finditer(s):
                            self.check_doc_link(rel, n, m.group(1), cat, None)

    def run(self):
        files = markdown_files(self.root)
        for rel in files:
            self.check_markdown(rel)
        for cat in sorted({catalog_of(f) for f in files if catalog_of(f)}):
            self.check_swift_comments(cat)
        return files


def main():
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = sys.argv[1:]
    if args[:1] == ["--root"] and len(args) == 2:
        root = os.path.abspath(args[1])
    elif args:
        print(__doc__.strip().splitlines()[-1])
        return 2
    checker = Checker(root)
    files = checker.run()
    for _, _, message in sorted(checker.failures):
        print(message)
    if checker.failures:
        print("FAIL: %d broken of %d links in %d files" % (len(checker.failures), checker.links, len(files)))
        return 1
    print("OK: %d links in %d files" % (checker.links, len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
