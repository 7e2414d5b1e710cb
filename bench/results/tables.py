"""Markdown tables from an `ixjit bench --json` file, for the docs: every
number in docs/*.md that comes from a benchmark is pasted from this script's
output, so it can be regenerated from the committed JSON.

usage: tables.py FILE.json            the suite: one row per case
       tables.py FILE.json --micro    cache latencies and division sequences
       tables.py FILE.json --cases a,b,c   only those cases, in that order
       tables.py FILE.json --against OLD.json   a round against an earlier one: each run's
                                      ratios to its own ceiling and peers, before -> after"""
import json
import statistics
import sys


def load(path):
    d = json.load(open(path))
    runs = {}
    for e in d["benchmarks"]:
        if e["run_type"] != "iteration":
            continue
        r = runs.setdefault(e["run_name"], {"e": e, "t": [], "error": e.get("error_message")})
        if not e.get("error_occurred"):
            r["t"].append(e["real_time"])
    return d["context"], runs


def med(runs, name):
    r = runs.get(name)
    return statistics.median(r["t"]) if r and r["t"] else None


def gbps(runs, name):
    r = runs.get(name)
    t = med(runs, name)
    if not t:
        return None
    scale = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1}[r["e"]["time_unit"]]
    return r["e"]["bytes"] / (t * scale) / 1e9


def fmt(v, digits=2):
    return "–" if v is None else "%.*f" % (digits, v)


def suite_table(ctx, runs, only):
    threads = [int(t) for t in ctx["threads"].split(",")]
    cases = []
    for name, r in runs.items():
        e = r["e"]
        if e.get("method") == "ixjit" and e["case"] not in cases:
            cases.append(e["case"])
    if only:
        cases = [c for c in only if c in cases]
    top = threads[-1]
    head = ["case", "strategy", "MiB"] + ["ixjit ×%d" % t for t in threads]
    head += ["compile ms", "ceiling ×%d" % top, "/ceiling", "generic ×%d" % top, "/generic", "best peer ×%d" % top, "/peer"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for c in cases:
        ix = [gbps(runs, "%s/ixjit/threads:%d" % (c, t)) for t in threads]
        first = runs["%s/ixjit/threads:%d" % (c, threads[0])]["e"]
        fill = ("%s/memset/threads:%d" % (c, top)) in runs
        ceil = max([v for v in (gbps(runs, "%s/%s/threads:%d" % (c, m, top))
                                for m in (("memset", "nt_fill") if fill else ("memcpy", "nt_copy"))) if v] or [0]) or None
        gen = gbps(runs, "%s/generic/threads:%d" % (c, top))
        peers = [(gbps(runs, "%s/%s/threads:%d" % (c, p, top)), p) for p in ("numpy", "torch", "onednn")]
        peers = [p for p in peers if p[0]]
        peer = max(peers) if peers else (None, "")
        mib = first["bytes"] / (1 if fill else 2) / 2**20
        row = [c, first.get("strategy", ""), "%.1f" % mib] + [fmt(v) for v in ix]
        row += [fmt(first.get("compile_ms"), 1), fmt(ceil), fmt(ix[-1] / ceil if ix[-1] and ceil else None),
                fmt(gen), fmt(ix[-1] / gen if ix[-1] and gen else None),
                "%s %s" % (fmt(peer[0]), peer[1]) if peer[0] else "–",
                fmt(ix[-1] / peer[0] if ix[-1] and peer[0] else None)]
        print("| " + " | ".join(row) + " |")


def ceiling(runs, c, t):
    v = [gbps(runs, "%s/%s/threads:%d" % (c, m, t)) for m in ("memcpy", "nt_copy", "memset", "nt_fill")]
    v = [x for x in v if x]
    return max(v) if v else None


def ratio(a, b):
    return a / b if a and b else None


def against_table(runs, old, only):
    """Ratios to each run's own ceiling (x1, x2), the 2-thread speedup, the
    best peer at 1 and at 2 threads and the compile time, earlier run -> this one."""
    cases = []
    for name, r in runs.items():
        if r["e"].get("method") == "ixjit" and r["e"]["case"] not in cases:
            cases.append(r["e"]["case"])
    if only:
        cases = [c for c in only if c in cases]
    print("| case | strategy before → after | /ceiling ×1 before → after | /ceiling ×2 before → after "
          "| ×2 / ×1 after | /best peer ×1 after | /best peer ×2 after | compile ms before → after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in cases:
        first = runs["%s/ixjit/threads:1" % c]["e"]
        was = old.get("%s/ixjit/threads:1" % c, {}).get("e", {})
        sa, sb = was.get("strategy", "?"), first.get("strategy", "?")
        x1 = [ratio(gbps(r, "%s/ixjit/threads:1" % c), ceiling(r, c, 1)) for r in (old, runs)]
        x2 = [ratio(gbps(r, "%s/ixjit/threads:2" % c), ceiling(r, c, 2)) for r in (old, runs)]
        def best_peer(t):
            v = [gbps(runs, "%s/%s/threads:%d" % (c, p, t)) for p in ("numpy", "torch", "onednn")]
            v = [x for x in v if x]
            return max(v) if v else None
        row = [c, sb if sa == sb else "%s → %s" % (sa, sb), "%s → %s" % (fmt(x1[0]), fmt(x1[1])),
               "%s → %s" % (fmt(x2[0]), fmt(x2[1])),
               fmt(ratio(gbps(runs, "%s/ixjit/threads:2" % c), gbps(runs, "%s/ixjit/threads:1" % c))),
               fmt(ratio(gbps(runs, "%s/ixjit/threads:1" % c), best_peer(1))),
               fmt(ratio(gbps(runs, "%s/ixjit/threads:2" % c), best_peer(2))),
               "%s → %s" % (fmt(was.get("compile_ms"), 1), fmt(first.get("compile_ms"), 1))]
        print("| " + " | ".join(row) + " |")


def micro_table(runs):
    print("| measurement | median | min | max | unit |")
    print("| --- | --- | --- | --- | --- |")
    for name, r in runs.items():
        if name.startswith("divmod_") or not r["t"] or r["e"].get("bytes", 0) > 0:
            continue
        print("| %s | %.3f | %.3f | %.3f | %s |" % (name, statistics.median(r["t"]), min(r["t"]), max(r["t"]),
                                                 r["e"]["time_unit"]))
    print()
    print("| divisor, bound, form | hw ns/op | magic ns/op | ratio |")
    print("| --- | --- | --- | --- |")
    for name, r in runs.items():
        e = r["e"]
        if e.get("method") != "hw_div":
            continue
        hw = med(runs, name)
        mg = med(runs, name.replace("/hw_div/", "/magic/"))
        label = e["case"].replace("divmod_", "").replace("_", " ")
        print("| %s | %.3f | %.3f | %.2f× |" % (label, hw, mg, hw / mg))


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    ctx, runs = load(args[0])
    only = None
    if "--cases" in args:
        only = args[args.index("--cases") + 1].split(",")
    print("<!-- from %s: `%s` (commit %s, %s) -->" % (args[0], ctx["command"], ctx["commit"], ctx["date"]))
    if "--micro" in args:
        micro_table(runs)
    elif "--against" in args:
        octx, old = load(args[args.index("--against") + 1])
        print("<!-- against %s (commit %s, %s) -->" % (args[args.index("--against") + 1], octx["commit"], octx["date"]))
        against_table(runs, old, only)
    else:
        suite_table(ctx, runs, only)


main()
