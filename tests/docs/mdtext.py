"""What the doc checks share: the project's Markdown pages, and their text
split into prose, inline code and fenced code blocks."""
import os
import re

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^\s*(```|~~~)")


def pages():
    """README.md and every page under docs/, as paths relative to the tree."""
    out = ["README.md"]
    for root, _, files in os.walk(os.path.join(SRC, "docs")):
        out += [os.path.relpath(os.path.join(root, f), SRC) for f in files if f.endswith(".md")]
    return sorted(out)


def read(page):
    with open(os.path.join(SRC, page), encoding="utf-8") as f:
        return f.read().split("\n")


def blocks(lines):
    """(line number, text, in a fenced block) for every line."""
    inside = False
    for n, line in enumerate(lines, 1):
        if FENCE.match(line):
            inside = not inside
            continue
        yield n, line, inside


def inline_code(line):
    """The `...` spans of a line of prose."""
    return re.findall(r"(`+)(.+?)\1", line)
