#!/usr/bin/env python3
"""Every relative link of the book (docs/src) and of README.md resolves: the file exists
and, with a #fragment, the target has a heading with that id. Book pages may link only
inside docs/src (the HTML book holds nothing else). SUMMARY.md lists every page, and
every {{#include}} names an existing file. No network: http(s) links are not followed.

Usage: scripts/check-links.py [ROOT]   (default: the repository holding this script)
       scripts/check-links.py --html BOOK   (the built book: every relative href and
                                             src of every page resolves, with its #id)
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SRC = os.path.join(ROOT, "docs", "src")
LINK = re.compile(r"(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
INCLUDE = re.compile(r"\{\{#include\s+([^}\s]+)\s*\}\}")

def prose(text):
    """The text outside fenced code blocks, with inline code blanked; (line number, line)."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        s = line.lstrip()
        m = re.match(r"(`{3,}|~{3,})", s)
        if m:
            if fence is None:
                fence = m.group(1)
                continue
            if s.startswith(fence) and s.strip() == s.strip()[0] * len(s.strip()):
                fence = None
                continue
        if fence is None:
            yield n, re.sub(r"`+[^`]*`+", "", line)

def expand(path, seen=()):
    """The file's text with {{#include}}s expanded (headings of included files count)."""
    text = open(path, encoding="utf-8").read()
    def sub(m):
        inc = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1).split(":")[0]))
        if inc in seen or not os.path.isfile(inc):
            return ""
        return expand(inc, seen + (path,))
    return INCLUDE.sub(sub, text)

def slug(heading):
    """The id mdBook (and GitHub) give a heading."""
    h = re.sub(r"<[^>]+>", "", heading).strip().lower()
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    out = []
    for c in h:
        if c.isalnum() or c in "-_":
            out.append(c)
        elif c == " ":
            out.append("-")
    return "".join(out)

def anchors(path):
    ids, counts = set(), {}
    fence = None
    for line in expand(path).split("\n"):
        s = line.lstrip()
        if re.match(r"(`{3,}|~{3,})", s):
            fence = None if fence else s[:3]
            continue
        if fence:
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            ids.add(base if n == 0 else f"{base}-{n}")
    return ids

def check_file(path, problems, inside_book):
    text = open(path, encoding="utf-8").read()
    rel = os.path.relpath(path, ROOT)
    for m in INCLUDE.finditer(text):
        inc = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1).split(":")[0]))
        if not os.path.isfile(inc):
            problems.append(f"{rel}: {{{{#include {m.group(1)}}}}}: no such file")
    for n, line in prose(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{rel}:{n}: ({target})"
            if not os.path.exists(dest):
                problems.append(f"{where}: no such file")
                continue
            if inside_book and not (dest + os.sep).startswith(SRC + os.sep):
                problems.append(f"{where}: outside docs/src, so not in the HTML book")
                continue
            if frag:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    continue
                if frag not in anchors(dest):
                    problems.append(f"{where}: no heading with id #{frag} in {os.path.relpath(dest, ROOT)}")

def main():
    problems = []
    pages = []
    for d, _, files in os.walk(SRC):
        for f in sorted(files):
            if f.endswith(".md"):
                pages.append(os.path.join(d, f))
    for p in sorted(pages):
        check_file(p, problems, inside_book=True)
    check_file(os.path.join(ROOT, "README.md"), problems, inside_book=False)
    summary = os.path.join(SRC, "SUMMARY.md")
    listed = set()
    for _, line in prose(open(summary, encoding="utf-8").read()):
        for m in LINK.finditer(line):
            listed.add(os.path.normpath(os.path.join(SRC, m.group(1).partition("#")[0])))
    for p in pages:
        if p != summary and p not in listed:
            problems.append(f"{os.path.relpath(p, ROOT)}: not listed in docs/src/SUMMARY.md")
    for p in problems:
        print(p)
    print(f"links: {len(pages) + 1} files checked, {len(problems)} problem(s)")
    return 1 if problems else 0

def check_html(book):
    """Every relative href/src of the built book resolves to a file, and #ids exist."""
    from html.parser import HTMLParser

    class Page(HTMLParser):
        def __init__(self):
            super().__init__()
            self.ids, self.refs = set(), []
        def handle_starttag(self, tag, attrs):
            for k, v in attrs:
                if k == "id" and v:
                    self.ids.add(v)
                if k in ("href", "src") and v:
                    self.refs.append((v, self.getpos()[0]))

    pages = {}
    for d, _, files in os.walk(book):
        for f in files:
            if f.endswith(".html"):
                p = Page()
                path = os.path.join(d, f)
                p.feed(open(path, encoding="utf-8").read())
                pages[os.path.normpath(path)] = p
    problems = []
    for path, p in sorted(pages.items()):
        if os.path.basename(path) in ("print.html", "404.html", "toc.html"):
            continue
        for ref, line in p.refs:
            if re.match(r"[a-z][a-z0-9+.-]*:", ref) or ref.startswith("//"):
                continue
            file_part, _, frag = ref.partition("#")
            file_part = file_part.partition("?")[0]
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{os.path.relpath(path, book)}:{line}: {ref}"
            if os.path.isdir(dest):
                dest = os.path.join(dest, "index.html")
            if not os.path.exists(dest):
                problems.append(f"{where}: no such file")
            elif frag and dest in pages and frag not in pages[dest].ids:
                problems.append(f"{where}: no element with id {frag}")
    for q in problems:
        print(q)
    print(f"html links: {len(pages)} pages checked, {len(problems)} problem(s)")
    return 1 if problems else 0

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--html":
        sys.exit(check_html(os.path.abspath(sys.argv[2])))
    sys.exit(main())
