#!/usr/bin/env bash
# Two generated rings of 4 on overlapping hosts (1-4 and 3-6, both sending
# 3 -> 4), a step every 1.0 and 1.3 s for 600 steps: 13 minutes, so the
# hosts' series coarsen by the span (2 ms bins) while the pairs' keep 1 ms.
# Each job is clocked on its own pairs (a shared host's sending mixes both
# jobs), which were set aside for the hosts' coarser grid: one ring was
# withheld, the other counted 277 steps of 2.8 s.  Now each ring has its
# hosts, 600 steps (1 either way), its period and S
# (src/analysis/iterations.c build_series, in a view of jobs_overlap.c).
set -u
NAME=jobs_overlap_long
for tool in tcprewrite mergecap; do
	command -v "$tool" >/dev/null || { echo "$NAME: skipped: $tool not installed"; exit 0; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
periods=(1000 1300)
for k in 0 1; do
	"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 64KB --iterations 600 \
		--iteration-time "${periods[$k]}ms" --snaplen 96 --seed $((k + 3)) \
		-o "$tmp/r$k.pcap" 2>/dev/null || { echo "$NAME: FAIL: generate"; exit 1; }
	map=""
	for i in 1 2 3 4; do
		map="$map,198.18.0.$i/32:198.18.1.$((2 * k + i))/32"
	done
	tcprewrite --pnat="${map#,}" -i "$tmp/r$k.pcap" -o "$tmp/m$k.pcap" 2>/dev/null ||
		{ echo "$NAME: FAIL: tcprewrite"; exit 1; }
	rm -f "$tmp/r$k.pcap"
done
mergecap -w "$tmp/two.pcap" "$tmp/m0.pcap" "$tmp/m1.pcap" || { echo "$NAME: FAIL: mergecap"; exit 1; }
rm -f "$tmp/m0.pcap" "$tmp/m1.pcap"
"$DMLSCOPE" analyze "$tmp/two.pcap" --quiet --json "$tmp/a.json" ||
	{ echo "$NAME: FAIL: analyze exit $?"; exit 1; }
exec /usr/bin/python3 - "$tmp/a.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
want = {tuple("198.18.1.%d" % (2 * k + i) for i in range(1, 5)): p for k, p in
        enumerate((1.0, 1.3))}
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
    if it["count"] is None or abs(it["count"] - 600) > 1:
        fails.append("%s: count %s (want 600 +- 1)" % (hosts[0], it["count"]))
    if it["period_s"] is None or abs(it["period_s"] - period) > 0.01 * period:
        fails.append("%s: period %s (want %s within 1 %%)" % (hosts[0], it["period_s"], period))
    if S is None or abs(S - 64000) > 0.03 * 64000:
        fails.append("%s: S %s (want 64000 within 3 %%)" % (hosts[0], S))
if a["limits"]["series"]["host_bin_s"] <= 0.001:
    fails.append("hosts' series at %s s: the case is not made (want coarser than 1 ms)" %
                 a["limits"]["series"]["host_bin_s"])
for f in fails:
    print("jobs_overlap_long: FAIL:", f)
if not fails:
    print("jobs_overlap_long: ok: 2 rings of 600 steps on overlapping hosts, hosts' series at %s s"
          % a["limits"]["series"]["host_bin_s"])
sys.exit(1 if fails else 0)
PY
