#!/usr/bin/env bash
# The simulator formats of `generate`, checked without the simulators
# (htsim_run.sh runs htsim itself):
# - htsim: header counts, id K = CSV row K with the same bytes and start,
#   --nodes pads, closed loop chains every step by a barrier of the right
#   count; messages of 2^31 bytes or more, too few --nodes, options of
#   another format: exit 2, one line, no file left.
# - chakra: every PREFIX.<rank>.et decodes with protoc against Chakra's
#   et_def.proto (tests/data/chakra, Apache-2.0): node count, types, sizes,
#   dependencies in order; a parameter server's sends and receives pair up.
# - hpcc: sorted by start, node ids those of the written topology (hosts
#   first, then one switch), 4 GiB messages refused, unknown rates warned.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
py=/usr/bin/python3
job=(--pattern ring --workers 8 --gradient-bytes 8MB --iterations 3 --seed 4)

# --- htsim ---
"$DMLSCOPE" generate "${job[@]}" -o "$tmp/r.csv" 2>/dev/null
"$DMLSCOPE" generate "${job[@]}" --format htsim -o "$tmp/r.cm" 2>/dev/null || { echo "FAIL htsim: generate"; fail=1; }
"$DMLSCOPE" generate "${job[@]}" --format htsim --closed-loop --nodes 12 -o "$tmp/c.cm" \
	--topology "$tmp/c.topo" 2>/dev/null || { echo "FAIL htsim closed: generate"; fail=1; }
$py - "$tmp/r.csv" "$tmp/r.cm" "$tmp/c.cm" "$tmp/c.topo" <<'PY' || fail=1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
bad = []
def load(path):
    head, flows, trig = {}, [], {}
    for line in open(path):
        t = line.split()
        if t and t[0] in ("Nodes", "Connections", "Triggers"):
            head[t[0]] = int(t[1])
        elif t and "->" in t[0]:
            a, b = t[0].split("->")
            f = {"src": int(a), "dst": int(b)}
            for i in range(1, len(t), 2):
                f[t[i]] = t[i + 1]
            flows.append(f)
        elif t and t[0] == "trigger":
            trig[int(t[2])] = (t[3], int(t[5]))
    return head, flows, trig
h, flows, _ = load(sys.argv[2])
if h != {"Nodes": 8, "Connections": len(rows)}: bad.append("open header %s" % h)
for k, (f, r) in enumerate(zip(flows, rows), 1):
    host = lambda a: int(a.split(".")[2]) * 256 + int(a.split(".")[3]) - 1
    if int(f["id"]) != k or int(f["size"]) != int(r["bytes"]) or f["src"] != host(r["src"]) \
       or f["dst"] != host(r["dst"]) or int(f["start"]) != round(float(r["start_s"]) * 1e12):
        bad.append("open: flow %s does not match CSV row %d" % (f, k)); break
h, flows, trig = load(sys.argv[3])
# ring of 8: 14 steps of 8 messages per iteration, 13 barriers per iteration
if h != {"Nodes": 12, "Connections": len(rows), "Triggers": 39}: bad.append("closed header %s" % h)
timed = [f for f in flows if "start" in f]
if len(timed) != 3 * 8: bad.append("closed: %d timed flows, want 24 (the first step)" % len(timed))
for t, (kind, count) in trig.items():
    fire = sum(1 for f in flows if f.get("send_done_trigger") == str(t))
    wait = sum(1 for f in flows if f.get("trigger") == str(t))
    if kind != "barrier" or count != 8 or fire != 8 or wait != 8:
        bad.append("closed: trigger %d %s count %d fired by %d, waited on by %d" % (t, kind, count, fire, wait)); break
topo = open(sys.argv[4]).read()
for want in ("Nodes 12", "Podsize 12", "Radix_Down 12", "Downlink_speed_Gbps 10"):
    if want not in topo: bad.append("topology lacks %s" % want)
