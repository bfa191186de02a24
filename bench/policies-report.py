#!/usr/bin/env python3
"""The tables, pages, plots and RESULT line of bench/policies.sh, from its
runs.csv (one line per simulation: workload, load, seed, variant, policy,
estimates, then morph-sim's --csv columns). Means over seeds with the 95 %
confidence half-width (Student's t)."""
import argparse
import collections
import math
import os
import subprocess

# Columns of morph-sim --csv after the six of the bench (morph-sim's 1-based
# column c is index 5 + c).
MAKESPAN, WAIT, ALLOC, ENERGY, BSLD, P95, TIMEOUTS = 12, 13, 16, 17, 22, 23, 24
KIND_BASE = 26  # per kind (fixed, moldable, malleable, flexible): jobs, wait, p95, bsld
FIXED_KIND, FLEXIBLE_KIND = 0, 3
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}

TRACES = {
    "kth-sp2": "KTH-SP2 (100 nodes, Sep 1996 - Aug 1997): the first 10,000 jobs",
    "lanl-cm5": "LANL-CM5 (1,024 processors as 32 units of 32, Oct 1994 - Sep 1996): the first 10,000 jobs",
    "nasa-ipsc": "NASA-iPSC (128 nodes, Oct - Dec 1993): the first 10,000 jobs",
    "lublin-ctc": "Lublin-Feitelson, CTC-SP2 shape (430 nodes, 18 h limit), 5,000 jobs per seed",
    "lublin-kth": "Lublin-Feitelson, KTH-SP2 shape (100 nodes, 60 h limit), 5,000 jobs per seed",
}
ESTIMATES = {"requested": "requested (field 9)", "model": "Tsafrir model (the trace has none)",
             "tsafrir": "Tsafrir model"}


def mean_ci(values):
    n = len(values)
    m = sum(values) / n
    if n < 2:
        return m, 0.0
    var = sum((v - m) ** 2 for v in values) / (n - 1)
    return m, T95.get(n - 1, 1.96) * math.sqrt(var / n)


def number(text):
    try:
        return float(text)
    except ValueError:
        return 0.0  # the text columns (name, policy, kind, estimates)


def load_runs(path):
    runs = collections.defaultdict(list)
    est = {}
    for line in open(path):
        f = line.rstrip("\n").split(",")
        runs[(f[0], f[1], f[3], f[4])].append([number(x) for x in f[6:]])
        est[f[0]] = f[5]
    return runs, est


def col(rows, c):
    return [r[c - 6] for r in rows]


def load_order(load):
    return -1.0 if load == "rec" else float(load)


def load_name(load):
    return "as recorded" if load == "rec" else load


class Workload:
    def __init__(self, runs, name, load, default):
        self.name, self.load = name, load
        self.cells = {(v, p): rows for (w, l, v, p), rows in runs.items() if w == name and l == load}
        flex = {p: rows for (v, p), rows in self.cells.items() if v == "flexible"}
        self.best_bsld = min(flex, key=lambda p: mean_ci(col(flex[p], BSLD))[0])
        self.best_mk = min(flex, key=lambda p: mean_ci(col(flex[p], MAKESPAN))[0])
        self.default = default
        self.easy = self.cells.get(("fixed", "easy"))

    def m(self, var, pol, c):
        return mean_ci(col(self.cells[(var, pol)], c))

    def ratios(self):
        d_b, d_m = self.m("flexible", self.default, BSLD)[0], self.m("flexible", self.default, MAKESPAN)[0]
        r_b = d_b / self.m("flexible", self.best_bsld, BSLD)[0]
        r_m = d_m / self.m("flexible", self.best_mk, MAKESPAN)[0]
        e_b, e_m = self.m("fixed", "easy", BSLD)[0], self.m("fixed", "easy", MAKESPAN)[0]
        return r_b, r_m, d_b / e_b, d_m / e_m


def fmt(mc, digits=0):
    return "%.*f ± %.*f" % (digits, mc[0], digits, mc[1])


