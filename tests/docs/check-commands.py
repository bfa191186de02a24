#!/usr/bin/env python3
"""test-docs-commands: every `morph ...` command README.md and docs/ show
parses, and every command's --help lists exactly its options.

    check-commands.py BIN     BIN: the folder of the built morph programs

The options of a command are its getopt table in tools/ (the struct option
array and the short-option string passed to getopt_long), read from the
source the programs are built from. Two checks:

1. The options `morph <command> --help` lists (on its usage and option
   lines) are the table's, no more, no fewer: the help text, and the man
   page made from it, cannot drift from what the program accepts.
2. Each command shown in a code block or in inline code (`morph run -n 2
   ...`, `build/bin/morph run ...`, `morph-run ...`) uses only options of
   its command's table, each with its value when it takes one. Nothing is
   run: a command is parsed the way getopt_long would, up to the program
   for the commands that stop there (run, submit, prof). Placeholders
   (N, DIR, `...`) and the [optional] brackets of a synopsis are allowed.
"""
import glob
import os
import re
import shlex
import subprocess
import sys

from mdtext import SRC, blocks, inline_code, pages, read


def dispatcher_commands():
    """The commands of the dispatcher's table in tools/morph.c."""
    text = open(os.path.join(SRC, "tools/morph.c")).read()
    return re.findall(r'^\s*\{"([a-z]+)",\s*"', text, re.M)


COMMANDS = dispatcher_commands()
ALIASES = {"queue": "status"}
# Sub-commands with a getopt table of their own: (command, word) -> file.
SUBS = {("sim", "limits"): "tools/sim/limits.c", ("workload", "lublin"): "tools/workload/lublin.c"}


class Spec:
    """One getopt table: long name -> takes a value; short letter -> takes a value."""

    def __init__(self, longs, shorts, stop_at_program):
        self.longs, self.shorts, self.stop = longs, shorts, stop_at_program


def table(path):
    """The getopt_long call of a file and the struct option array it names."""
    text = open(os.path.join(SRC, path)).read()
    call = re.search(r'getopt_long\(\s*\w+\s*,\s*\w+\s*,\s*"([^"]*)"\s*,\s*(\w+)', text)
    if not call:
        raise SystemExit("%s: no getopt_long call" % path)
    optstring, name = call.groups()
    body = re.search(r"struct option\s+%s\[\]\s*=\s*\{(.*?)\};" % name, text, re.S).group(1)
    longs = {m.group(1): m.group(2) != "no_argument"
             for m in re.finditer(r'\{\s*"([^"]+)"\s*,\s*(\w+)\s*,', body)}
    shorts, i = {}, 1 if optstring.startswith(("+", "-")) else 0
    while i < len(optstring):
        takes = optstring[i + 1:i + 2] == ":"
        shorts[optstring[i]] = takes
        i += 2 if takes else 1
    return Spec(longs, shorts, optstring.startswith("+"))


def specs():
    """Every getopt table of tools/: a file with a getopt_long call that is
    neither a command's main.c nor in SUBS is an error (its options would
    go unchecked)."""
    out = {c: table("tools/%s/main.c" % c) for c in COMMANDS}
    for key, path in SUBS.items():
        out[key] = table(path)
    known = {"tools/%s/main.c" % c for c in COMMANDS} | set(SUBS.values())
    for f in sorted(glob.glob(os.path.join(SRC, "tools", "*", "*.c"))):
        rel = os.path.relpath(f, SRC)
        if "getopt_long(" in open(f).read() and rel not in known:
            raise SystemExit("%s: a getopt table check-commands.py does not know (SUBS)" % rel)
    return out


def option_segment(seg):
    """The options an option column of a help line names: "-n, --np N",
    "--min N --max N --pref N", "--seed S (1)"; a description word ends it."""
    longs, shorts = [], []
    for tok in seg.replace(",", " ").split():
        if tok.startswith("--"):
            longs.append(re.match(r"--([a-z][a-z0-9-]*)", tok).group(1))
        elif re.fullmatch(r"-[a-zA-Z]", tok):
            shorts.append(tok[1])
        elif re.fullmatch(r"[a-z]{3,}[a-z,.:;]*", tok):
            break
    return longs, shorts


