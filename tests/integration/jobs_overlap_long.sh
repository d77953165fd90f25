#!/usr/bin/env bash
# Two generated rings of 4 on overlapping hosts (1-4 and 3-6, both sending
# 3 -> 4), a step every 1.0 and 1.3 s for 600 steps: 13 minutes, so the
# hosts' series coarsen by the span (2 ms bins) while the pairs' keep 1 ms.
# Each job is clocked on its own pairs (a shared host's sending mixes both
# jobs), which were set aside for the hosts' coarser grid: one ring was
# withheld, the other counted 277 steps of 2.8 s.  Now each ring has its
# hosts, 600 steps (1 either way), its period within 1 % and S
# (src/analysis/iterations.c build_series, in a view of jobs_overlap.c).
set -u
NAME=jobs_overlap_long
. "$SRCDIR/tests/integration/lib/rings.sh"
rings_chain 600 64KB 1000 1300
rings_analyze
bin=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["limits"]["series"]["host_bin_s"])' "$tmp/a.json")
/usr/bin/python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > 0.001 else 1)' "$bin" ||
	{ echo "$NAME: FAIL: hosts' series at $bin s: the case is not made (want coarser than 1 ms)"; exit 1; }
rings_check "$tmp/a.json" 600 64000 0.01 1000 1300 || exit 1
echo "$NAME: ok: 2 rings of 600 steps on overlapping hosts, hosts' series at $bin s"
