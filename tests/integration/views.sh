#!/usr/bin/env bash
# views.sh - the analysis on other views of a job than the study's folder.
#
# For each run (default: the committed ring and star samples; VIEWS_RUNS="DIR
# ..." for others, e.g. runs of a dataset) build with tshark/mergecap:
#   v1   worker-0's file alone (one rank's outgoing traffic)
#   v1b  worker-1's file alone
#   v2   worker-0's and worker-1's files (a subset)
#   v3   one host's capture of both directions: worker-0's file plus the
#        packets the others sent to worker-0's address
#   v4   every file merged into one (mergecap -w all.pcap worker-*.pcap)
# and analyze each.  Checks (truth.json beside the captures):
#   v4 equals the folder exactly (pattern, iterations, bytes per worker, S,
#      hosts' volumes and roles) and is not partial;
#   v1..v3: a partial view says so (pattern.partial and a "partial view"
#      note); ranks = the job's ranks; kind = the truth or "unknown" (then
#      S null); S within 3 % of the truth or null; period within 3 % of
#      the log's steady mean step (tests/golden/jobs_check.py) and one
#      iteration per logged step; one job (jobs holds it once: a rank's
#      one-off sends to the others, DDP's initial broadcast, are not a
#      second job read on the same pairs).  A view that
#      holds every rank's sending (the star's hub both ways) must match the
#      truth like the folder.
# Skipped (77) without tshark, mergecap or /usr/bin/python3.
set -u
PY=/usr/bin/python3
DMLSCOPE=${DMLSCOPE:?DMLSCOPE must name the dmlscope binary}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip() { echo "views: SKIP: $*"; exit 77; }
[ -x "$PY" ] || skip "no $PY"
for t in tshark mergecap; do
	command -v "$t" >/dev/null 2>&1 || skip "'$t' not installed"
done
RUNS=${VIEWS_RUNS:-"$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring $SRCDIR/samples/pytorch_rpc-mobilenetv2-adam-16-tensorpipe-normal-star"}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmls-views.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
i=0
for run in $RUNS; do
	i=$((i + 1))
	d="$tmp/$i"
	mkdir -p "$d"
	[ -f "$run/truth.json" ] || { echo "views: no truth.json in $run" >&2; fail=1; continue; }
	addr0=$("$PY" -c 'import json,sys; t=json.load(open(sys.argv[1])); print(next(h["addr"] for h in t["hosts"] if h["pcap"].startswith("worker-0-")))' "$run/truth.json")
	others=()
	for f in "$run"/worker-*-tcpdump.pcap; do
		case "$f" in */worker-0-tcpdump.pcap) continue ;; esac
		o="$d/to0-$(basename "$f")"
		tshark -r "$f" -Y "ip.dst==$addr0" -w "$o" 2>/dev/null || { echo "views: tshark failed on $f" >&2; fail=1; }
		others+=("$o")
	done
	cp "$run/worker-0-tcpdump.pcap" "$d/v1.pcap"
	cp "$run/worker-1-tcpdump.pcap" "$d/v1b.pcap"
	mergecap -w "$d/v2.pcap" "$run/worker-0-tcpdump.pcap" "$run/worker-1-tcpdump.pcap"
	mergecap -w "$d/v3.pcap" "$run/worker-0-tcpdump.pcap" "${others[@]}"
	mergecap -w "$d/v4.pcap" "$run"/worker-*-tcpdump.pcap
	"$DMLSCOPE" analyze "$run" --quiet --json "$d/folder.json" 2>"$d/folder.err" ||
		{ echo "views: analyze $run exited $?: $(head -1 "$d/folder.err")" >&2; fail=1; }
	for v in v1 v1b v2 v3 v4; do
		"$DMLSCOPE" analyze "$d/$v.pcap" --quiet --json "$d/$v.json" 2>"$d/$v.err" ||
			{ echo "views: analyze $v of $run exited $?: $(head -1 "$d/$v.err")" >&2; fail=1; }
	done
	SRCDIR="$SRCDIR" "$PY" - "$run" "$d" <<'EOF' || fail=1
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["SRCDIR"], "tests", "golden"))
from jobs_check import job_step
run, d = sys.argv[1], sys.argv[2]
t = json.load(open(os.path.join(run, "truth.json")))
TOL = 0.03
name = os.path.basename(run.rstrip("/"))
bad = []

