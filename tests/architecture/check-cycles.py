#!/usr/bin/env python3
"""Lists the files of a library or program that call each other in a
circle (docs/architecture.md, "Inside a folder"), from `nm` of the object
files of a build folder, and fails if there is any.

    check-cycles.py BUILD_DIR
"""
import collections
import glob
import os
import subprocess
import sys


def symbols(objs):
    """{object: (defined, undefined)} global symbols, from one nm run."""
    out = subprocess.run(["nm", "-A"] + objs, capture_output=True, text=True).stdout
    syms = {o: (set(), set()) for o in objs}
    for line in out.splitlines():
        obj, _, rest = line.partition(":")
        parts = rest.split()
        if obj not in syms:
            continue
        if len(parts) == 3 and parts[1] in "TDBR":
            syms[obj][0].add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            syms[obj][1].add(parts[1])
    return syms


def circles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-cycles.py BUILD_DIR")
    os.chdir(sys.argv[1])
    sys.setrecursionlimit(10000)
    objs = [o for o in glob.glob("**/*.o", recursive=True) if "CompilerId" not in o]
    by_target = collections.defaultdict(list)
    for o in objs:
        by_target[os.path.dirname(o)].append(o)
    syms = symbols(objs)
    bad = 0
    for target, files in sorted(by_target.items()):
        owner = {s: o for o in files for s in syms[o][0]}
        graph = {o: {owner[s] for s in syms[o][1] if s in owner and owner[s] != o} for o in files}
        for comp in circles(graph):
            names = sorted(os.path.basename(x).replace(".c.o", "") for x in comp)
            print("%s: %s call each other in a circle" % (target.replace("CMakeFiles/", ""), " ".join(names)))
            bad = 1
    if not bad:
        print("check-cycles: no file cycles in %d targets" % len(by_target))
    sys.exit(bad)


main()
