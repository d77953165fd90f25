#!/usr/bin/env bash
# Two generated rings of 4 on the very same hosts (198.18.0.1-4), each
# over connections of its own: 30 steps of 0.30 s moving S = 2 MB and 50
# of 0.17 s moving 1 MB, merged by time.  Two jobs of the same hosts, told
# apart by their connections' clocks (src/analysis/analysis.c,
# split_colocated), each reading its own connections: its count, period
# and S.  Withheld as one job before.  Once split, the pairs the other way
# (acknowledgements of both rings, 2 % of the bytes) made the fast ring's
# steps two at a time (25 of 0.34 s), and its S read payload as wire bytes
# (4.5 % short with 1448-byte segments).  A third ring on hosts 5-8 (30
# of 0.28 s, S 2.5 MB) moves more than either of the two, less than both:
# it is the top level (the two that were one came first).
set -u
NAME=same_hosts_generated
for tool in mergecap tcprewrite; do
	command -v "$tool" >/dev/null || { echo "$NAME: skipped: $tool not installed"; exit 0; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # OUT ITERATIONS GRADIENT PERIOD SEED
	"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes "$3" --iterations "$2" \
		--iteration-time "$4" --snaplen 96 --seed "$5" -o "$1" 2>/dev/null ||
		{ echo "$NAME: FAIL: generate $1"; exit 1; }
}
gen "$tmp/a.pcap" 30 2MB 300ms 1
gen "$tmp/b.pcap" 50 1MB 170ms 2
gen "$tmp/c0.pcap" 30 2500KB 280ms 3
tcprewrite -i "$tmp/c0.pcap" -o "$tmp/c.pcap" 2>/dev/null \
	--pnat=198.18.0.1/32:198.18.0.5/32,198.18.0.2/32:198.18.0.6/32,198.18.0.3/32:198.18.0.7/32,198.18.0.4/32:198.18.0.8/32 ||
	{ echo "$NAME: FAIL: tcprewrite"; exit 1; }
mergecap -w "$tmp/ab.pcap" "$tmp/a.pcap" "$tmp/b.pcap" "$tmp/c.pcap" ||
	{ echo "$NAME: FAIL: mergecap"; exit 1; }
"$DMLSCOPE" analyze "$tmp/ab.pcap" --quiet --json "$tmp/ab.json" ||
	{ echo "$NAME: FAIL: analyze exit $?"; exit 1; }
/usr/bin/python3 - "$tmp/ab.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
want = [(30, 0.300, 2e6), (50, 0.170, 1e6)] # steps, s a step, S
hosts = ["198.18.0.%d" % i for i in range(1, 5)]
fails = []
top = a["jobs"][0] if a["jobs"] else None
if top is None or sorted(top["hosts"]) != ["198.18.0.%d" % i for i in range(5, 9)] \
        or a["model"]["gradient_bytes"] is None or abs(a["model"]["gradient_bytes"] - 2.5e6) > 0.01 * 2.5e6:
    fails.append("top level: %s, S %s (want the ring of hosts 5-8, S 2.5e6)" %
                 (top and sorted(top["hosts"]), a["model"]["gradient_bytes"]))
jobs = sorted([j for j in a["jobs"] if sorted(j["hosts"]) == hosts],
              key=lambda j: -(j["iterations"]["period_s"] or 0))
if len(jobs) != 2 or len(a["jobs"]) != 3:
    fails.append("%d job(s) of hosts 1-4, %d in all (want 2, 3)" % (len(jobs), len(a["jobs"])))
for j, (n, t, s) in zip(jobs, want):
    p, it, S = j["pattern"], j["iterations"], j["model"]["gradient_bytes"]
    got = "%s/%s, %s of %s s, S %s, hosts %s" % (p["kind"], p["ranks"], it["count"], it["period_s"], S,
                                                 sorted(j["hosts"]))
    if ((p["kind"], p["ranks"]) != ("ring", 4) or sorted(j["hosts"]) != hosts or it["count"] is None
            or abs(it["count"] - n) > 1 or it["period_s"] is None or abs(it["period_s"] - t) > 0.02 * t
            or S is None or abs(S - s) > 0.01 * s
            or not [x for x in j["notes"] if "one of two jobs on the same hosts" in x]):
        fails.append("%s; notes %s (want ring/4 of hosts 1-4, %d of %g s, S %g, noted)" %
                     (got, j["notes"], n, t, s))
for f in fails:
    print("same_hosts_generated: FAIL:", f)
if not fails:
    print("same_hosts_generated: ok: two rings of hosts 1-4, 30 of 0.30 s and 50 of 0.17 s, S exact; "
          "the ring of hosts 5-8 the top level")
sys.exit(1 if fails else 0)
PY
