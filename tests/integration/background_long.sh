#!/usr/bin/env bash
# A stream beside a long job: ten minutes of the generated 8-host ring
# (bench/gencap.py job, an iteration a second) with a stream from host 1 to
# host 5, steady at 300 Mbit/s all along, then at 500 Mbit/s 5 s on and
# 25 s off (a checkpoint written every half minute).  Over ten minutes the
# pairs' series keep coarser bins than the hosts' (8 and 2 ms), and the
# job's series fell back to the hosts', whose sending holds the stream: its
# iterations were withheld (a worker's bytes 25 % off its median in 21-22 %
# of them; the stream on and off was busy in a sixth of its windows, too
# few for a steady one).  In a view without the stream the job's series
# are its pairs' at their own bins: every iteration, period 1 s, S the
# generator's, the note; the input's packets and wire bytes exact.
set -u
NAME=background_long
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
for opts in "--stream-mbps 300" "--stream-mbps 500 --stream-on 5 --stream-off 25"; do
	# shellcheck disable=SC2086 # the options are words
	/usr/bin/python3 "$SRCDIR/bench/gencap.py" job "$tmp/j.pcap" --iterations 600 $opts \
		>/dev/null || { echo "$NAME: FAIL: gencap.py $opts"; exit 1; }
	"$DMLSCOPE" analyze "$tmp/j.pcap" --quiet --json "$tmp/a.json" ||
		{ echo "$NAME: FAIL: analyze exit $? ($opts)"; exit 1; }
	/usr/bin/python3 - "$tmp/a.json" "$tmp/j.pcap.json" "$opts" <<'PY' || fails=$((fails + 1))
import json, sys
a, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p, it, g = a["pattern"], a["iterations"], a["model"]["gradient_bytes"]
errs = []
if (p["jobs"], p["kind"], p["ranks"]) != (1, "ring", t["hosts"]):
    errs.append("%d job(s), %s/%s" % (p["jobs"], p["kind"], p["ranks"]))
if it["count"] is None or abs(it["count"] - t["iterations"]) > 0.01 * t["iterations"]:
    errs.append("%s iterations for %d" % (it["count"], t["iterations"]))
if it["period_s"] is None or abs(it["period_s"] / t["period_s"] - 1) > 0.01:
    errs.append("period %s s" % it["period_s"])
if g is None or abs(g / t["gradient_bytes"] - 1) > 0.01:
    errs.append("S %s for %d" % (g, t["gradient_bytes"]))
if not any("steady connection" in n for n in a["notes"]):
    errs.append("no note of the stream: %s" % a["notes"])
if (a["input"]["packets"], a["input"]["wire_bytes"]) != (t["packets"], t["wire_bytes"]):
    errs.append("input %d packets, %d bytes" % (a["input"]["packets"], a["input"]["wire_bytes"]))
print("background_long (%s): %s/%s, %s x %s s, S %s%s" % (sys.argv[3], p["kind"], p["ranks"],
      it["count"], it["period_s"], g, ": FAIL: " + "; ".join(errs) if errs else ""))
sys.exit(1 if errs else 0)
PY
done
exit $((fails > 0))