def load(v):
    try:
        return json.load(open(os.path.join(d, v + ".json")))
    except (OSError, ValueError) as e:
        bad.append(f"{v}: no analysis ({e})")
        return None

def rel(got, want):
    return None if got is None or not want else (got - want) / want

folder, v4 = load("folder"), load("v4")
if folder and v4:
    for key in ("kind", "ranks", "members", "order", "hubs"):
        if folder["pattern"].get(key) != v4["pattern"].get(key):
            bad.append(f"v4: pattern.{key} {v4['pattern'].get(key)} != folder {folder['pattern'].get(key)}")
    for key in ("count", "period_s", "period_median_s", "bytes_per_worker"):
        if folder["iterations"].get(key) != v4["iterations"].get(key):
            bad.append(f"v4: iterations.{key} {v4['iterations'].get(key)} != folder {folder['iterations'].get(key)}")
    if folder["model"] != v4["model"]:
        bad.append(f"v4: model {v4['model']} != folder {folder['model']}")
    hf = {h["addr"]: h for h in folder["hosts"]}
    for h in v4["hosts"]:
        f = hf.get(h["addr"])
        for key in ("tx_payload_bytes", "rx_payload_bytes", "tx_wire_bytes", "role"):
            if f is None or f.get(key) != h.get(key):
                bad.append(f"v4: {h['addr']} {key} {h.get(key)} != folder {f and f.get(key)}")
    if v4["pattern"].get("partial"):
        bad.append("v4: partial")

rows = []
for v in ("v1", "v1b", "v2", "v3", "v4"):
    a = load(v)
    if not a:
        continue
    p, it, m = a["pattern"], a["iterations"], a["model"]
    partial = p.get("partial")
    notes = a.get("notes", [])
    S, T = m.get("gradient_bytes"), it.get("period_s")
    es, ep = rel(S, t["gradient_bytes"]), rel(T, job_step(t))
    errs = []
    if partial and not any("partial view" in n for n in notes):
        errs.append("no partial-view note")
    if p.get("ranks") != t["ranks"]:
        errs.append(f"ranks {p.get('ranks')}")
    if len(a.get("jobs") or []) != 1:
        errs.append(f"{len(a.get('jobs') or [])} jobs")
    if partial:
        if p.get("kind") not in (t["pattern"], "unknown"):
            errs.append(f"kind {p.get('kind')}")
        if p.get("kind") == "unknown" and S is not None:
            errs.append("S without a kind")
        if es is not None and abs(es) > TOL:
            errs.append(f"S {es:+.1%}")
    else:
        if p.get("kind") != t["pattern"]:
            errs.append(f"kind {p.get('kind')}")
        if es is None or abs(es) > TOL:
            errs.append("S")
    if ep is None or abs(ep) > TOL:
        errs.append("period")
    if it.get("count") != t.get("steps"):
        errs.append(f"count {it.get('count')} for {t.get('steps')} steps")
    rows.append(f"  {v:4s} {p.get('kind'):8s} ranks {p.get('ranks')} observed {len(p.get('observed', []))} "
                f"S {'null' if S is None else '%.2fMB %+.1f%%' % (S / 1e6, 100 * es)} "
                f"period {'null' if T is None else '%.4fs %+.1f%%' % (T, 100 * ep)} "
                f"it {it.get('count')}  {'ok' if not errs else 'FAIL ' + ', '.join(errs)}")
    bad += [f"{v}: {e}" for e in errs]
print(name)
print("\n".join(rows))
for b in bad:
    print("  views:", b)
sys.exit(1 if bad else 0)
EOF
done
exit $fail
