#!/usr/bin/env bash
# Two real jobs on overlapping hosts (the testbed's DDP rings of 4,
# TinyCNN, 40 steps, on hosts 0-3 and 2-5; 2 busy cores):
# tests/data/ddp4-ddp4-overlap.tar.xz.  No host is a cut vertex (hosts 2
# and 3 are in both), both move the same bytes a pair, and both rings
# send 3 -> 2 over a connection each: it was one "hierarchical" job of 6,
# asynchronous, no count, no S.  Now two jobs (src/analysis/jobs_overlap.c):
# each job's hosts, ring of 4, its count, period and S as its own log says.
#
# tests/data/ddp3-ddp3-one-period.tar.xz: DDP rings of 3 on hosts 0-2 and
# 1-3, 0.069 and 0.068 s a step (one period, 1.5 % apart), both over
# 2 -> 3.  Their clocks were one group by period: one "star" of 4.  Now the
# two connections of the shared pair, whose steps are apart, cut the group
# by steps (each ring's edges lock to its own), and each job reads the
# shared pair's connection that locks to its own steps.
#
# tests/data/ddp3-ddp3-near-periods.tar.xz: the same two rings, 0.085 and
# 0.077 s a step, each job's period read from its two pairs of its own as
# 0.072 and 0.082 s: both connections of the shared pair 3 -> 2 agreed
# with one job's period, so one ring lost the pair (a "butterfly" of 3,
# S 2.7 times too large) and the other read both (count withheld).  Now
# where the periods give every connection of a pair to one job, each
# connection goes by the lock of its steps to each job's own pair's.
set -u
NAME=jobs_overlap
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-ddp4-overlap.tar.xz ddp4-ddp4-overlap
fixture_unpack ddp3-ddp3-one-period.tar.xz
fixture_unpack ddp3-ddp3-near-periods.tar.xz
fixture_analyze "$run" a
fixture_analyze "$tmp/ddp3-ddp3-one-period" b
fixture_analyze "$tmp/ddp3-ddp3-near-periods" c
/usr/bin/python3 - "$tmp/a.json" "$run/truth.json" "$tmp/b.json" \
	"$tmp/ddp3-ddp3-one-period/truth.json" "$tmp/c.json" \
	"$tmp/ddp3-ddp3-near-periods/truth.json" <<'PY'
import json, sys
fails, said = [], []

def check(a, t):
    """Each job of truth t in analysis a: hosts, ring of its ranks, count,
    period and S; the jobs found, by hosts."""
    want = {tuple(sorted(h["addr"] for h in j["hosts"])): j for j in t["jobs"]}
    got = {tuple(sorted(j["hosts"])): j for j in a["jobs"]}
    if set(got) != set(want):
        fails.append("jobs %s (want %s)" % (sorted(got), sorted(want)))
    for hosts, tj in want.items():
        j = got.get(hosts)
        if j is None:
            continue
        p, it = j["pattern"], j["iterations"]
        if (p["kind"], p["ranks"]) != ("ring", tj["ranks"]):
            fails.append("%s: %s/%s (want ring/%d)" % (hosts, p["kind"], p["ranks"], tj["ranks"]))
        if it["count"] is None or abs(it["count"] - tj["steps"]) > 1:
            fails.append("%s: count %s (want %d +- 1)" % (hosts, it["count"], tj["steps"]))
        per = it["period_s"]
        if per is None or abs(per - tj["mean_step_s"]) > 0.05 * tj["mean_step_s"]:
            fails.append("%s: period %s s (log %.4f s, want within 5 %%)" % (hosts, per, tj["mean_step_s"]))
        S = j["model"]["gradient_bytes"]
        if S is None or abs(S - tj["gradient_bytes"]) > 0.03 * tj["gradient_bytes"]:
            fails.append("%s: S %s (want %d within 3 %%)" % (hosts, S, tj["gradient_bytes"]))
    return got

for an, tr in zip(sys.argv[1::2], sys.argv[2::2]):
    a, t = json.load(open(an)), json.load(open(tr))
    got = check(a, t)
    said.append("; ".join("%s ring/%d %s x %.4f s" % (
        ",".join(h[-1] for h in k), len(k), v["iterations"]["count"], v["iterations"]["period_s"] or 0)
        for k, v in sorted(got.items())))
for f in fails:
    print("jobs_overlap: FAIL:", f)
if not fails:
    print("jobs_overlap: ok:", " | ".join(said))
sys.exit(1 if fails else 0)
PY
