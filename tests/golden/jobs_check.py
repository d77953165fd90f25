#!/usr/bin/python3
"""Every job of every testbed run against its truth (make validate).

usage: jobs_check.py --jobs [--tsv FILE] RUN_DIR OUT_DIR [RUN_DIR OUT_DIR ...]

OUT_DIR holds folder.json (`dmlscope analyze RUN_DIR --json`) and, for
each capture file F of the run analyzed alone, F.json.  The truth is the
run's truth.json: its "jobs" array (one entry per job, each in the shape of
a single-job truth), or the whole truth as the only job (older runs).

The analysis's jobs are its "jobs" array (contract of issue 9: id, hosts,
pattern, iterations {period_s, count, mode, ranks [{addr, period_s, count,
bytes_per_exchange}]}, model {gradient_bytes}, notes), or, when it has
none, its top level as one job (hosts: pattern.members).  Each truth job is
matched to a found job, one to one, the pairs sharing most hosts first (in a
single file's view: among the found jobs holding that file's host).

Criteria per job (a row each; "ok", "FAIL ..." or "-" not applicable):
  found   whole folder: a found job with exactly the truth's hosts (no
          launcher, no control peer); a single file: a job holding the
          file's host whose hosts are all the truth job's
  kind    pattern.kind == truth pattern; ranks == truth ranks ("allreduce",
          an Open MPI job whose algorithm Open MPI chose: any all-reduce
          shape, ring, butterfly or tree, not a star or pairs)
  period  synchronous: iterations.period_s within 3 % of the log's mean
          step, defined as period_s is (steady_step: from 4 steps on, the
          first interval, the one-off start-up, is left out); asynchronous:
          null (no job-wide step; a single file may instead give its own
          rank's step, within 5 %)
  S       model.gradient_bytes within 3 % of the truth's gradient bytes
          (asynchronous: or the ranks' bytes_per_exchange, median)
  count   synchronous: iterations.count within one step of the steps logged
  mode    iterations.mode == truth mode (synchronous|asynchronous)
  ranks   asynchronous: every non-server rank's period_s within 5 % of
          that rank's own mean step (steady_step), its count within one of
          its steps
In a single file's view a number may be withheld (null, "unknown"): that
counts as right ("null" in the table); a wrong number counts as wrong.
Exits 1 when any criterion fails, 2 on bad usage.
"""
import json
import os
import sys

TOL = 0.03
TOL_RANK = 0.05
STEADY_FROM = 4  # as iterations.period_s (doc/analysis.md, "Iterations")
# what an all-reduce whose algorithm the library chose may draw on the wire
ALLREDUCE_SHAPES = ("ring", "butterfly", "tree")
CRITERIA = ["found", "kind", "period", "S", "count", "mode", "ranks"]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def truth_jobs(t):
    return t.get("jobs") or [dict(t, job=0)]


def found_jobs(a):
    if not a:
        return []
    if a.get("jobs"):
        return a["jobs"]
    p = a.get("pattern") or {}
    hosts = p.get("members") or [h["addr"] for h in a.get("hosts", [])
                                 if h.get("role") in ("worker", "server")]
    return [{"id": 0, "hosts": hosts, "pattern": p, "iterations": a.get("iterations") or {},
             "model": a.get("model") or {}, "notes": [], "_top": True}]


def steady_step(times, fallback=None):
    """The log's mean step defined as the analysis defines period_s: from
    STEADY_FROM steps on, the first interval (the job's one-off start-up:
    optimizer state, DDP's bucket rebuild) is left out.  fallback: a mean
    given without the times (an older truth.json)."""
    if not times or len(times) < 2:
        return fallback
    k0 = 1 if len(times) >= STEADY_FROM else 0
    return (times[-1] - times[k0]) / (len(times) - 1 - k0)


def job_step(tj):
    return steady_step(tj.get("step_times"), tj.get("mean_step_s"))


def rank_step(tj, r):
    times = tj.get("rank_step_times")
    return steady_step(times[r] if times else None, tj["rank_mean_step_s"][r])


def rel(got, want):
    if got is None or not want:
        return None
    return (got - want) / want


def pct(x):
    return "null" if x is None else "%+.1f%%" % (100 * x)


class Verdicts:
    """One row's verdicts; partial views accept withheld numbers."""

    def __init__(self, partial):
        self.partial = partial
        self.v = {c: "-" for c in CRITERIA}

    def withheld(self, c, got):
        if got is None or got == "unknown":
            self.v[c] = "null" if self.partial else "FAIL null"
            return True
        return False

    def judge(self, c, good, detail):
        self.v[c] = ("ok " + detail if good else "FAIL " + detail).strip()

    def ok(self):
        return not any(x.startswith("FAIL") for x in self.v.values())


def match(tjobs, found, own=None):
    """{truth job index: found job}: one to one, the pairs sharing most
    hosts first (in a single file's view only found jobs holding `own`)."""
    pairs = []
    for i, tj in enumerate(tjobs):
        want = set(h["addr"] for h in tj["hosts"])
        for k, fj in enumerate(found):
            hs = set(fj.get("hosts") or [])
            if own and own not in hs:
                continue
            if hs & want:
                pairs.append((-len(hs & want), len(hs ^ want), i, k))
    got, used = {}, set()
    for _, _, i, k in sorted(pairs):
        if i not in got and k not in used:
            got[i] = found[k]
            used.add(k)
    return got