def help_options(bin_dir, words):
    """Long and short options of `morph WORDS --help`: those of its usage
    lines, and those in the option columns of its option lines (a line
    starting with "-", cut at runs of two spaces: "--seed S (1)  --interarrival
    SECONDS (10)" has two), not those its descriptions mention."""
    out = subprocess.run([os.path.join(bin_dir, "morph")] + list(words) + ["--help"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    longs, shorts, usage = set(), set(), False
    for line in out.split("\n"):
        usage = line.startswith("usage: ") or (usage and re.match(r"^\s+morph ", line))
        if usage:
            longs.update(re.findall(r"--([a-z][a-z0-9-]*)", line))
            shorts.update(re.findall(r"[\s\[]-([a-zA-Z])(?=[\s\]]|$)", line))
            continue
        if not re.match(r"^\s+-", line):
            continue
        for seg in re.split(r"\s{2,}", line.strip()):
            if seg.startswith("-"):
                l, sh = option_segment(seg)
                longs.update(l)
                shorts.update(sh)
    return longs, shorts


def check_help(bin_dir, all_specs):
    bad = 0
    for key, spec in sorted(all_specs.items(), key=str):
        words = key if isinstance(key, tuple) else (key,)
        longs, shorts = help_options(bin_dir, words)
        name = "morph " + " ".join(words)
        for o in sorted(set(spec.longs) - longs):
            bad += 1
            print("%s --help: does not list --%s, which it accepts" % (name, o))
        for o in sorted(longs - set(spec.longs)):
            bad += 1
            print("%s --help: lists --%s, which it does not accept" % (name, o))
        for o in sorted(set(spec.shorts) ^ shorts):
            bad += 1
            print("%s --help: -%s %s" % (name, o, "is not listed" if o in spec.shorts
                                         else "is listed but not accepted"))
    return bad


SHELL_END = re.compile(r"\s(?:\||\|\||&&|;|>|2>|<|&)(?:\s|$)|\s#\s|\)\s*$|`")
MORPH = re.compile(r"(?:^|[\s\"'(=;|&])(?:[\w./${}\"-]*/)?morph(?:\"?\s+|-)(%s)(?=\s|$)(.*)"
                   % "|".join(COMMANDS + list(ALIASES)))


def commands_in(page):
    """(line, command, argument text, in inline code) of every morph command
    on a page."""
    lines = read(page)
    joined, start = [], None
    for n, line, code in blocks(lines):
        texts = [line] if code else [c for _, c in inline_code(line)]
        for text in texts:
            if code and start is not None:
                text = joined.pop() + " " + text
            elif code:
                start = n
            if code and text.rstrip().endswith("\\"):
                joined.append(text.rstrip()[:-1])
                continue
            for m in MORPH.finditer(text):
                yield (start if code else n), ALIASES.get(m.group(1), m.group(1)), m.group(2), not code
            start = None


def tokens(text):
    text = SHELL_END.split(" " + text)[0]
    try:
        words = shlex.split(text, comments=False)
    except ValueError:
        words = text.split()
    out = []
    for w in words:
        w = w.strip("[]")
        if w and w not in ("...", "|", "\\|", "…") and not re.fullmatch(r"\.\.\.\]*", w):
            out.append(w)
    return out


def parse(spec, words, mention=False):
    """The first problem getopt_long would have with words, or None. In a
    mention (inline code), an option at the very end may go without its
    value: `morph run --schedule` names the option."""
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            return None
        if w.startswith("--"):
            name, eq, _ = w[2:].partition("=")
            if name not in spec.longs:
                return "unknown option --%s" % name
            if spec.longs[name] and not eq:
                if i >= len(words) and not mention:
                    return "--%s needs a value" % name
                i += 1
        elif w.startswith("-") and len(w) > 1 and not re.fullmatch(r"-[\d.]+", w):
            for k, c in enumerate(w[1:], 1):
                if c not in spec.shorts:
                    return "unknown option -%s" % c
                if spec.shorts[c]:
                    if k == len(w) - 1:
                        if i >= len(words) and not mention:
                            return "-%s needs a value" % c
                        i += 1
                    break
        elif spec.stop:
            return None
    return None


def check_docs(all_specs):
    bad = total = 0
    for page in pages():
        for n, cmd, rest, mention in commands_in(page):
            words = tokens(rest)
            spec = all_specs[cmd]
            if words and (cmd, words[0]) in all_specs:
                spec, words = all_specs[(cmd, words[0])], words[1:]
            total += 1
            why = parse(spec, words, mention)
            if why:
                bad += 1
                print("%s:%d: morph %s%s: %s" % (page, n, cmd, rest.rstrip()[:100], why))
    print("docs-commands: %d morph commands in %d pages, %d that do not parse" %
          (total, len(pages()), bad))
    return bad


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: check-commands.py BIN\n")
        return 2
    all_specs = specs()
    bad = check_help(argv[1], all_specs) + check_docs(all_specs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
