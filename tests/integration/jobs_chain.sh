#!/usr/bin/env bash
# A chain of twelve generated rings of 4 on overlapping hosts: hosts 1-4,
# 3-6, ..., 23-26 (each sharing two hosts with the next, the pair between
# them an edge of both), stepping every 100 ms to 465 ms (15 % apart),
# merged into one capture (tcprewrite moves each ring's hosts, mergecap
# merges).  No host is a cut vertex: it was one job of 26.  Twelve jobs
# now (src/analysis/jobs_overlap.c), each its hosts, ring/4, count, period
# and S: the middle ones have no host of their own, and with 48 data pairs
# for 16 clocks the first split leaves parts that are split again, and
# hosts two pairs or more away from any clock (they were lost: 9 jobs).
set -u
NAME=jobs_chain
for tool in tcprewrite mergecap; do
	command -v "$tool" >/dev/null || { echo "$NAME: skipped: $tool not installed"; exit 0; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
periods=(100 115 132 152 175 201 231 266 305 351 404 465)
for k in $(seq 0 11); do
	"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 256KB --iterations 24 \
		--iteration-time "${periods[$k]}ms" --snaplen 96 --seed $((k + 3)) \
		-o "$tmp/r$k.pcap" 2>/dev/null || { echo "$NAME: FAIL: generate"; exit 1; }
	map=""
	for i in 1 2 3 4; do
		map="$map,198.18.0.$i/32:198.18.1.$((2 * k + i))/32"
	done
	tcprewrite --pnat="${map#,}" -i "$tmp/r$k.pcap" -o "$tmp/m$k.pcap" 2>/dev/null ||
		{ echo "$NAME: FAIL: tcprewrite"; exit 1; }
done
mergecap -w "$tmp/chain.pcap" "$tmp"/m?.pcap "$tmp"/m??.pcap ||
	{ echo "$NAME: FAIL: mergecap"; exit 1; }
"$DMLSCOPE" analyze "$tmp/chain.pcap" --quiet --json "$tmp/a.json" ||
	{ echo "$NAME: FAIL: analyze exit $?"; exit 1; }
exec /usr/bin/python3 - "$tmp/a.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
want = {tuple("198.18.1.%d" % (2 * k + i) for i in range(1, 5)): p / 1000 for k, p in
        enumerate((100, 115, 132, 152, 175, 201, 231, 266, 305, 351, 404, 465))}
got = {tuple(sorted(j["hosts"], key=lambda h: int(h.split(".")[-1]))): j for j in a["jobs"]}
fails = []
if set(got) != set(want):
    fails.append("jobs %s (want %s)" % (sorted(got), sorted(want)))
for hosts, period in want.items():
    j = got.get(hosts)
    if j is None:
        continue
    p, it, S = j["pattern"], j["iterations"], j["model"]["gradient_bytes"]
    if (p["kind"], p["ranks"]) != ("ring", 4):
        fails.append("%s: %s/%s (want ring/4)" % (hosts[0], p["kind"], p["ranks"]))
    if it["count"] is None or abs(it["count"] - 24) > 1:
        fails.append("%s: count %s (want 24 +- 1)" % (hosts[0], it["count"]))
    if it["period_s"] is None or abs(it["period_s"] - period) > 0.05 * period:
        fails.append("%s: period %s (want %s within 5 %%)" % (hosts[0], it["period_s"], period))
    if S is None or abs(S - 256000) > 0.03 * 256000:
        fails.append("%s: S %s (want 256000 within 3 %%)" % (hosts[0], S))
for f in fails:
    print("jobs_chain: FAIL:", f)
if not fails:
    print("jobs_chain: ok: 12 jobs of 4 hosts on a chain, each ring/4, 24 steps")
sys.exit(1 if fails else 0)
PY