def judge_job(tj, fj, partial, own=None):
    v = Verdicts(partial)
    want = set(h["addr"] for h in tj["hosts"])
    if fj is None:
        v.v["found"] = "FAIL not found"
        for c in CRITERIA[1:]:
            v.v[c] = "-"
        return v, "-"
    hs = set(fj.get("hosts") or [])
    extra, missing = sorted(hs - want), sorted(want - hs)
    if partial:
        v.judge("found", not extra, "extra " + " ".join(extra) if extra else "")
    else:
        v.judge("found", not extra and not missing,
                ("extra " + " ".join(extra) + " " if extra else "")
                + ("missing " + " ".join(missing) if missing else ""))
    p, it, m = fj.get("pattern") or {}, fj.get("iterations") or {}, fj.get("model") or {}
    kind, ranks = p.get("kind"), p.get("ranks")
    kind_ok = (kind == tj["pattern"] or (partial and kind in (None, "unknown"))
               or (tj["pattern"] == "allreduce" and kind in ALLREDUCE_SHAPES))
    ranks_ok = ranks == tj["ranks"] or (partial and ranks is None)
    if partial and kind in (None, "unknown") and ranks is None:
        v.v["kind"] = "null"
    else:
        v.judge("kind", kind_ok and ranks_ok, f"{kind}/{ranks}")
    if not good_roles(tj, p):
        v.v["kind"] = f"FAIL hubs {p.get('hubs')}"
    asyn = tj.get("mode") == "asynchronous"
    mode = it.get("mode")
    if not v.withheld("mode", mode):
        v.judge("mode", mode == tj.get("mode", "synchronous"), mode)
    period = it.get("period_s")
    if asyn:
        # no job-wide step; one file alone may give its own rank's step
        mine = own_rank_step(tj, own) if partial else None
        e = rel(period, mine)
        v.judge("period", period is None or (e is not None and abs(e) <= TOL_RANK),
                "null" if period is None else
                "%.3fs" % period + ("" if e is None else " own rank " + pct(e)))
    elif not v.withheld("period", period):
        e = rel(period, job_step(tj))
        v.judge("period", e is not None and abs(e) <= TOL, pct(e))
    judge_size(v, tj, m, it, asyn, own if partial else None)
    if not asyn:
        cnt = it.get("count")
        if not v.withheld("count", cnt):
            v.judge("count", abs(cnt - tj["steps"]) <= 1, "%+d" % (cnt - tj["steps"]))
    else:
        judge_ranks(v, tj, it, own)
    found = "%s/%s %s %s" % (kind, ranks, "-" if period is None else "%.3fs" % period,
                             "-" if m.get("gradient_bytes") is None
                             else "%.2fMB" % (m["gradient_bytes"] / 1e6))
    return v, found


def own_rank_step(tj, own):
    """An asynchronous job's rank on host `own`: its mean step (None: a
    server, which has no step of its own)."""
    for h in tj["hosts"]:
        if h["addr"] == own and h["role"] != "server":
            return rank_step(tj, h["rank"])
    return None


def good_roles(tj, p):
    """A server in the truth must be the found star's hub, and the other way."""
    if tj["pattern"] != "star" or p.get("kind") != "star":
        return True
    hubs = p.get("hubs")
    servers = [h["addr"] for h in tj["hosts"] if h.get("role") == "server"]
    return hubs is None or sorted(hubs) == sorted(servers or ([tj["server"]] if tj.get("server") else []))


