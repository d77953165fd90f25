#!/usr/bin/env bash
# One rank's own capture of Rabenseifner's all-reduce: the testbed's
# mpi4py Allreduce over Open MPI (coll_tuned algorithm 6), tinycnn, 36
# steps, on 4 ranks (tests/data/mpi4-rab.tar.xz) and on 8
# (tests/data/mpi8-rab.tar.xz).  A rank sends S/2, S/4, ... to its
# partners at distance N/2, N/4, ... (the reduce-scatter), then the same
# again in the reverse order (the all-gather), then computes.  Its edge to
# one partner carries two bursts a step, its sending two halves of the
# same bytes to the same peers:
#   - rank 1 of 4: its two edges read as two jobs, the heavier one 72 steps
#     of half the period (the pair's clock counting both bursts);
#   - 6 ranks of 8: "one sender to many, each at a clock of its own",
#     kind, period and S withheld (two edges each counting two bursts a
#     step, at one period, their ends half a step apart in turn), and 2
#     more as two jobs, one of 72 steps.
# Now each file is one job of its host and its partners, 36 steps at the
# log's mean step (within 3 %), and the folders read butterflies of 4 and
# 8 with every step counted.
set -u
NAME=rabenseifner_rank
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run mpi4-rab.tar.xz mpi4-rab
fixture_unpack mpi8-rab.tar.xz
for n in 4 8; do
	fixture_analyze "$tmp/mpi$n-rab" "folder$n"
	fixture_analyze_ranks "$tmp/mpi$n-rab" "r$n-" "$n"
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
fails, right = [], 0
def load(name):
    return json.load(open("%s/%s.json" % (tmp, name)))
for n in (4, 8):
    truth = json.load(open("%s/mpi%d-rab/truth.json" % (tmp, n)))
    steps, step_s = truth["steps"], truth["log_mean_step_s"]
    hosts = {h["rank"]: h["addr"] for h in truth["hosts"]}
    def check(what, it):
        c, p = it["count"], it["period_s"]
        if c is None or abs(c - steps) > 1:
            fails.append("%s: %s steps (want %d within 1)" % (what, c, steps))
            return 0
        if p is None or abs(p / step_s - 1) > 0.03:
            fails.append("%s: period %s s (want %.4f within 3 %%)" % (what, p, step_s))
            return 0
        return 1
    folder = load("folder%d" % n)
    if (folder["pattern"]["kind"], folder["pattern"]["ranks"]) != ("butterfly", n):
        fails.append("folder of %d: %s/%s (want butterfly/%d)" % (
            n, folder["pattern"]["kind"], folder["pattern"]["ranks"], n))
    check("folder of %d" % n, folder["iterations"])
    for w in range(n):
        a = load("r%d-%d" % (n, w))
        what = "rank %d of %d" % (w, n)
        mine = [j for j in a["jobs"] if hosts[w] in j["hosts"]]
        if len(mine) != 1:
            fails.append("%s: its host in %d jobs (want 1): %s" % (
                what, len(mine), [j["hosts"] for j in mine]))
            continue
        right += check(what, mine[0]["iterations"])
for f in fails:
    print("rabenseifner_rank: FAIL:", f)
print("rabenseifner_rank: %s (%d of 12 rank files right)" % ("FAIL" if fails else "ok", right))
sys.exit(1 if fails else 0)
PY
