# lib/rings.sh - generated rings of 4 on overlapping hosts, ring k on
# hosts 198.18.1.(2k+1) to (2k+4), each sharing two hosts with the next
# (jobs_chain, jobs_overlap_long, jobs_one_period): sourced with NAME set.
# CMake's test glob does not reach this folder.

# rings_chain ITERATIONS GRADIENT PERIOD_MS...: one ring a period, merged
# by time into $tmp/rings.pcap ($tmp a scratch folder removed on exit);
# the test skips (exit 0) without tcprewrite or mergecap, fails when a
# step does.
rings_chain() {
	local iterations=$1 gradient=$2 k=0 p map i
	shift 2
	for tool in tcprewrite mergecap; do
		command -v "$tool" >/dev/null || { echo "$NAME: skipped: $tool not installed"; exit 0; }
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for p in "$@"; do
		"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes "$gradient" \
			--iterations "$iterations" --iteration-time "${p}ms" --snaplen 96 \
			--seed $((k + 3)) -o "$tmp/r.pcap" 2>/dev/null ||
			{ echo "$NAME: FAIL: generate"; exit 1; }
		map=""
		for i in 1 2 3 4; do
			map="$map,198.18.0.$i/32:198.18.1.$((2 * k + i))/32"
		done
		tcprewrite --pnat="${map#,}" -i "$tmp/r.pcap" -o "$tmp/m$k.pcap" 2>/dev/null ||
			{ echo "$NAME: FAIL: tcprewrite"; exit 1; }
		k=$((k + 1))
	done
	rm -f "$tmp/r.pcap"
	mergecap -w "$tmp/rings.pcap" "$tmp"/m*.pcap || { echo "$NAME: FAIL: mergecap"; exit 1; }
	rm -f "$tmp"/m*.pcap
}

# rings_analyze: dmlscope analyze $tmp/rings.pcap into $tmp/a.json, or the
# test fails.
rings_analyze() {
	"$DMLSCOPE" analyze "$tmp/rings.pcap" --quiet --json "$tmp/a.json" ||
		{ echo "$NAME: FAIL: analyze exit $?"; exit 1; }
}

# rings_check JSON ITERATIONS S_BYTES PERIOD_TOLERANCE PERIOD_MS...: each
# ring a job of its four hosts, ring/4, ITERATIONS steps (1 either way),
# its period within PERIOD_TOLERANCE (a fraction) and S within 3 %; one
# line per failure, status 1 when any.
rings_check() {
	/usr/bin/python3 - "$NAME" "$@" <<'PY'
import json, sys
name, path, count, S0, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
periods = [float(p) / 1000 for p in sys.argv[6:]]
a = json.load(open(path))
want = {tuple("198.18.1.%d" % (2 * k + i) for i in range(1, 5)): p for k, p in enumerate(periods)}
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
    if it["count"] is None or abs(it["count"] - count) > 1:
        fails.append("%s: count %s (want %d +- 1)" % (hosts[0], it["count"], count))
    if it["period_s"] is None or abs(it["period_s"] - period) > tol * period:
        fails.append("%s: period %s (want %s within %g %%)" % (hosts[0], it["period_s"], period,
                                                               100 * tol))
    if S is None or abs(S - S0) > 0.03 * S0:
        fails.append("%s: S %s (want %d within 3 %%)" % (hosts[0], S, S0))
for f in fails:
    print("%s: FAIL: %s" % (name, f))
sys.exit(1 if fails else 0)
PY
}
