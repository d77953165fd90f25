#!/usr/bin/env bash
# Reading in a second thread (analyze --threads 2, the default for
# compressed captures) changes nothing: the same JSON, the same exit code and
# the same error line as one thread (--threads 1), on a whole capture, a
# run folder of several captures, a capture truncated in a record and one
# whose record header is corrupt halfway; the default (two threads on two
# CPUs for a plain file of 8 MiB or more) on such a file, whole and cut in
# a record; and a bad --threads is a usage error (exit 2).
# input.files[].compression says gzip, or null.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
run=$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring
cap=$run/worker-0-tcpdump.pcap
size=$(stat -c %s "$cap")
head -c $((size * 3 / 5)) "$cap" >"$tmp/truncated.pcap"
cp "$cap" "$tmp/corrupt.pcap"
gzip -c "$cap" >"$tmp/whole.pcap.gz" # two threads by default
# the 16-byte header of a record near the middle: a caplen of 2^31
/usr/bin/python3 - "$tmp/corrupt.pcap" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, half = 24, len(b) // 2
while off < half:
    off += 16 + struct.unpack_from("<I", b, off + 8)[0]
struct.pack_into("<I", b, off + 8, 1 << 31)
open(sys.argv[1], "wb").write(bytes(b))
PY

# a plain file past the default's threshold, and the same cut in a record
"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 4MB --iterations 20 \
	--snaplen 96 -o "$tmp/big.pcap" >/dev/null 2>&1 || { echo "FAIL generate: exit $?"; fail=1; }
big=$(stat -c %s "$tmp/big.pcap")
[ "$big" -ge $((8 << 20)) ] || { echo "FAIL big.pcap: $big bytes, want 8 MiB or more"; fail=1; }
head -c $((big * 2 / 3)) "$tmp/big.pcap" >"$tmp/bigcut.pcap"
for input in "$tmp/big.pcap" "$tmp/bigcut.pcap"; do
	"$DMLSCOPE" analyze "$input" --threads 1 --quiet --json "$tmp/1.json" 2>"$tmp/1.err"
	rc1=$?
	"$DMLSCOPE" analyze "$input" --quiet --json "$tmp/0.json" 2>"$tmp/0.err"
	rc0=$?
	name=${input#"$tmp"/}
	if [ "$rc1" -ne "$rc0" ] || ! cmp -s "$tmp/1.json" "$tmp/0.json" ||
		! cmp -s "$tmp/1.err" "$tmp/0.err" || [ ! -s "$tmp/1.json" ]; then
		echo "FAIL $name: the default differs from one thread (exit $rc0, $rc1)"; fail=1
	else
		echo "ok $name (default): exit $rc0, $(wc -c <"$tmp/0.json") bytes of JSON"
	fi
done

for input in "$cap" "$run" "$tmp/truncated.pcap" "$tmp/corrupt.pcap" "$tmp/whole.pcap.gz"; do
	"$DMLSCOPE" analyze "$input" --threads 1 --quiet --json "$tmp/1.json" 2>"$tmp/1.err"
	rc1=$?
	"$DMLSCOPE" analyze "$input" --threads 2 --quiet --json "$tmp/2.json" 2>"$tmp/2.err"
	rc2=$?
	name=${input#"$tmp"/}
	if [ "$rc1" -ne "$rc2" ]; then
		echo "FAIL $name: exit $rc1 in one thread, $rc2 in two"; fail=1
	elif ! cmp -s "$tmp/1.json" "$tmp/2.json"; then
		echo "FAIL $name: the JSON differs"; diff "$tmp/1.json" "$tmp/2.json" | head -5; fail=1
	elif ! cmp -s "$tmp/1.err" "$tmp/2.err"; then
		echo "FAIL $name: stderr differs"; cat "$tmp/1.err" "$tmp/2.err"; fail=1
	elif [ ! -s "$tmp/1.json" ]; then
		echo "FAIL $name: no JSON"; fail=1
	else
		echo "ok $name: exit $rc1, $(wc -c <"$tmp/1.json") bytes of JSON, $(wc -l <"$tmp/1.err") error lines"
	fi
done
# input.files[].compression names the gzip layer, and is null on a plain file
for v in "whole.pcap.gz:gzip" "corrupt.pcap:None"; do
	"$DMLSCOPE" analyze "$tmp/${v%%:*}" --quiet --json "$tmp/c.json" 2>/dev/null
	got=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["files"][0]["compression"])' "$tmp/c.json")
	[ "$got" = "${v#*:}" ] || { echo "FAIL ${v%%:*}: compression $got, want ${v#*:}"; fail=1; }
done
# the damaged captures must say so, or the comparison above proves little
for f in truncated corrupt; do
	"$DMLSCOPE" analyze "$tmp/$f.pcap" --threads 2 --quiet --json /dev/null 2>"$tmp/e"
	[ -s "$tmp/e" ] || { echo "FAIL $f: no error line"; fail=1; }
done
"$DMLSCOPE" analyze "$cap" --threads 3 --quiet 2>/dev/null
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL --threads 3: exit $rc, want 2"; fail=1; }
exit $fail
