#!/usr/bin/env bash
# Generated traffic, analyzed by the same tool, gives back the job it was
# generated from: pattern, ranks, iterations, period (3 %), gradient size
# (3 %).  Same seed, same bytes; another seed, other bytes.  The CSV and
# HPCC flow lists add up; tshark sees clean TCP.  Bad options exit 2 with
# one line; an unwritable output exits 3.  --like copies a real run (the
# bundled samples), its means and the shape of its iterations.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3
K=8
T=0.2

# roundtrip NAME PATTERN WORKERS S_BYTES WANT_RANKS WANT_S(or null) [OPTION...]
roundtrip() {
	local name=$1 pat=$2 n=$3 S=$4 ranks=$5 wantS=$6; shift 6
	if ! "$DMLSCOPE" generate "$@" --pattern "$pat" --workers "$n" --gradient-bytes "$S" \
		--iterations $K --iteration-time ${T}s --seed 1 --snaplen 100 \
		-o "$tmp/$name.pcap" 2>"$tmp/err"; then
		echo "FAIL $name: generate: $(cat "$tmp/err")"; fail=1; return
	fi
	# the one summary line: what was written where
	if [ "$(wc -l <"$tmp/err")" != 1 ] ||
	   ! grep -Eq "^dmlscope generate: '.*$name.pcap': pcap of $pat, $n ranks, $K iterations over [0-9.]+ s, [0-9]+ messages, [0-9]+ packets, [0-9.e+]+ MB of payload, [0-9.e+]+ MB on disk$" "$tmp/err"; then
		echo "FAIL $name: generate's summary: $(cat "$tmp/err")"; fail=1
	fi
	if ! "$DMLSCOPE" analyze "$tmp/$name.pcap" --json - >"$tmp/$name.json" 2>"$tmp/err"; then
		echo "FAIL $name: analyze: $(cat "$tmp/err")"; fail=1; return
	fi
	if $py - "$tmp/$name.json" "$pat" "$ranks" $K $T "$wantS" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pat, ranks, K, T, S = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
p, it, m = d["pattern"], d["iterations"], d["model"]
bad = []
if p["kind"] != pat: bad.append("kind %s" % p["kind"])
if p["ranks"] != ranks: bad.append("ranks %s" % p["ranks"])
if it["count"] != K: bad.append("count %s" % it["count"])
if it["period_s"] is None or abs(it["period_s"] / T - 1) > 0.03:
    bad.append("period %s" % it["period_s"])
if S != "null" and (m["gradient_bytes"] is None or abs(m["gradient_bytes"] / float(S) - 1) > 0.03):
    bad.append("gradient %s" % m["gradient_bytes"])
print(("FAIL " if bad else "ok   ") + "%s %s ranks %s count %s period %.4f S %s" % (
    pat, " ".join(bad), p["ranks"], it["count"], it["period_s"] or 0, m["gradient_bytes"]))
sys.exit(1 if bad else 0)
PY
	then :; else fail=1; fi
}

roundtrip ring4 ring 4 4MB 4 4000000
roundtrip ring8 ring 8 2MB 8 2000000
roundtrip star3 star 3 4MB 4 4000000
roundtrip star4x2 star 4 4MB 6 4000000 --servers 2
roundtrip clique4 clique 4 4MB 4 4000000
roundtrip tree7 tree 7 2MB 7 null
roundtrip hier8 hierarchical 8 2MB 8 null
roundtrip pairwise4 pairwise 4 4MB 4 4000000
roundtrip butterfly8 butterfly 8 2MB 8 2000000
roundtrip butterfly6 butterfly 6 3MB 6 3000000
# 32 ranks: the last partner gets S/32, under a tenth of the first's (jobs.c: bridge)
roundtrip butterfly32 butterfly 32 1MB 32 1000000
# more than 32 ranks in groups (pattern_shapes.c: the groups' check had a 64-bit mask)
roundtrip hier48 hierarchical 48 256kB 48 null

# Determinism
gen() { "$DMLSCOPE" generate --pattern star --workers 3 --gradient-bytes 1MB --iterations 4 "$@"; }
gen --seed 5 -o "$tmp/a.pcap" && gen --seed 5 -o "$tmp/b.pcap" && gen --seed 6 -o "$tmp/c.pcap" \
	|| { echo "FAIL determinism: generate failed"; fail=1; }
