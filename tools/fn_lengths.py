#!/usr/bin/env python3
"""The longest Rust functions under the given folders or files.

Usage: tools/fn_lengths.py [--top N] [--over LINES] PATH...

A function runs from its `fn` line (attributes and doc comments not counted) to the line of
its closing brace, found by counting braces outside comments, strings and character
literals. Prints `LINES PATH:LINE NAME` for the longest N functions (default 10), or for
every function longer than LINES with `--over`; with `--over` the exit status is 1 when any
is found.
"""

import argparse
import pathlib
import re
import sys

FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?"
                r"(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def code_only(text):
    """The text with comments, strings and char literals blanked out (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
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
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """(length, line, name) of every function with a body in the file."""
    code = code_only(path.read_text()).split("\n")
    found = []
    for start, line in enumerate(code):
        m = FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for k in range(start, len(code)):
            for ch in code[k]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not opened and depth == 0:
                    break  # a declaration without a body
            else:
                if opened and depth == 0:
                    found.append((k - start + 1, start + 1, m.group(1)))
                    break
                continue
            break
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--over", type=int)
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    rows = []
    for p in args.paths:
        p = pathlib.Path(p)
        files = sorted(p.rglob("*.rs")) if p.is_dir() else [p]
        for f in files:
            rows += [(n, f"{f}:{line}", name) for n, line, name in functions(f)]
    rows.sort(key=lambda r: -r[0])
    if args.over is not None:
        rows = [r for r in rows if r[0] > args.over]
    else:
        rows = rows[:args.top]
    for n, where, name in rows:
        print(f"{n:5} {where} {name}")
    return 1 if args.over is not None and rows else 0


if __name__ == "__main__":
    sys.exit(main())