def summary_rows(wls, est):
    out = ["| workload | load | estimates | default bsld | best | best bsld | bsld / best | "
           "makespan / best | bsld / EASY fixed | makespan / EASY fixed |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for w in wls:
        r = w.ratios()
        out.append("| %s | %s | %s | %s | `%s` | %s | %.3f | %.3f | %.3f | %.3f |" % (
            w.name, load_name(w.load), ESTIMATES.get(est[w.name], est[w.name]),
            fmt(w.m("flexible", w.default, BSLD), 1), w.best_bsld,
            fmt(w.m("flexible", w.best_bsld, BSLD), 1), r[0], r[1], r[2], r[3]))
    return out


def detail_rows(w, policies):
    out = ["| workload | policy | makespan (s) | mean wait (s) | p95 wait (s) | bounded slowdown | "
           "bsld fixed jobs | bsld flexible jobs | utilisation | energy (kWh) | killed |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for var, pol in [("fixed", "easy"), ("fixed", "fcfs")] + [("flexible", p) for p in policies]:
        if (var, pol) not in w.cells:
            continue
        mark = "**" if var == "flexible" and pol == w.default else ""
        kind = lambda k, c: w.m(var, pol, KIND_BASE + 4 * k + c)
        flex = fmt(kind(FLEXIBLE_KIND, 3), 1) if var == "flexible" else "-"
        out.append("| %s | %s`%s`%s | %s | %s | %.0f | %s | %s | %s | %.1f %% | %.0f | %.1f |" % (
            var, mark, pol, mark, fmt(w.m(var, pol, MAKESPAN)), fmt(w.m(var, pol, WAIT)),
            w.m(var, pol, P95)[0], fmt(w.m(var, pol, BSLD), 1), fmt(kind(FIXED_KIND, 3), 1), flex,
            100 * w.m(var, pol, ALLOC)[0], w.m(var, pol, ENERGY)[0], w.m(var, pol, TIMEOUTS)[0]))
    return out


def plot(name, wls, policies, docs, work):
    """One plot per workload: bounded slowdown by policy, a bar per load,
    95 % intervals, log scale."""
    data = os.path.join(work, name + "-bsld.dat")
    with open(data, "w") as f:
        for var, pol in [("fixed", "easy")] + [("flexible", p) for p in policies]:
            cells = [w.m(var, pol, BSLD) if (var, pol) in w.cells else (float("nan"), 0) for w in wls]
            f.write("%s:%s %s\n" % (var, pol, " ".join("%g %g" % c for c in cells)))
    cols = ", ".join("'%s' u %d:%d%s t '%s'" % ("" if i else data, 2 + 2 * i, 3 + 2 * i,
                                                ":xtic(1)" if i == 0 else "", load_name(w.load))
                     for i, w in enumerate(wls))
    script = """set terminal pngcairo size 1000,520 noenhanced
set output '%s'
set title '%s: mean bounded slowdown (95 %% CI over seeds; log scale)'
set grid ytics
set key outside top center horizontal
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.75 border -1
set xtics rotate by -35
set logscale y
set ylabel 'bounded slowdown'
plot %s
""" % (os.path.join(docs, "img", "policies-%s-bsld.png" % name), name, cols)
    try:
        subprocess.run(["gnuplot"], input=script.encode(), check=True)
    except (OSError, subprocess.CalledProcessError):
        print("policies: gnuplot failed for %s; tables only" % name)


def write_pages(by_name, est, args, policies, wls_all, result):
    index = os.path.join(args.docs, "policy-evaluation.md")
    with open(index, "w") as f:
        f.write(open(os.path.join(os.path.dirname(__file__), "policies-intro.md")).read()
                .replace("@SECONDS@", str(args.seconds)).replace("@DEFAULT@", args.default)
                .replace("@RESULT@", result))
        f.write("\n".join(summary_rows(wls_all, est)) + "\n\n")
        f.write("Per workload, every policy and metric: %s.\n" % ", ".join(
            "[%s](policy-evaluation-%s.md)" % (n, n) for n in by_name))
    for name, wls in by_name.items():
        plot(name, wls, policies, args.docs, args.work)
        with open(os.path.join(args.docs, "policy-evaluation-%s.md" % name), "w") as f:
            f.write("# Policies on %s\n\nGenerated by `bench/policies.sh` (docs/policy-evaluation.md "
                    "says how). %s; estimates: %s; the default, `%s`, in bold. Means over the seeds "
                    "± the 95 %% confidence half-width; \"killed\": jobs stopped at their time "
                    "limit.\n\n![%s](img/policies-%s-bsld.png)\n\n" % (
                        name, TRACES.get(name, name), ESTIMATES.get(est[name], est[name]),
                        args.default, name, name))
            for w in wls:
                f.write("## Load %s\n\n" % load_name(w.load))
                f.write("\n".join(detail_rows(w, policies)) + "\n\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--default", required=True)
    ap.add_argument("--traces", type=int, required=True)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--work", required=True)
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    runs, est = load_runs(args.runs)
    policies = sorted({p for (_, _, v, p) in runs if v == "flexible"},
                      key=lambda p: (p == args.default, p))
    names = list(dict.fromkeys(w for (w, _, _, _) in runs))
    by_name = {n: [Workload(runs, n, l, args.default)
                   for l in sorted({l for (w, l, _, _) in runs if w == n}, key=load_order)]
               for n in names}
    wls_all = [w for n in names for w in by_name[n]]
    worst = [max(w.ratios()[i] for w in wls_all) for i in range(4)]
    result = ("RESULT default_policy=%s default_worst_bsld_vs_best=%.3f "
              "default_worst_makespan_vs_best=%.3f default_worst_vs_easy_fixed=%.3f "
              "workloads=%d traces=%d" % (args.default, worst[0], worst[1], max(worst[2], worst[3]),
                                          len(wls_all), args.traces))
    if not args.smoke:
        write_pages(by_name, est, args, policies, wls_all, result)
    else:
        print("\n".join(summary_rows(wls_all, est)))
    print(result)


main()