for b in bad: print("FAIL htsim " + b)
sys.exit(1 if bad else 0)
PY
# refused: 2^31 bytes, too few nodes, another format's options, a fractional rate's topology
refuse() {
	local what=$1; shift
	rm -f "$tmp/x"
	"$DMLSCOPE" generate "$@" -o "$tmp/x" 2>"$tmp/err"; local rc=$?
	if [ $rc != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || [ -e "$tmp/x" ]; then
		echo "FAIL $what: exit $rc, $(wc -l <"$tmp/err") lines, file left: $([ -e "$tmp/x" ] && echo yes || echo no): $(cat "$tmp/err")"; fail=1
	fi
}
big=(--pattern pairwise --workers 2 --iterations 1)
refuse "htsim 2^31" "${big[@]}" --gradient-bytes 2147483648 --format htsim
"$DMLSCOPE" generate "${big[@]}" --gradient-bytes 2147483647 --format htsim -o "$tmp/ok.cm" 2>/dev/null ||
	{ echo "FAIL htsim: 2^31 - 1 bytes refused"; fail=1; }
refuse "htsim nodes" "${job[@]}" --format htsim --nodes 4
refuse "closed-loop csv" "${job[@]}" --format csv --closed-loop
refuse "nodes hpcc" "${job[@]}" --format hpcc --nodes 9
refuse "topology pcap" "${job[@]}" --format pcap --topology "$tmp/t"
refuse "hpcc 4 GiB" "${big[@]}" --gradient-bytes 4294967296 --format hpcc --link-gbps 25
rm -f "$tmp/t"; "$DMLSCOPE" generate "${job[@]}" --link-gbps 12.5 --format htsim -o "$tmp/f.cm" \
	--topology "$tmp/t" 2>"$tmp/err"
[ $? = 2 ] && grep -q "whole Gbit/s" "$tmp/err" || { echo "FAIL htsim topology at 12.5G: $(cat "$tmp/err")"; fail=1; }

# --- scale-up: --like a 4-rank butterfly run with 16 ranks keeps the run's
# compute gap (the mean time from a collective's planned end to the next
# start), not its period; with its own 4 ranks it keeps the period too ---
fly="$SRCDIR/samples/pytorch_manual-mobilenetv2-adam-16-gloo-normal-butterfly"
if [ -d "$fly" ]; then
	for n in 4 16; do
		"$DMLSCOPE" generate --like "$fly" --workers $n --iterations 6 --format htsim \
			-o "$tmp/fly$n.cm" 2>/dev/null || { echo "FAIL scale-up $n: generate"; fail=1; }
	done
	"$DMLSCOPE" generate --like "$fly" --format htsim -o "$tmp/fly.cm" 2>/dev/null
	$py - "$tmp/fly.cm" "$tmp/fly4.cm" "$tmp/fly16.cm" <<'PY' || fail=1
import re, sys
def plan(path):
    it = [tuple(map(int, m)) for m in re.findall(r"# iteration \d+ start_ps (\d+) planned_end_ps (\d+)", open(path).read())]
    period = (it[-1][0] - it[0][0]) / (len(it) - 1) / 1e12
    gap = sum(it[k + 1][0] - it[k][1] for k in range(len(it) - 1)) / (len(it) - 1) / 1e12
    return period, gap, int(re.search(r"^Nodes (\d+)", open(path).read(), re.M)[1])
(p0, g0, n0), (p4, g4, n4), (p16, g16, n16) = plan(sys.argv[1]), plan(sys.argv[2]), plan(sys.argv[3])
bad = []
if (n0, n4, n16) != (4, 4, 16): bad.append("nodes %d %d %d" % (n0, n4, n16))
if abs(p4 / p0 - 1) > 1e-6: bad.append("4 ranks: period %.6f s, the run's %.6f s" % (p4, p0))
if abs(g16 / g4 - 1) > 0.02: bad.append("16 ranks: compute gap %.6f s, 4 ranks %.6f s" % (g16, g4))
if not p16 > p4: bad.append("16 ranks: period %.6f s not above 4 ranks' %.6f s" % (p16, p4))
print("scale-up: period %.4f s at 4 ranks, %.4f s at 16; compute gap %.4f s, %.4f s" % (p4, p16, g4, g16))
for b in bad: print("FAIL scale-up " + b)
sys.exit(1 if bad else 0)
PY
fi

# --- hpcc ---
"$DMLSCOPE" generate "${job[@]}" --format hpcc -o "$tmp/h.txt" --topology "$tmp/h.topo" 2>"$tmp/err" ||
	{ echo "FAIL hpcc: generate: $(cat "$tmp/err")"; fail=1; }
grep -q "warning: HPCC's INT header knows only 25, 50, 100, 200 and 400 Gbit/s, not 10" "$tmp/err" ||
	{ echo "FAIL hpcc: no warning at 10G: $(cat "$tmp/err")"; fail=1; }
"$DMLSCOPE" generate "${job[@]}" --format hpcc --link-gbps 25 -o "$tmp/h25.txt" 2>"$tmp/err"
grep -q warning "$tmp/err" && { echo "FAIL hpcc: warning at 25G: $(cat "$tmp/err")"; fail=1; }
"$DMLSCOPE" generate --pattern star --workers 3 --gradient-bytes 1MB --iterations 2 --format hpcc \
	--link-gbps 25 -o "$tmp/hs.txt" --topology "$tmp/hs.topo" 2>/dev/null || { echo "FAIL hpcc star"; fail=1; }
$py - "$tmp/h.txt" "$tmp/h.topo" 8 "$tmp/hs.txt" "$tmp/hs.topo" 4 <<'PY' || fail=1
import sys
bad = []
for flows, topo, n in ((sys.argv[1], sys.argv[2], int(sys.argv[3])), (sys.argv[4], sys.argv[5], int(sys.argv[6]))):
    f = open(flows).read().split("\n")
    count, rows = int(f[0]), [l.split() for l in f[1:] if l]
    if count != len(rows): bad.append("%s: count %d, %d rows" % (flows, count, len(rows)))
    starts = [float(r[5]) for r in rows]
    if starts != sorted(starts): bad.append("%s: not sorted by start" % flows)
    if any(int(r[4]) >= 1 << 32 for r in rows): bad.append("%s: a size of 4 GiB or more" % flows)
    t = open(topo).read().split("\n")
    nodes, switches, links = map(int, t[0].split())
    sw = int(t[1])
    if (nodes, switches, links, sw) != (n + 1, 1, n, n): bad.append("%s: header %s / %s" % (topo, t[0], t[1]))
    hosts = sorted(int(l.split()[1]) for l in t[2:] if l)
    if hosts != list(range(n)) or any(l.split()[0] != str(n) for l in t[2:] if l):
        bad.append("%s: links are not switch %d to hosts 0..%d" % (topo, n, n - 1))
    used = set(int(r[0]) for r in rows) | set(int(r[1]) for r in rows)
    if not used <= set(hosts): bad.append("%s: node ids %s are not hosts" % (flows, sorted(used - set(hosts))))
for b in bad: print("FAIL hpcc " + b)
sys.exit(1 if bad else 0)
PY

# --- chakra ---
if ! command -v protoc >/dev/null; then
	echo "skip: protoc is not installed (Debian: protobuf-compiler); htsim and hpcc checks done"
	[ $fail = 0 ] && exit 77 || exit 1
fi
decode() { # decode PREFIX NRANKS -> PREFIX.json
	$py - "$1" "$2" "$SRCDIR/tests/data/chakra" >"$1.json" <<'PY'
import json, re, subprocess, sys
prefix, n, schema = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def records(b):
    i, out = 0, []
    while i < len(b):
        size = shift = 0
        while True:
            c = b[i]; i += 1; size |= (c & 0x7f) << shift; shift += 7
            if c < 0x80: break
        out.append(b[i:i + size]); i += size
    return out
ranks = []
for r in range(n):
    recs = records(open("%s.%d.et" % (prefix, r), "rb").read())
    # one protoc call per rank: the records, as a repeated field of a wrapper
    nodes = []
    for j, rec in enumerate(recs):
        t = "GlobalMetadata" if j == 0 else "Node"
        p = subprocess.run(["protoc", "--decode=ChakraProtoMsg." + t, "-I" + schema, "et_def.proto"],
                           input=rec, capture_output=True)
        if p.returncode: sys.exit("rank %d record %d: %s" % (r, j, p.stderr.decode()))
        txt = p.stdout.decode()
        if j == 0:
            meta = txt.strip(); continue
        node = {"id": int((re.search(r"^id: (\d+)", txt, re.M) or [0, 0])[1]),
                "type": re.search(r"^type: (\w+)", txt, re.M)[1],
                "deps": [int(x) for x in re.findall(r"^data_deps: (\d+)", txt, re.M)],
                "duration": int((re.search(r"^duration_micros: (\d+)", txt, re.M) or [0, 0])[1])}
        for name, val in re.findall(r'name: "(\w+)"\s+\w+_val: (\w+)', txt):
            node[name] = val
        nodes.append(node)
    ranks.append({"meta": meta, "nodes": nodes})
json.dump(ranks, sys.stdout)
PY
}
"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 3MB --iterations 3 --iteration-time 20ms \
	--format chakra -o "$tmp/ring" 2>/dev/null || { echo "FAIL chakra ring: generate"; fail=1; }
"$DMLSCOPE" generate --pattern star --workers 3 --servers 2 --gradient-bytes 1MB --iterations 2 \
	--format chakra -o "$tmp/star" 2>/dev/null || { echo "FAIL chakra star: generate"; fail=1; }
if decode "$tmp/ring" 4 && decode "$tmp/star" 5; then
	$py - "$tmp/ring.json" "$tmp/star.json" <<'PY' || fail=1
import json, sys
bad = []
ring, star = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for r, rank in enumerate(ring):
    nodes = rank["nodes"]
    if rank["meta"] != 'version: "0.0.4"': bad.append("ring %d: metadata %s" % (r, rank["meta"]))
    types = [n["type"] for n in nodes]
    if types != ["COMP_NODE", "COMM_COLL_NODE"] * 3: bad.append("ring %d: types %s" % (r, types))
    for i, n in enumerate(nodes):
        if n["id"] != i or n["deps"] != ([i - 1] if i else []) or n["is_cpu_op"] != "false":
            bad.append("ring %d: node %s" % (r, n)); break
        if n["type"] == "COMM_COLL_NODE" and (n["comm_type"] != "0" or n["comm_size"] != "3000000"):
            bad.append("ring %d: collective %s" % (r, n)); break
        # 20 ms period, a 4-rank ring of 3 MB at 10G takes about 5 ms: ~15 ms of compute
        if n["type"] == "COMP_NODE" and not 12000 < n["duration"] < 18000:
            bad.append("ring %d: compute %d us" % (r, n["duration"])); break
sends, recvs = [], []
for r, rank in enumerate(star):
    nodes = rank["nodes"]
    server = r < 2
    want = (["COMM_RECV_NODE"] * 3 + ["COMM_SEND_NODE"] * 3) * 2 if server else \
           (["COMP_NODE"] + ["COMM_SEND_NODE"] * 2 + ["COMM_RECV_NODE"] * 2) * 2
    if [n["type"] for n in nodes] != want: bad.append("star %d: types %s" % (r, [n["type"] for n in nodes]))
    for n in nodes:
        if any(d >= n["id"] for d in n["deps"]): bad.append("star %d: node %d depends forward" % (r, n["id"]))
        key = (n.get("comm_src"), n.get("comm_dst"), n.get("comm_tag"), n.get("comm_size"))
        if n["type"] == "COMM_SEND_NODE": sends.append(key)
        if n["type"] == "COMM_RECV_NODE": recvs.append(key)
        if "comm_src" in n and str(r) not in (n["comm_src"], n["comm_dst"]):
            bad.append("star %d: node %s is not its own" % (r, n))
# 3 workers x 2 servers x 2 ways x 2 iterations, shards of 500000 bytes
if sorted(sends) != sorted(recvs) or len(sends) != 24 or {k[3] for k in sends} != {"500000"}:
    bad.append("star: %d sends, %d receives, not paired" % (len(sends), len(recvs)))
for b in bad: print("FAIL chakra " + b)
sys.exit(1 if bad else 0)
PY
else
	echo "FAIL chakra: protoc cannot decode the traces"; fail=1
fi
"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 1MB --iterations 1 --format chakra \
	-o - >"$tmp/out" 2>"$tmp/err"
[ $? = 2 ] && [ ! -s "$tmp/out" ] && grep -q "give a prefix" "$tmp/err" ||
	{ echo "FAIL chakra -o -: $(cat "$tmp/err")"; fail=1; }
[ $fail = 0 ] && echo "generate_sim: htsim, hpcc and chakra files as planned"
exit $fail