if cmp -s "$tmp/a.pcap" "$tmp/b.pcap"; then echo "ok   same seed, same bytes"
else echo "FAIL same seed gave different files"; fail=1; fi
if cmp -s "$tmp/a.pcap" "$tmp/c.pcap"; then echo "FAIL another seed gave the same file"; fail=1
else echo "ok   another seed, other bytes"; fi

# CSV: one row per message, the columns of doc/contract.md, bytes add up to the formula
gen --seed 5 -o "$tmp/a.csv" || { echo "FAIL csv: generate failed"; fail=1; }
$py - "$tmp/a.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cols = "src,dst,sport,dport,start_s,bytes,iteration,phase".split(",")
bad = []
if not rows or list(rows[0].keys()) != cols: bad.append("columns")
tx = {}
for r in rows:
    tx[(r["src"], r["iteration"])] = tx.get((r["src"], r["iteration"]), 0) + int(r["bytes"])
# star, 3 workers, S = 1 MB: a worker sends S, the server 3 S per iteration
for (src, k), b in tx.items():
    want = 3000000 if src == "198.18.0.1" else 1000000
    if b != want: bad.append("%s sent %d in iteration %s" % (src, b, k))
if len(rows) != 4 * 6: bad.append("%d rows" % len(rows))
print(("FAIL csv: " + ", ".join(bad[:3])) if bad else "ok   csv: %d rows" % len(rows))
sys.exit(1 if bad else 0)
PY

# HPCC ns-3 flow file: a count line, then one line per message
gen --seed 5 --format hpcc -o "$tmp/a.flows" || { echo "FAIL hpcc: generate failed"; fail=1; }
$py - "$tmp/a.flows" <<'PY' || fail=1
import sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
n = int(lines[0])
rows = [l.split() for l in lines[1:]]
ok = n == len(rows) == 24 and all(len(r) == 6 and r[2] == "3" and int(r[4]) == 1000000
                                  and float(r[5]) >= 2 for r in rows)
print(("ok   " if ok else "FAIL ") + "hpcc: %d flows" % n)
sys.exit(0 if ok else 1)
PY

# TCP as Wireshark sees it: no lost, unseen, out-of-order or retransmitted segments
if command -v tshark >/dev/null; then
	for pat in ring star clique pairwise; do
		"$DMLSCOPE" generate --pattern $pat --workers 4 --gradient-bytes 300kB --iterations 3 \
			--snaplen 100 -o "$tmp/t.pcap"
		n=$(tshark -r "$tmp/t.pcap" -Y 'tcp.analysis.flags && !tcp.analysis.window_update' \
			2>/dev/null | wc -l)
		if [ "$n" = 0 ]; then echo "ok   tshark: $pat has no TCP analysis warnings"
		else echo "FAIL tshark: $pat has $n TCP analysis warnings"; fail=1; fi
	done
fi

# Bad options: exit 2, one line on stderr
expect() {
	local name=$1 want=$2; shift 2
	"$DMLSCOPE" generate "$@" >/dev/null 2>"$tmp/err"
	local rc=$? lines; lines=$(wc -l <"$tmp/err")
	if [ "$rc" != "$want" ] || [ "$lines" != 1 ]; then
		echo "FAIL $name: exit $rc (want $want), $lines lines: $(cat "$tmp/err")"; fail=1
	else
		echo "ok   $name: exit $rc: $(cat "$tmp/err")"
	fi
}
ok=(--pattern ring --workers 4 --gradient-bytes 1MB --iterations 2)
expect no_output 2 "${ok[@]}"
expect no_workers 2 --pattern ring --gradient-bytes 1MB --iterations 2 -o "$tmp/x.pcap"
expect bad_pattern 2 --pattern mesh --workers 4 --gradient-bytes 1MB --iterations 2 -o "$tmp/x.pcap"
expect zero_workers 2 --pattern ring --workers 0 --gradient-bytes 1MB --iterations 2 -o "$tmp/x.pcap"
expect bad_size 2 --pattern ring --workers 4 --gradient-bytes 12XB --iterations 2 -o "$tmp/x.pcap"
expect bad_ext 2 "${ok[@]}" -o "$tmp/x.txt"
expect unknown_opt 2 "${ok[@]}" --bogus -o "$tmp/x.pcap"
expect short_period 2 "${ok[@]}" --iteration-time 1ms -o "$tmp/x.pcap"
expect ring_of_one 2 --pattern ring --workers 1 --gradient-bytes 1MB --iterations 2 -o "$tmp/x.pcap"
expect unwritable 3 "${ok[@]}" -o "$tmp/no/such/dir/x.pcap"
expect like_missing 3 --like "$tmp/no-such-run" -o "$tmp/x.pcap"

