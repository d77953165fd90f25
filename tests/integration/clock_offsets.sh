#!/usr/bin/env bash
# Captures of different machines, stamped by clocks that disagree: the
# bundled DDP ring sample (4 per-host captures) with its files' stamps
# moved by 0, +100, -50 and +200 ms, as four hosts without NTP would
# stamp them.  Merged as they were, the hosts' steps fell beside each
# other's and the ring came out "pairwise" with count, period and S null.
# Each file's offset is bounded by its TCP acknowledgements (an
# acknowledgement is sent after the data it acknowledges arrived) and
# taken from its stamps: the offsets are found within 0.5 ms, the note
# names them, and pattern, count, period and S are those of the sample
# as captured; so too with one clock an hour off (0, +3600 s, -50 ms,
# +200 ms), and with the captures of hosts 2-4 begun 2.5 s after host 1's
# (their first records then meet none of its first ones).  The sample as
# captured (one machine's clock) keeps every offset 0, without the note.  Captures given as pipes (`<(cat F)`) are
# not read ahead for their clocks, which would take their first records
# from the merge: the same packets as from the files.
set -u
run=$(ls -d "$SRCDIR"/samples/*-ring 2>/dev/null | head -1)
[ -n "$run" ] || { echo "SKIP: no ring sample"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
# shift DIR LATE OFFSET...: the sample with each file's stamps moved, the
# files past the first begun LATE seconds after it
shift_sample() {
	mkdir -p "$1"
	$py - "$run" "$@" <<'PY' || { echo "clock_offsets: FAIL: cannot shift"; exit 1; }
import glob, os, shutil, struct, sys
src, dst, late, offs = sys.argv[1], sys.argv[2], float(sys.argv[3]), [float(x) for x in sys.argv[4:]]
start = None
files = sorted(glob.glob(os.path.join(src, "*.pcap")))
assert len(files) == len(offs), (files, offs)
for name in os.listdir(src):
    if not name.endswith(".pcap") and os.path.isfile(os.path.join(src, name)):
        shutil.copy(os.path.join(src, name), dst)
for path, shift in zip(files, offs):
    b = open(path, "rb").read()
    magic = b[:4]
    order = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    unit = 10**9 if nano else 10**6
    out, off = [b[:24]], 24
    while off + 16 <= len(b):
        ts, frac, cl, ol = struct.unpack_from(order + "IIII", b, off)
        start = ts * unit + frac if start is None else start
        t = ts * unit + frac + round(shift * unit)
        if path == files[0] or ts * unit + frac >= start + late * unit:
            out.append(struct.pack(order + "IIII", t // unit, t % unit, cl, ol) + b[off + 16:off + 16 + cl])
        off += 16 + cl
    open(os.path.join(dst, os.path.basename(path)), "wb").write(b"".join(out))
PY
}
shift_sample "$tmp/skewed" 0 0 0.100 -0.050 0.200
shift_sample "$tmp/hour" 0 0 3600 -0.050 0.200
shift_sample "$tmp/late" 2.5 0 0.100 -0.050 0.200
"$DMLSCOPE" analyze "$run" --quiet --json "$tmp/as.json" || { echo "clock_offsets: FAIL: analyze sample"; exit 1; }
for name in skewed hour late; do
	"$DMLSCOPE" analyze "$tmp/$name" --quiet --json "$tmp/$name.json" ||
		{ echo "clock_offsets: FAIL: analyze $name"; exit 1; }
done
set -- "$run"/*.pcap
"$DMLSCOPE" analyze "$1" "$2" --quiet --json "$tmp/files.json" &&
	"$DMLSCOPE" analyze <(cat "$1") <(cat "$2") --quiet --json "$tmp/pipes.json" ||
	{ echo "clock_offsets: FAIL: analyze two captures as pipes"; exit 1; }
$py - "$tmp/as.json" "$tmp/skewed.json" "$tmp/hour.json" "$tmp/files.json" "$tmp/pipes.json" \
	"$tmp/late.json" <<'PY'
import json, sys
a, s, h, files, pipes, late = (json.load(open(p)) for p in sys.argv[1:7])
fails = []
got = [f["clock_offset_s"] for f in late["input"]["files"]]
if any(abs(g - w) > 0.0005 for g, w in zip(got, [0.0, 0.100, -0.050, 0.200])):
    fails.append("captures begun 2.5 s apart: offsets %s" % got)
if files["input"]["packets"] != pipes["input"]["packets"]:
    fails.append("two captures as pipes: %d packets, as files %d" %
                 (pipes["input"]["packets"], files["input"]["packets"]))
for x, want in ((s, [0.0, 0.100, -0.050, 0.200]), (h, [0.0, 3600.0, -0.050, 0.200])):
    got = [f["clock_offset_s"] for f in x["input"]["files"]]
    if any(abs(g - w) > 0.0005 for g, w in zip(got, want)) or len(got) != len(want):
        fails.append("offsets %s, want %s within 0.5 ms" % (got, want))
    if (x["pattern"]["kind"], x["iterations"]["count"]) != (a["pattern"]["kind"], a["iterations"]["count"]):
        fails.append("offsets %s: %s, %s iterations; as captured %s, %s" %
                     (want, x["pattern"]["kind"], x["iterations"]["count"], a["pattern"]["kind"],
                      a["iterations"]["count"]))
if any(f["clock_offset_s"] != 0 for f in a["input"]["files"]):
    fails.append("the sample as captured moved: %s" % [f["clock_offset_s"] for f in a["input"]["files"]])
if [n for n in a["notes"] if "clock offsets" in n]:
    fails.append("the sample as captured noted: %s" % a["notes"])
note = [n for n in s["notes"] if "clock offsets of 3 of 4 captures" in n]
if not note or "+100.0 ms" not in note[0] or "+200.0 ms" not in note[0]:
    fails.append("no note naming the offsets: %s" % s["notes"])
for key in ("kind", "ranks"):
    if s["pattern"][key] != a["pattern"][key]:
        fails.append("pattern.%s %s, as captured %s" % (key, s["pattern"][key], a["pattern"][key]))
it, ia = s["iterations"], a["iterations"]
if it["count"] != ia["count"] or it["count"] is None:
    fails.append("count %s, as captured %s" % (it["count"], ia["count"]))
if it["period_s"] is None or abs(it["period_s"] - ia["period_s"]) > 0.005:
    fails.append("period %s, as captured %s" % (it["period_s"], ia["period_s"]))
gs, ga = s["model"]["gradient_bytes"], a["model"]["gradient_bytes"]
if gs is None or abs(gs - ga) > 0.01 * ga:
    fails.append("S %s, as captured %s" % (gs, ga))
for f in fails:
    print("clock_offsets: FAIL:", f)
if not fails:
    print("clock_offsets: ok: %s; %s/%s, %s iterations of %.4f s, S %.0f" %
          (note[0], s["pattern"]["kind"], s["pattern"]["ranks"], it["count"], it["period_s"], gs))
sys.exit(1 if fails else 0)
PY
