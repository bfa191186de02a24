#!/usr/bin/env python3
"""The API reference of morph, generated from the public headers' comments.

    scripts/api-docs.py OUT_DIR      writes OUT_DIR/README.md and one page per
                                     header (OUT_DIR/morph.md, OUT_DIR/error.md, ...)
    scripts/api-docs.py --check      writes nothing; lists every public function
                                     whose comment is missing or does not say how
                                     it fails, and exits 1 if there is one

A public function is a prototype at file scope in include/morph.h or
include/morph/*.h. Its documentation is the comment right above it; functions
declared on consecutive lines share the comment above the first (morph_rank
and morph_size). The comment must say how the function fails: an "Errors"
list, or "Never fails" (or "cannot fail") for a function that cannot. A
function returning a value that is not an error code may say what it
returns on bad input instead (NULL, -1, 0 or "" with "if"/"when"/"on"/"for").
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# How a comment says that, and how, a function fails.
FAILS = re.compile(r"\bErrors?\b|\bMORPH_E[A-Z]+\b|\b[Nn]ever\s+fails\b|\b[Cc]annot\s+fail\b|"
                   r"\b[Nn]ever\s+NULL\b")
BAD_INPUT = re.compile(r"(\bNULL\b|-1|\b0\b|\"\")[^.]*?\b(if|when|on|for)\b", re.S)


def headers():
    """The public headers, umbrella first."""
    inc = os.path.join(ROOT, "include")
    sub = sorted(f for f in os.listdir(os.path.join(inc, "morph")) if f.endswith(".h"))
    return [os.path.join(inc, "morph.h")] + [os.path.join(inc, "morph", f) for f in sub]


def strip_cplusplus(text):
    """The extern "C" wrapper opens a brace at file scope: blank it out."""
    return re.sub(r"#ifdef __cplusplus\n.*?#endif\n", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)


def items(text):
    """Comments and statements at file scope, in order: (kind, text, first line, last line).
    Preprocessor lines and anything inside braces (struct fields) are left out."""
    out, i, n, line, depth, start, stmt = [], 0, len(text), 1, 0, None, []
    while i < n:
        if text.startswith("/*", i):
            end = text.index("*/", i) + 2
            body = text[i:end]
            if depth == 0:
                out.append(("comment", body, line, line + body.count("\n")))
            line += body.count("\n")
            i = end
            continue
        c = text[i]
        if c == "#" and (i == 0 or text[i - 1] == "\n"):
            end = text.find("\n", i)
            while end > 0 and text[end - 1] == "\\":
                end = text.find("\n", end + 1)
            end = n if end < 0 else end
            line += text.count("\n", i, end)
            i = end
            continue
        if c == "\n":
            line += 1
        if not c.isspace() and start is None:
            start = line
        stmt.append(c)
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ";" and depth == 0:
            out.append(("stmt", "".join(stmt).strip(), start, line))
            stmt, start = [], None
        i += 1
    return out


PROTO = re.compile(r"^(?P<ret>[\w\s\*]+?)\s*\b(?P<name>morph_\w+)\s*\((?P<args>.*)\)\s*;$", re.S)


def functions(path):
    """(name, return type, prototype, comment, line) of every public function.
    Its comment is the one right above it; or, for a function declared on the
    line after a documented one, that one's (morph_rank, morph_size); or a
    comment on the prototype's own line; or, for the initialiser of a struct
    (morph_gen_options_init), the comment above the struct that names it."""
    found, last_comment, prev, above_prev = [], None, None, None
    for kind, text, first, last in items(strip_cplusplus(open(path).read())):
        if kind == "comment":
            if prev and prev[2] == first and found and found[-1][3] is None:
                found[-1] = found[-1][:3] + (text,) + found[-1][4:]  # trailing comment
                continue
            last_comment = (text, last)
            continue
        m = PROTO.match(text) if "{" not in text and not text.startswith("typedef") else None
        doc = None
        if last_comment and last_comment[1] >= first - 1:
            doc = last_comment[0]
        elif m and prev and prev[1] >= first - 1:
            doc = prev[0]  # declared right under a documented one: shares its comment
        elif m and above_prev and m.group("name") in above_prev:
            doc = above_prev
        if m:
            ret = " ".join(m.group("ret").split())
            found.append((m.group("name"), ret, " ".join(text.split()), doc, first))
            prev = (doc, last, last)
        else:
            prev = (None, -10, last) if not m else prev
        above_prev = last_comment[0] if last_comment else None
        last_comment = None
    return found


def comment_text(doc):
    """A C comment as plain lines, without the stars."""
    body = doc[2:-2]
    lines = [re.sub(r"^\s*\* ?", "", l) for l in body.split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(l.rstrip() for l in lines)


def problem(fn, before=None):
    """Why fn's documentation is not enough, or None. A comment that begins
    with "Same" or "The same" refers to the function before (`before`)."""
    name, ret, _, doc, _ = fn
    if not doc:
        return "no comment"
    text = comment_text(doc)
    if FAILS.search(text):
        return None
    if re.match(r"(The s|S)ame\b", text.strip()) and before is not None:
        return problem(before)
    if ret == "void":
        return None  # nothing to report an error with
    if ret != "int" and BAD_INPUT.search(text):
        return None
    return "the comment does not say how it fails (an \"Errors:\" list, or \"Never fails.\")"


def check():
    bad = 0
    total = 0
    for h in headers():
        before = None
        for fn in functions(h):
            total += 1
            why = problem(fn, before)
            before = fn
            if why:
                bad += 1
                print("%s:%d: %s: %s" % (os.path.relpath(h, ROOT), fn[4], fn[0], why))
    print("api-docs: %d public functions, %d without a documented error list" % (total, bad))
    return 1 if bad else 0


def header_intro(path):
    """The header's opening comment."""
    for kind, text, _, _ in items(strip_cplusplus(open(path).read())):
        return comment_text(text) if kind == "comment" else ""
    return ""


def page(path):
    rel = os.path.relpath(path, os.path.join(ROOT, "include"))
    out = ["# %s" % rel, "", "Generated from `include/%s` by scripts/api-docs.py." % rel, "",
           "```", header_intro(path), "```", ""]
    seen = set()
    for name, _, proto, doc, _ in functions(path):
        out += ["## %s" % name, "", "```c", proto, "```", ""]
        if doc and doc not in seen:
            out += ["```", comment_text(doc), "```", ""]
            seen.add(doc)
        elif doc:
            out += ["(Documented with the function above.)", ""]
    return "\n".join(out)


def generate(outdir):
    os.makedirs(outdir, exist_ok=True)
    index = ["# morph API reference", "",
             "Generated from the public headers by scripts/api-docs.py: one page per header.", ""]
    for h in headers():
        stem = os.path.splitext(os.path.basename(h))[0]
        with open(os.path.join(outdir, stem + ".md"), "w") as f:
            f.write(page(h))
        names = ", ".join("`%s`" % fn[0] for fn in functions(h))
        rel = os.path.relpath(h, os.path.join(ROOT, "include"))
        index.append("- [%s](%s.md): %s" % (rel, stem, names or "types only"))
    with open(os.path.join(outdir, "README.md"), "w") as f:
        f.write("\n".join(index) + "\n")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--check":
        return check()
    if len(argv) == 2 and not argv[1].startswith("-"):
        return generate(argv[1])
    sys.stderr.write("usage: scripts/api-docs.py OUT_DIR | --check\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