# --like: the bundled real runs, generated again, analyze the same; the
# butterfly (6 iterations of 1.67 bursts) on two more seeds, where its
# spread bucket fell and how many iterations drew one moved the period (seed
# 2: 12 % off) and the 100 ms peak (seed 5: -44 %)
for entry in ring:3 star:3 butterfly:3 butterfly:2 butterfly:5; do
	seed=${entry##*:}
	run=$(ls -d "$SRCDIR"/samples/*-"${entry%:*}" 2>/dev/null | head -1)
	[ -n "$run" ] && [ -d "$run" ] || continue
	name="$(basename "$run") seed $seed"
	if ! "$DMLSCOPE" generate --like "$run" --seed "$seed" --snaplen 100 -o "$tmp/like.pcap" 2>"$tmp/err"; then
		echo "FAIL like $name: $(cat "$tmp/err")"; fail=1; continue
	fi
	"$DMLSCOPE" analyze "$run" --json "$tmp/real.json" --quiet 2>/dev/null
	"$DMLSCOPE" analyze "$tmp/like.pcap" --json "$tmp/like.json" --quiet 2>/dev/null
	$py - "$tmp/real.json" "$tmp/like.json" "$name" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
bad = []
for k in ("kind", "ranks"):
    if a["pattern"][k] != b["pattern"][k]: bad.append(k)
if a["iterations"]["count"] != b["iterations"]["count"]: bad.append("count")
if abs(b["iterations"]["period_s"] / a["iterations"]["period_s"] - 1) > 0.03: bad.append("period")
if abs(b["model"]["gradient_bytes"] / a["model"]["gradient_bytes"] - 1) > 0.03: bad.append("gradient")
# the shape (doc/generate.md): bursts per iteration, the duty cycle and the
# peak-to-mean at 1, 10 and 100 ms within 30 % of the run's
def shape(d):
    ptm = dict(zip(d["burstiness"]["timescales_s"], d["burstiness"]["peak_to_mean"]))
    return {"bursts_per_iteration": d["phases"]["bursts"]["count"] / d["iterations"]["count"],
            "duty_cycle": d["phases"]["duty_cycle"], "ptm_10ms": ptm[0.01],
            "ptm_1ms": ptm[0.001], "ptm_100ms": ptm[0.1]}
sa, sb = shape(a), shape(b)
for k in sa:
    if abs(sb[k] / sa[k] - 1) > 0.3: bad.append("%s %.3g (run %.3g)" % (k, sb[k], sa[k]))
print(("FAIL like %s: %s" % (sys.argv[3], bad)) if bad else "ok   like %s: %s %d ranks, period %.4f, S %.0f; %s" % (
    sys.argv[3], b["pattern"]["kind"], b["pattern"]["ranks"], b["iterations"]["period_s"], b["model"]["gradient_bytes"],
    ", ".join("%s %.3g (run %.3g)" % (k, sb[k], sa[k]) for k in sorted(sa))))
sys.exit(1 if bad else 0)
PY
	# the run's quiet start and end are kept: the connections close as the
	# run's do, and TCP stays clean (a FIN on each side of each connection)
	case $name in *-star" seed "*)
		if command -v tshark >/dev/null; then
			n=$(tshark -r "$tmp/like.pcap" -Y 'tcp.analysis.flags && !tcp.analysis.window_update' \
				2>/dev/null | wc -l)
			f=$(tshark -r "$tmp/like.pcap" -Y 'tcp.flags.fin == 1' 2>/dev/null | wc -l)
			if [ "$n" = 0 ] && [ "$f" = 4 ]; then echo "ok   tshark: like $name: clean, closed"
			else echo "FAIL tshark: like $name: $n TCP analysis warnings, $f FINs (want 0, 4)"; fail=1; fi
		fi;;
	esac
done
exit $fail
