#!/usr/bin/env bash
# The cost of one journal commit with SQLite's synchronous=NORMAL and FULL
# (WAL mode, as morphd's journal): the transaction of a submission (an
# event and a job row), committed --commits times per setting, the two
# settings alternating in rounds so that both see the same load.
#
#   bench/journal-commit.sh [--dir DIR] [--commits N] [--rounds R] [--out DIR]
#
# DIR: the file system of the journal (default /var/tmp: a disk; a tmpfs
# syncs for free and loses everything at a reboot anyway). Writes
# OUT/journal-commit.csv (round,setting,ms_per_commit) and
# OUT/journal-commit.png. Last line:
#   RESULT journal_commit_normal_ms=M journal_commit_full_ms=M journal_full_vs_normal=R
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_init bench/journal-commit.sh
dir=/var/tmp commits=200 rounds=5 out=
bench_parse "dir:,commits:,rounds:,out:" "[--dir DIR] [--commits N] [--rounds R] [--out DIR]" "$@"
out=${out:-$(mktemp -d /tmp/morph-journal-commit.XXXXXX)}
mkdir -p "$out"
db=$(mktemp -d "$dir/morph-journal-commit.XXXXXX")
trap 'rm -rf "$db"' EXIT

python3 - "$db" "$commits" "$rounds" > "$out/journal-commit.csv" <<'PY'
import os, sqlite3, sys, time
folder, commits, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
row = "INSERT OR REPLACE INTO jobs VALUES(" + ",".join("?" * 35) + ")"
print("round,setting,ms_per_commit")
for r in range(rounds):
    for setting in ("NORMAL", "FULL"):
        path = os.path.join(folder, "%s-%d.db" % (setting, r))
        c = sqlite3.connect(path, isolation_level=None)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=" + setting)
        c.execute("CREATE TABLE jobs(" + ",".join("c%d" % i for i in range(35)) + ")")
        c.execute("CREATE TABLE events(id INTEGER PRIMARY KEY, t REAL, job INT, kind TEXT, text TEXT)")
        t0 = time.perf_counter()
        for i in range(commits):
            c.execute("BEGIN")
            c.execute("INSERT INTO events(t, job, kind, text) VALUES(?,?,?,?)",
                      (time.time(), i, "submit", "malleable 2-4"))
            c.execute(row, [i, "job", "malleable", 2, 4, 1, 4, 2, '["/bin/app","--iters","100"]',
                            "/home/u", "/tmp/o", "/tmp/e", time.time(), 0, 0, "pending", -1, 0,
                            0, "", "", "", 0, 0, 0, "none", 0, 0, 0, 0, 0, "", "", "", 1])
            c.execute("COMMIT")
        print("%d,%s,%.4f" % (r, setting.lower(), (time.perf_counter() - t0) * 1000 / commits))
        c.close()
PY
med() { awk -F, -v s="$1" 'NR > 1 && $2 == s { print $3 }' "$out/journal-commit.csv" | bench_stats | cut -d' ' -f1; }
normal=$(med normal) full=$(med full)
gnuplot <<GP 2>/dev/null || echo "journal-commit: gnuplot failed; CSV only" >&2
set terminal pngcairo size 700,420 noenhanced
set output '$out/journal-commit.png'
set title 'one journal commit (WAL) in $dir: median of $rounds rounds of $commits'
set ylabel 'ms per commit'; set logscale y; set grid ytics; set style fill solid 0.6
set xtics ('synchronous=NORMAL' 0, 'synchronous=FULL' 1); set xrange [-0.6:1.6]
plot '-' u 1:2 w boxes lc rgb '#3366aa' notitle
0 $normal
1 $full
e
GP
echo "files: $out" >&2
result="RESULT journal_commit_normal_ms=$normal journal_commit_full_ms=$full journal_full_vs_normal=$(bench_ratio "$full" "$normal")"
echo "$result"
bench_record journal-commit "$result" "$out/journal-commit.csv"
