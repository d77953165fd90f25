#!/usr/bin/env bash
# Two real jobs on the same hosts: the testbed's two 4-rank PyTorch DDP
# rings (TinyCNN, 300 steps each, 0.116 and 0.119 s a step), every host
# running a rank of both (tests/data/ddp4x2-same-hosts.tar.xz, 66-byte
# snaps).  Jobs are found by their hosts, so this was one ring of 4 whose
# steps and S added both jobs' (298 iterations, S twice a job's), with
# nothing said.  Each job opens its own connections, and theirs keep steps
# of their own: count, period and S were withheld with a note giving both
# periods.  Now two rings of hosts 1-4, each reading its own connections,
# told apart by their steps (periods 2.6 % apart: each connection locks
# to its job's, not to the other's): 300 steps each at their own period.
# One rank's own file (its ranks' mode unknown) stays withheld.  A single job (the tree of
# tree_busy, one connection per pair) keeps its numbers, without such a
# note.  A DDP ring and an Open MPI ring
# of 4 on hosts 0-3 (tests/data/ddp4-mpi4-same-hosts.tar.xz) run in
# opposite directions and share no pair: their pairs' own clocks keep two
# step rates (0.104 and 0.165 s), so it is withheld too, where it was a
# "butterfly" of 198 steps with S three times a job's.  A TinyCNN ring
# and a MobileNetV2 ring of 4 on hosts 0-3
# (tests/data/ddp4-ddp4mob-same-hosts.tar.xz, 0.132 and 0.720 s a step,
# the small job 31 % of a pair's bytes; 300 and 40 steps) mixed into
# ranks out of lockstep: "asynchronous", with each rank's period a blend
# of both, until every split pair's connections were found to keep the
# same two periods; then withheld.  Periods that far apart now make two
# jobs of the same hosts, each reading its own connections: two rings of
# 4, each with its own count, period and S (the rings at 0.116 and 0.119 s
# stay one, withheld).
set -u
NAME=same_hosts
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4x2-same-hosts.tar.xz ddp4x2-same-hosts
fixture_analyze "$run" same
fixture_analyze "$run/worker-2-tcpdump.pcap" rank
fixture_unpack tree8-busy.tar.xz
fixture_analyze "$tmp/pytorch_manual-mobilenetv2-adam-16-gloo-normal-tree" single
fixture_unpack ddp4-mpi4-same-hosts.tar.xz
fixture_analyze "$tmp/ddp4-mpi4-same-hosts" opposite
fixture_unpack ddp4-ddp4mob-same-hosts.tar.xz
fixture_analyze "$tmp/ddp4-ddp4mob-same-hosts" models
/usr/bin/python3 - "$tmp/same.json" "$tmp/single.json" "$tmp/rank.json" "$tmp/opposite.json" \
	"$tmp/models.json" <<'PY'
import json, re, sys
same, single, rank, opposite, models = (json.load(open(f)) for f in sys.argv[1:6])
fails = []
def notes(a, word):
    return [n for n in a["notes"] if word in n]
n = notes(same, "one of two jobs on the same hosts")
hosts = ["198.18.0.%d" % i for i in range(1, 5)]
def twins(a, want):
    """a's jobs: two rings of hosts 1-4, each (steps, s a step, S) of want, by period"""
    got = [(j["iterations"]["count"], j["iterations"]["period_s"], j["model"]["gradient_bytes"],
            sorted(j["hosts"]), j["pattern"]["kind"]) for j in a["jobs"]]
    got.sort(key=lambda g: g[1] or 0)
    return len(got) == 2 and not any(
        c is None or abs(c - n) > 1 or T is None or abs(T - t) > 0.05 * t or S is None
        or abs(S - s) > 0.03 * s or h != hosts or k != "ring"
        for (c, T, S, h, k), (n, t, s) in zip(got, sorted(want, key=lambda w: w[1]))), got
ok, got = twins(same, [(300, 0.116, 547496), (300, 0.119, 547496)])
if not n or not ok:
    fails.append("two TinyCNN rings on the same hosts: %s, notes %s (want two rings of hosts 1-4, "
                 "300 of 0.116 and 0.119 s, S 547 kB, noted)" % (got, same["notes"]))
if not notes(rank, "two jobs on the same hosts") or rank["iterations"]["count"] is not None:
    fails.append("one rank's file: count %s, notes %s (want withheld, noted)" %
                 (rank["iterations"]["count"], rank["notes"]))
o = notes(opposite, "two jobs on the same hosts")
if not o or "data pairs keep 2 steps" not in o[0] or opposite["iterations"]["count"] is not None \
        or opposite["model"]["gradient_bytes"] is not None:
    fails.append("DDP and MPI rings on the same hosts: count %s, S %s, notes %s (want withheld, noted)" %
                 (opposite["iterations"]["count"], opposite["model"]["gradient_bytes"], opposite["notes"]))
m = notes(models, "one of two jobs on the same hosts")
ok, got = twins(models, [(40, 0.720, 8946728), (300, 0.132, 547496)])
if not m or not ok:
    fails.append("TinyCNN and MobileNetV2 rings on the same hosts: %s, notes %s "
                 "(want two rings of hosts 1-4: 40 of 0.720 s, S 8.95 MB; 300 of 0.132 s, "
                 "S 547 kB; noted)" % (got, models["notes"]))
if notes(single, "two jobs") or notes(single, "data connections"):
    fails.append("a single job noted: %s" % single["notes"])
if single["iterations"]["count"] is None:
    fails.append("a single job's count withheld")
for f in fails:
    print("same_hosts: FAIL:", f)
if not fails:
    print("same_hosts: ok: %s; %s; %s" % (n[0], o[0], m[0]))
sys.exit(1 if fails else 0)
PY
