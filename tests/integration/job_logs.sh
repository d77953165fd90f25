#!/usr/bin/env bash
# Runs of several jobs, each job's train_history.log in job-<k>/ (the
# testbed's layout): each log is the train_log of the job whose steps its
# Batch rows keep, and the job is the one truth.json gives that log.
#   ddp4-ddp4mob-same-hosts  a TinyCNN and a MobileNetV2 ring on the same 4
#                            hosts (0.13 and 0.72 s a step)
#   ddp4-ddp4-overlap        rings on hosts 0-3 and 2-5
#   ddp3-ddp3-one-period     rings of 3 on hosts 0-2 and 1-3, one period
#                            (0.085 and 0.087 s): told by their steps
# The text gives each job's "train log:" line.  Then the same run with
# one log's times moved by 1000 s (it keeps no job's steps: a note names
# it, no job takes it) and with one log malformed (the one-line error
# naming it, exit 1, the other log still read).  Before, no job of such a
# run had a train_log.
set -u
NAME=job_logs
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run ddp4-ddp4mob-same-hosts.tar.xz ddp4-ddp4mob-same-hosts
fixture_unpack ddp4-ddp4-overlap.tar.xz
fixture_unpack ddp3-ddp3-one-period.tar.xz
for r in ddp4-ddp4mob-same-hosts ddp4-ddp4-overlap ddp3-ddp3-one-period; do
	fixture_analyze "$tmp/$r" "$r"
done

check() { # check JSON RUN [KEEPS...]: the jobs holding each log k of KEEPS
	/usr/bin/python3 - "$@" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2] + "/truth.json"))
keeps = [int(k) for k in sys.argv[3:]]
name = sys.argv[2].rstrip("/").split("/")[-1]
took = {}
for j in d["jobs"]:
    m = [re.match(r"train log job-(\d+)/train_history.log: its (\d+) Batch rows", n) for n in j["notes"]]
    m = [x for x in m if x]
    if not m:
        if "train_log" in j:
            sys.exit("%s: FAIL: job %s has a train_log but no note naming it" % (name, j["hosts"]))
        continue
    k = int(m[0].group(1))
    tj = t["jobs"][k]
    want = sorted(h["addr"] for h in tj["hosts"])
    tl = j.get("train_log")
    if sorted(j["hosts"]) != want or tl is None or tl["steps"] != tj["steps"]:
        sys.exit("%s: FAIL: job-%d's log went to %s (train_log %s), truth: %s, %d steps"
                 % (name, k, j["hosts"], tl and tl["steps"], want, tj["steps"]))
    if not (abs(tl["period_error"]) <= 0.05 and tl["mb_per_step"] > 0):
        sys.exit("%s: FAIL: job-%d: period_error %s, mb_per_step %s"
                 % (name, k, tl["period_error"], tl["mb_per_step"]))
    took[k] = j
if sorted(took) != sorted(keeps):
    sys.exit("%s: FAIL: logs taken %s, want %s" % (name, sorted(took), sorted(keeps)))
top = d["jobs"][0]
if ("train_log" in top) != ("train_log" in d) or ("train_log" in d and d["train_log"] != top["train_log"]):
    sys.exit("%s: FAIL: the top level's train_log is not jobs[0]'s" % name)
for k in set(range(len(t["jobs"]))) - set(keeps):
    if not any("train log job-%d/train_history.log keeps" % k in n for n in d["notes"]):
        sys.exit("%s: FAIL: no note says job-%d's log was not used" % (name, k))
print("%s: ok: logs %s each on their job%s" % (name, sorted(took),
      "".join("; job-%d's not used (noted)" % k for k in set(range(len(t["jobs"]))) - set(keeps))))
PY
}
for r in ddp4-ddp4mob-same-hosts ddp4-ddp4-overlap ddp3-ddp3-one-period; do
	check "$tmp/$r.json" "$tmp/$r" 0 1 || exit 1
done

# the text shows each job's log line
r=ddp4-ddp4-overlap
n=$("$DMLSCOPE" analyze "$tmp/$r" | grep -c '^train log: [0-9]* steps, mean step')
[ "$n" = 2 ] || { echo "$NAME: FAIL: $r: $n 'train log:' lines in the text, want one per job (2)"; exit 1; }

# a log an hour away keeps no job's steps
/usr/bin/python3 - "$tmp/$r/job-1/train_history.log" <<'PY' || exit 1
import sys
p = sys.argv[1]
out = []
for i, line in enumerate(open(p)):
    f = line.rstrip("\n").split(",")
    if i and len(f) > 2:
        f[2] = "%.6f" % (float(f[2]) + 1000)
    out.append(",".join(f))
open(p, "w").write("\n".join(out) + "\n")
PY
fixture_analyze "$tmp/$r" moved
check "$tmp/moved.json" "$tmp/$r" 0 || exit 1

# a malformed log: its error, exit 1, the other still read
echo "Batch,oops" >>"$tmp/$r/job-1/train_history.log"
"$DMLSCOPE" analyze "$tmp/$r" --quiet --json "$tmp/bad.json" 2>"$tmp/err"
rc=$?
if [ "$rc" != 1 ] || ! grep -q "job-1/train_history.log" "$tmp/err" || [ "$(wc -l <"$tmp/err")" != 1 ]; then
	echo "$NAME: FAIL: malformed job-1 log: exit $rc, stderr: $(cat "$tmp/err")"
	exit 1
fi
/usr/bin/python3 - "$tmp/bad.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
n = sum("train_log" in j for j in d["jobs"])
if n != 1:
    sys.exit("job_logs: FAIL: with job-1's log malformed, %d jobs have a train_log (want job-0's)" % n)
PY
echo "$NAME: ok: a log moved by 1000 s is not used (noted); a malformed one: exit 1, $(cat "$tmp/err")"
