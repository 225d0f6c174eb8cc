#!/usr/bin/env python3
"""Checks the references to sections of docs/ in the repository's sources and documents.

A reference is `docs/NAME.md §Heading` (further sections of the same document may follow in a
list: `docs/NAME.md §A, §B and §C`). Each heading must be a heading of that document. Comment
markers at the start of lines are ignored, so a reference may be broken across comment lines.
Prints every reference that does not resolve and exits 1 if there is one.

Usage: tools/check_doc_refs.py [ROOT]   (default: the repository containing this script)
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
SUFFIXES = {".rs", ".md", ".fut", ".py", ".toml", ".sh", ".sed"}
COMMENT = re.compile(r"^\s*(//[!/]?|--|#|\*)?\s?")


def headings(doc):
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return [m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", text, re.M)]


def files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in out.stdout.splitlines():
        p = ROOT / name
        if p.suffix in SUFFIXES and p.is_file() and not name.startswith("tools/refmap"):
            yield name, p


def main():
    cache = {}
    bad = 0
    ref = re.compile(r"docs/([a-z-]+\.md)((?:[^§\n]{0,12}?§)?)")
    for name, path in files():
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        flat = " ".join(COMMENT.sub("", l, count=1) for l in lines)
        for m in re.finditer(r"docs/([a-z-]+\.md)", flat):
            doc = m.group(1)
            if not (ROOT / "docs" / doc).is_file():
                print(f"{name}: no such document docs/{doc}")
                bad += 1
                continue
            hs = cache.setdefault(doc, headings(doc))
            rest = flat[m.end():]
            # The sections cited: `§` right after the name, then list items `, §X`, ` and §X`,
            # ` / §X` that follow one another.
            pos = 0
            first = re.match(r"`? §", rest)
            if not first:
                continue
            pos = first.end()
            while True:
                tail = rest[pos:]
                match = max((h for h in hs if tail.startswith(h)), key=len, default=None)
                if match is None:
                    print(f"{name}: docs/{doc} has no section {tail[:40]!r}")
                    bad += 1
                    break
                pos += len(match)
                nxt = re.match(r"(,| and| /) §", rest[pos:])
                if not nxt:
                    break
                pos += nxt.end()
    if bad:
        print(f"{bad} unresolved reference(s)")
        sys.exit(1)


main()
