#!/usr/bin/env python3
"""Files the test suite leaves in /tmp and /dev/shm (issue 26: the unit
tests' temporary folders, Open MPI's shared-memory segments of killed
processes).

    check.py mark BUILD    before the suite: what is there now (scripts/test.sh)
    check.py check BUILD   after it (the CTest case suite-leftovers, run last):
                           what appeared since the mark and is still there

Only names of the suite's own making count, and only those no process holds
(open, mapped, or as its working folder): the machine may be shared, and
another suite's files are not ours. Ours are Open MPI's (ompi.*,
vader_segment.*), morph run's (morph-*), mktemp's default (tmp.*),
checkpoints (*.ckpt), and test-* names whose stem (the name without its
random tail) this source tree spells somewhere, so that a test of another
branch running beside this suite is not blamed on it. New entries are looked
at again 5 s later: a concurrent job's checkpoint between its write and its
restart is then in use or gone. Without a mark (a plain ctest run) the check
is skipped (exit 77).
"""
import os
import re
import subprocess
import sys
import time

DIRS = ["/tmp", "/dev/shm"]
OURS = re.compile(r"^(test-|morph-|morph_|tmp\.|ompi\.|vader_segment\.)|\.ckpt$")
SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def listing():
    out = set()
    for d in DIRS:
        try:
            out.update(os.path.join(d, n) for n in os.listdir(d) if OURS.search(n))
        except OSError:
            pass
    return out


def spelled_here(name):
    """A test-* name whose stem this tree's tests or scripts spell."""
    if not name.startswith("test-"):
        return True
    stem = re.sub(r"[.-][A-Za-z0-9]{6,}$", "", name)
    dirs = [os.path.join(SRC, d) for d in ("tests", "scripts", "bench")]
    return subprocess.call(["grep", "-rqF", "-e", stem] + dirs, stderr=subprocess.DEVNULL) == 0


def paths_in_use():
    """Every path some process has open, mapped, or as its working folder."""
    used = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        base = "/proc/" + pid
        try:
            used.add(os.readlink(base + "/cwd"))
            for fd in os.listdir(base + "/fd"):
                try:
                    used.add(os.readlink(base + "/fd/" + fd))
                except OSError:
                    pass
            with open(base + "/maps") as f:
                used.update(l.split(None, 5)[5].strip() for l in f if len(l.split(None, 5)) == 6)
        except OSError:
            pass
    return used


def held(path, used):
    return path in used or any(u.startswith(path + "/") for u in used)


def main(argv):
    if len(argv) != 3 or argv[1] not in ("mark", "check"):
        sys.stderr.write("usage: check.py mark|check BUILD\n")
        return 2
    mark = os.path.join(argv[2], "leftovers.mark")
    if argv[1] == "mark":
        entries = sorted(listing())
        with open(mark, "w") as f:
            f.write("".join(e + "\n" for e in entries))
        print("leftovers: marked %d entries of /tmp and /dev/shm" % len(entries))
        return 0
    if not os.path.exists(mark):
        print("no mark (scripts/test.sh makes it before the suite): skipped")
        return 77
    with open(mark) as f:
        before = set(l.strip() for l in f)
    os.unlink(mark)
    new = listing() - before
    time.sleep(5)
    used = paths_in_use()
    left = sorted(p for p in new
                  if os.path.lexists(p) and spelled_here(os.path.basename(p)) and not held(p, used))
    if left:
        print("the suite left %d entries:" % len(left))
        for p in left:
            print("  " + p)
        return 1
    print("leftovers: none in /tmp or /dev/shm (%d new entries were in use or gone)" % len(new))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
