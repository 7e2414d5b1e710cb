"""Markdown tables from an `ixjit bench --json` file, for the docs: every
number in docs/*.md that comes from a benchmark is pasted from this script's
output, so it can be regenerated from the committed JSON.

usage: tables.py FILE.json            the suite: one row per case
       tables.py FILE.json --micro    cache latencies and division sequences
       tables.py FILE.json --cases a,b,c   only those cases, in that order"""
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
    else:
        suite_table(ctx, runs, only)


main()
