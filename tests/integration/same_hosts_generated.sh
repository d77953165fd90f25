#!/usr/bin/env bash
# Two generated rings of 4 on the very same hosts (198.18.0.1-4), each
# over connections of its own: 30 steps of 0.30 s moving S = 2 MB and 50
# of 0.17 s moving 1 MB, merged by time.  Two jobs of the same hosts, told
# apart by their connections' clocks (src/analysis/analysis.c,
# split_colocated), each reading its own connections: its count, period
# and S.  Withheld as one job before.  Once split, the pairs the other way
# (acknowledgements of both rings, 2 % of the bytes) made the fast ring's
# steps two at a time (25 of 0.34 s), and its S read payload as wire bytes
# (4.5 % short with 1448-byte segments).
set -u
NAME=same_hosts_generated
command -v mergecap >/dev/null || { echo "$NAME: skipped: mergecap not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # OUT ITERATIONS GRADIENT PERIOD SEED
	"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes "$3" --iterations "$2" \
		--iteration-time "$4" --snaplen 96 --seed "$5" -o "$1" 2>/dev/null ||
		{ echo "$NAME: FAIL: generate $1"; exit 1; }
}
gen "$tmp/a.pcap" 30 2MB 300ms 1
gen "$tmp/b.pcap" 50 1MB 170ms 2
mergecap -w "$tmp/ab.pcap" "$tmp/a.pcap" "$tmp/b.pcap" || { echo "$NAME: FAIL: mergecap"; exit 1; }
"$DMLSCOPE" analyze "$tmp/ab.pcap" --quiet --json "$tmp/ab.json" ||
	{ echo "$NAME: FAIL: analyze exit $?"; exit 1; }
exec /usr/bin/python3 - "$tmp/ab.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
want = [(30, 0.300, 2e6), (50, 0.170, 1e6)] # steps, s a step, S
hosts = ["198.18.0.%d" % i for i in range(1, 5)]
fails = []
jobs = sorted(a["jobs"], key=lambda j: -(j["iterations"]["period_s"] or 0))
if len(jobs) != 2:
    fails.append("%d job(s) (want 2)" % len(jobs))
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
    print("same_hosts_generated: ok: two rings of hosts 1-4, 30 of 0.30 s and 50 of 0.17 s, S exact")
sys.exit(1 if fails else 0)
PY
