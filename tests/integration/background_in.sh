#!/usr/bin/env bash
# A stream into a rank, read from that rank's own capture (tcpdump src):
# the capture holds only the rank's acknowledgements of it, a pair without
# payload whose reverse is not there, busy as a stream is.  Counted as a
# contact, they made the stream's sender a rank of the view:
#   tree6-store-in  a tree of 6, rank 3 (198.18.0.3) reading 200 Mbit/s
#                   from a storage host of no job (.7): unknown/7;
#   ddp4x2-bg-in    two DDP rings of 4 sharing two hosts, rank .6 of the
#                   second reading 150 Mbit/s from .1, a rank of the
#                   first only (and refusing its first attempt): the
#                   second ring read with .1, unknown/5.
# Each must read the ranks of its job only, every step at the log's
# period, with a note of the acknowledgements left out.
set -u
NAME=background_in
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run stream-in-ranks.tar.xz tree6-store-in
fails=0
for case in tree6-store-in/worker-2:198.18.0.3 ddp4x2-bg-in/worker-5:198.18.0.6; do
	f=${case%%:*} me=${case#*:}
	fixture_analyze "$tmp/$f-tcpdump.pcap" "$(dirname "$f")"
	/usr/bin/python3 - "$tmp/$(dirname "$f").json" "$tmp/$(dirname "$f")/truth.json" "$me" <<'PY' ||
import json, sys
a, t, me = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
job = next(j for j in t["jobs"] if me in [h["addr"] for h in j["hosts"]])
ranks = sorted(h["addr"] for h in job["hosts"])
views = [j for j in a.get("jobs") or [a] if me in (j["pattern"]["members"] or [])]
errs = []
if len(views) != 1:
    errs.append("%d jobs hold %s" % (len(views), me))
else:
    v = views[0]
    got = sorted(v["pattern"]["members"])
    if got != ranks:
        errs.append("ranks %s, not %s" % (" ".join(got), " ".join(ranks)))
    it, steps = v["iterations"], len(job["step_times"])
    if it["count"] != steps:
        errs.append("%s iterations for %d" % (it["count"], steps))
    if not any("acknowledging a steady stream" in n for n in v["notes"]):
        errs.append("no note: %s" % v["notes"])
print("background_in: %s's capture: %s%s" % (me, " ".join(sorted(views[0]["pattern"]["members"]))
      if views else "-", ": FAIL: " + "; ".join(errs) if errs else ""))
sys.exit(1 if errs else 0)
PY
		fails=$((fails + 1))
done
exit $((fails > 0))
