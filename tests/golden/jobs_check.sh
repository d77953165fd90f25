#!/usr/bin/env bash
# jobs_check.py (make validate's per-job checker) on made-up truths and
# analyses: right answers pass, each kind of wrong answer fails its
# criterion, a number withheld (null) from a single file passes, a launcher
# counted as a host fails "found", an analysis without "jobs" (today's top
# level) is read as one job.  Python only, no capture.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "jobs_check: SKIP: no $PY"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$PY" - "$SRCDIR/tests/golden/jobs_check.py" "$tmp" <<'PYEOF'
import copy, io, json, os, subprocess, sys
checker, tmp = sys.argv[1], sys.argv[2]
A = ["198.18.0.%d" % i for i in range(1, 8)]
ring = {"job": 0, "pattern": "ring", "ranks": 3, "steps": 36, "mean_step_s": 0.2,
        "gradient_bytes": 547496, "mode": "synchronous", "server": None,
        "hosts": [{"addr": A[i], "rank": i, "role": "worker",
                   "pcap": "worker-%d-tcpdump.pcap" % i} for i in range(3)]}
gossip = {"job": 1, "pattern": "pairwise", "ranks": 3, "steps": 36, "mean_step_s": None,
          "gradient_bytes": 547496, "mode": "asynchronous", "server": None,
          "rank_mean_step_s": [0.1, 0.15, 0.2], "rank_steps": [36, 36, 36],
          "hosts": [{"addr": A[h], "rank": r, "role": "worker",
                     "pcap": "worker-%d-tcpdump.pcap" % h} for r, h in enumerate([2, 3, 4])]}
truth = dict(ring, jobs=[ring, gossip])
right = {"jobs": [
    {"id": 0, "hosts": A[:3], "pattern": {"kind": "ring", "ranks": 3},
     "iterations": {"period_s": 0.201, "count": 36, "mode": "synchronous"},
     "model": {"gradient_bytes": 548000}},
    {"id": 1, "hosts": A[2:5], "pattern": {"kind": "pairwise", "ranks": 3},
     "iterations": {"period_s": None, "count": None, "mode": "asynchronous",
                    "ranks": [{"addr": A[2 + r], "period_s": p * 1.02, "count": 36,
                               "bytes_per_exchange": 548000}
                              for r, p in enumerate([0.1, 0.15, 0.2])]},
     "model": {"gradient_bytes": None}}]}
fails = 0

def run(name, folder, files=None):
    run_dir, out = os.path.join(tmp, name, "run"), os.path.join(tmp, name, "out")
    os.makedirs(run_dir); os.makedirs(out)
    json.dump(truth, open(os.path.join(run_dir, "truth.json"), "w"))
    json.dump(folder, open(os.path.join(out, "folder.json"), "w"))
    for f, a in (files or {}).items():
        json.dump(a, open(os.path.join(out, f + ".json"), "w"))
    r = subprocess.run(["/usr/bin/python3", checker, "--jobs", run_dir, out],
                       capture_output=True, text=True)
    return r.returncode, r.stdout

def expect(what, got, want_rc, want_text=None):
    global fails
    rc, out = got
    good = rc == want_rc and (want_text is None or want_text in out)
    print(("ok   " if good else "FAIL ") + what)
    if not good:
        print(out); fails += 1

expect("right answers pass", run("right", right), 0)
w = copy.deepcopy(right); w["jobs"][0]["iterations"]["period_s"] = 0.21
expect("period +5 % fails", run("period", w), 1, "FAIL +5.0%")
w = copy.deepcopy(right); w["jobs"][0]["iterations"]["count"] = 38
expect("count +2 fails", run("count", w), 1, "FAIL +2")
w = copy.deepcopy(right); w["jobs"][1]["iterations"]["mode"] = "synchronous"
expect("wrong mode fails", run("mode", w), 1, "FAIL synchronous")
w = copy.deepcopy(right); w["jobs"][1]["iterations"]["period_s"] = 0.05
expect("a job-wide period for an async job fails", run("asyncperiod", w), 1, "FAIL 0.050s")
w = copy.deepcopy(right); w["jobs"][1]["iterations"]["ranks"][1]["period_s"] = 0.16
expect("an async rank 6.7 % off fails", run("rank", w), 1, "FAIL 198.18.0.4 +6.7%")
w = copy.deepcopy(right); w["jobs"][0]["hosts"] = A[:3] + ["198.18.1.1"]
expect("a launcher among the hosts fails", run("launcher", w), 1, "FAIL extra 198.18.1.1")
w = copy.deepcopy(right); w["jobs"] = w["jobs"][:1]
expect("a job not found fails", run("missing", w), 1, "FAIL not found")
w = copy.deepcopy(right); w["jobs"][0]["model"]["gradient_bytes"] = 600000
expect("S +9.6 % fails", run("size", w), 1, "FAIL +9.6%")
one = {"jobs": [{"id": 0, "hosts": A[:2], "pattern": {"kind": "unknown", "ranks": None},
                 "iterations": {"period_s": 0.2, "count": None, "mode": "unknown"},
                 "model": {"gradient_bytes": None}, "notes": ["one file"]}]}
expect("a single file withholding numbers passes", run("withheld", right,
       {"worker-0-tcpdump.pcap": one}), 0, "null")
bad = copy.deepcopy(one); bad["jobs"][0]["model"]["gradient_bytes"] = 100000
expect("a single file with a wrong S fails", run("filewrong", right,
       {"worker-0-tcpdump.pcap": bad}), 1, "FAIL -81.7%")
legacy = {"pattern": {"kind": "ring", "ranks": 3, "members": A[:3]},
          "iterations": {"period_s": 0.2, "count": 36}, "model": {"gradient_bytes": 547496},
          "hosts": [{"addr": a, "role": "worker"} for a in A[:3]]}
rc, out = run("legacy", legacy)
expect("an analysis without jobs is read as one job (mode missing fails)",
       (rc, out), 1, "FAIL null")
sys.exit(1 if fails else 0)
PYEOF
