#!/usr/bin/env python3
"""test-docs-links: every link of README.md and docs/ leads somewhere.

A relative link must name a file or folder of the tree; a #section, in the
same page or another Markdown page, must be one of that page's headings
(GitHub's anchors: lower case, punctuation dropped, spaces as hyphens, -1,
-2 for repeats) or an `<a id=...>` anchor. Links in code are not links;
web addresses are not followed (no network in tests). No page may send the
reader to a file that is not part of the repository (DESIGN.md, papers/).
Prints each broken link with its page and line, and exits 1 if there is
one.
"""
import os
import re
import sys

from mdtext import SRC, blocks, pages, read

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")


def slug(heading, seen):
    s = re.sub(r"<[^>]+>", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s).replace(" ", "-")
    n = seen.get(s, 0)
    seen[s] = n + 1
    return s if n == 0 else "%s-%d" % (s, n)


def anchors(page, cache={}):
    if page not in cache:
        seen, out = {}, set()
        for _, line, code in blocks(read(page)):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if m and not code:
                out.add(slug(m.group(2), seen))
            if not code:  # an HTML anchor: <a id="name"></a>
                out.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
        cache[page] = out
    return cache[page]


def strip_code(line):
    return re.sub(r"(`+).+?\1", "", line)


def targets(lines):
    prev = ""
    for n, line, code in blocks(lines):
        if code:
            prev = ""
            continue
        text = strip_code(line)
        for m in LINK.finditer(text):
            yield n, m.group(1)
        # "[x]: target" defines a link only where it cannot continue a paragraph.
        m = REF.match(text) if not prev.strip() else None
        if m:
            yield n, m.group(1)
        prev = line


def broken(page, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
        return None
    path, _, section = target.partition("#")
    here = os.path.dirname(page)
    dest = os.path.normpath(os.path.join(here, path)) if path else page
    if not os.path.exists(os.path.join(SRC, dest)):
        return "no file %s" % dest
    if section and dest.endswith(".md") and section not in anchors(dest):
        return "no section #%s in %s" % (section, dest)
    return None


# Files of the project's workshop that are not in the repository: a page
# that sends the reader there sends them nowhere.
OUTSIDE = re.compile(r"\bDESIGN\.md\b|(?<![\w./-])papers/")


def outside(lines):
    for n, line, _ in blocks(lines):
        for m in OUTSIDE.finditer(line):
            yield n, m.group(0)


def main():
    bad = total = 0
    for page in pages():
        for n, target in targets(read(page)):
            total += 1
            why = broken(page, target)
            if why:
                bad += 1
                print("%s:%d: (%s): %s" % (page, n, target, why))
        for n, name in outside(read(page)):
            bad += 1
            print("%s:%d: names %s, which is not part of the repository" % (page, n, name))
    print("docs-links: %d links in %d pages, %d broken" % (total, len(pages()), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