def judge_size(v, tj, m, it, asyn, own=None):
    got = m.get("gradient_bytes")
    if got is None and asyn:
        per = sorted(r["bytes_per_exchange"] for r in it.get("ranks") or []
                     if r.get("bytes_per_exchange") is not None)
        got = per[len(per) // 2] if per else None
    plan = tj.get("expected_pair_bytes_per_step")
    if got is None and tj["pattern"] == "hierarchical" and plan:
        # a single file sees its own rank's sending: that rank's plan
        ranks = [h["rank"] for h in tj["hosts"] if h["addr"] == own] if own else None
        e = rel(m.get("observed_iteration_bytes"),
                sum(x[2] for x in plan if ranks is None or x[0] in ranks))
        if e is not None:  # S not defined for it; the plan's bytes instead
            v.judge("S", abs(e) <= TOL, "bytes/it " + pct(e))
            return
    if not v.withheld("S", got):
        e = rel(got, tj["gradient_bytes"])
        v.judge("S", abs(e) <= TOL, pct(e))


def judge_ranks(v, tj, it, own):
    found = {r.get("addr"): r for r in it.get("ranks") or []}
    servers = {h["addr"] for h in tj["hosts"] if h["role"] == "server"}
    bad, worst, seen = [], 0.0, 0
    for h in tj["hosts"]:
        a, r = h["addr"], h["rank"]
        if a in servers or (own and a != own):
            continue
        want, steps = rank_step(tj, r), tj["rank_steps"][r]
        fr = found.get(a)
        if fr is None or fr.get("period_s") is None:
            if not v.partial:
                bad.append(f"{a} null")
            continue
        seen += 1
        e = rel(fr["period_s"], want)
        worst = max(worst, abs(e))
        if abs(e) > TOL_RANK:
            bad.append(f"{a} {pct(e)}")
        c = fr.get("count")
        if c is not None and abs(c - steps) > 1:
            bad.append(f"{a} count {c - steps:+d}")
    if bad:
        v.v["ranks"] = "FAIL " + ", ".join(bad[:3]) + (" ..." if len(bad) > 3 else "")
    elif seen:
        v.v["ranks"] = "ok max %.1f%%" % (100 * worst)
    else:
        v.v["ranks"] = "null"


def truth_text(tj):
    if tj.get("mode") == "asynchronous":
        st = "async " + "/".join("-" if x is None else "%.3f" % rank_step(tj, r)
                                 for r, x in enumerate(tj["rank_mean_step_s"]))
    else:
        st = "%.3fs" % (job_step(tj) or 0)
    return "%s/%d %s %.2fMB" % (tj["pattern"], tj["ranks"], st, tj["gradient_bytes"] / 1e6)


def check_run(run, outdir, name):
    """Rows [run, view, job, truth, found, verdicts...] and ok."""
    t = load(os.path.join(run, "truth.json"))
    tjobs = truth_jobs(t)
    rows, ok = [], True
    a = load(os.path.join(outdir, "folder.json"))
    found = found_jobs(a)
    m = match(tjobs, found)
    for i, tj in enumerate(tjobs):
        v, ftxt = judge_job(tj, m.get(i), partial=False)
        if a is None:
            v.v["found"] = "FAIL no analysis"
        rows.append([name, "folder", str(tj.get("job", 0)), truth_text(tj), ftxt]
                    + [v.v[c] for c in CRITERIA])
        ok = ok and v.ok()
    # each capture file alone: the jobs its host takes part in
    caps = sorted(f[:-5] for f in os.listdir(outdir) if f.endswith(".json") and
                  f != "folder.json")
    for cap in caps:
        a1 = load(os.path.join(outdir, cap + ".json"))
        f1 = found_jobs(a1)
        for i, tj in enumerate(tjobs):
            own = [h["addr"] for h in tj["hosts"] if h.get("pcap") == cap]
            if not own:
                continue
            mine = [t for t in tjobs if own[0] in [h["addr"] for h in t["hosts"]]]
            fj = match(mine, f1, own[0]).get(mine.index(tj))
            v, ftxt = judge_job(tj, fj, partial=True, own=own[0])
            if a1 is None:
                v.v["found"] = "FAIL no analysis"
            rows.append([name, cap.replace("-tcpdump.pcap", ""), str(tj.get("job", 0)),
                         truth_text(tj), ftxt] + [v.v[c] for c in CRITERIA])
            ok = ok and v.ok()
    return rows, ok


def short_names(runs):
    parts = [os.path.abspath(r).rstrip("/").split("/") for r in runs]
    k = 0
    while all(len(p) > k + 1 for p in parts) and len({p[k] for p in parts}) == 1:
        k += 1
    return ["/".join(p[k:]) for p in parts]


def main(argv):
    args = [x for x in argv[1:] if x != "--jobs"]
    tsv = None
    if "--tsv" in args:  # the rows, tab-separated, for comparing two runs
        i = args.index("--tsv")
        tsv = args[i + 1] if i + 1 < len(args) else None
        args = args[:i] + args[i + 2:]
    if not args or len(args) % 2 or (tsv is None and "--tsv" in argv):
        print(__doc__, file=sys.stderr)
        return 2
    runs, outs = args[0::2], args[1::2]
    names = short_names(runs) if len(runs) > 1 else [os.path.basename(runs[0].rstrip("/"))]
    head = ["run", "view", "job", "truth", "found"] + CRITERIA
    rows, ok = [], True
    for run, out, name in zip(runs, outs, names):
        r, good = check_run(run, out, name)
        rows += r
        ok = ok and good
    if tsv:
        with open(tsv, "w") as f:
            f.writelines("\t".join(r) + "\n" for r in [head] + rows)
    w = [max(len(r[c]) for r in rows + [head]) for c in range(len(head))]
    for r in [head] + rows:
        print("  ".join(r[c].ljust(w[c]) for c in range(len(head))).rstrip())
    print()
    for view in ("folder", "file"):
        sel = [r for r in rows if (r[1] == "folder") == (view == "folder")]
        if not sel:
            continue
        tally = []
        for i, c in enumerate(CRITERIA):
            col = [r[5 + i] for r in sel if r[5 + i] != "-"]
            if col:
                tally.append("%s %d/%d" % (c, sum(not x.startswith("FAIL") for x in col),
                                           len(col)))
        print("%-6s %3d rows; right%s: %s" % (
            view, len(sel), " or withheld" if view == "file" else "", ", ".join(tally)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
