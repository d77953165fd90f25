#!/usr/bin/env bash
# Compressed captures, by content not by name: a gzip'd, xz'd, zstd'd or
# lz4'd capture (file, odd name, standard input, frames in a row) gives the
# same document as the plain one; a stream cut short gives what came before
# it, says why and exits 1; bzip2 and lz4's legacy format are named with
# how to decompress; corrupt data is one line, exit 1.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
cap="$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring/worker-0-tcpdump.pcap"
command -v gzip >/dev/null || { echo "skip: no gzip"; exit 77; }
gzip -c "$cap" >"$tmp/w.pcap.gz"
cp "$tmp/w.pcap.gz" "$tmp/noext"
doc() { # the document without the file's path, its compression checked: $1
	/usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)
for f in d["input"]["files"]:
    f["path"] = ""
    if f.get("compression", "missing") == (sys.argv[1] or None):
        f["compression"] = None
print(json.dumps(d, sort_keys=True))' "${1:-}"
}
"$DMLSCOPE" analyze "$cap" --quiet --json - | doc >"$tmp/plain"
for f in "$tmp/w.pcap.gz" "$tmp/noext"; do
	"$DMLSCOPE" analyze "$f" --quiet --json - | doc gzip >"$tmp/z"
	cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL $(basename "$f"): not the plain document"; fail=1; }
done
"$DMLSCOPE" analyze - --quiet --json - <"$tmp/w.pcap.gz" | doc gzip >"$tmp/z"
cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL gzip on standard input"; fail=1; }

/usr/bin/python3 -c 'import lzma, sys
open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read()))' "$cap" "$tmp/w.pcap.xz"
"$DMLSCOPE" analyze "$tmp/w.pcap.xz" --quiet --json - | doc xz >"$tmp/z"
cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL xz: not the plain document"; fail=1; }
"$DMLSCOPE" analyze - --quiet --json - <"$tmp/w.pcap.xz" | doc xz >"$tmp/z"
cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL xz on standard input"; fail=1; }
head -c 60000 "$tmp/w.pcap.xz" >"$tmp/cut.xz"
"$DMLSCOPE" analyze "$tmp/cut.xz" --quiet --json "$tmp/cutxz.json" 2>"$tmp/err"
rc=$?
if [ $rc != 1 ] || ! grep -q "cut.xz': truncated record" "$tmp/err"; then
	echo "FAIL cut xz: exit $rc, $(cat "$tmp/err")"; fail=1
fi

expect_bad() { # NAME PATTERN: exit 1, one line naming the file and matching
	"$DMLSCOPE" analyze "$tmp/$1" --quiet >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ $rc != 1 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -Eq "'.*$1': $2" "$tmp/err"; then
		echo "FAIL $1: exit $rc, $(cat "$tmp/err")"; fail=1
	fi
}
# framed NAME COMPRESS...: a capture compressed by COMPRESS (file, standard
# input), two frames in a row (the capture cut at an odd byte, each part
# compressed alone, as `cat a.zst b.zst` makes) and a stream cut short
framed() {
	local name=$1; shift
	"$@" <"$cap" >"$tmp/w.$name"
	"$DMLSCOPE" analyze "$tmp/w.$name" --quiet --json - | doc "$name" >"$tmp/z"
	cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL $name: not the plain document"; fail=1; }
	"$DMLSCOPE" analyze - --quiet --json - <"$tmp/w.$name" | doc "$name" >"$tmp/z"
	cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL $name on standard input"; fail=1; }
	head -c 300001 "$cap" | "$@" >"$tmp/two.$name"
	tail -c +300002 "$cap" | "$@" >>"$tmp/two.$name"
	"$DMLSCOPE" analyze "$tmp/two.$name" --quiet --json - | doc "$name" >"$tmp/z"
	cmp -s "$tmp/plain" "$tmp/z" || { echo "FAIL $name of two frames: not the plain document"; fail=1; }
	head -c 60000 "$tmp/w.$name" >"$tmp/cut.$name"
	"$DMLSCOPE" analyze "$tmp/cut.$name" --quiet --json "$tmp/cut$name.json" 2>"$tmp/err"
	local rc=$? n
	n=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["packets"])' "$tmp/cut$name.json" 2>/dev/null || echo 0)
	if [ $rc != 1 ] || [ "$n" -le 0 ] ||
	   ! grep -q "cut.$name': truncated record .* (the $name data ends inside a frame)" "$tmp/err"; then
		echo "FAIL cut $name: exit $rc, $n packets, $(cat "$tmp/err")"; fail=1
	fi
}
more=""
if command -v zstd >/dev/null; then
	framed zstd zstd -q -c
	more="$more, zstd"
else
	echo "compressed: no zstd command (apt-get install zstd): zstd captures untested"
fi
if command -v lz4 >/dev/null; then
	framed lz4 lz4 -q -c -B4 # 64 KiB blocks: a cut stream keeps its first ones
	# lz4's default blocks are 4 MiB: cut, the capture's one block is gone
	lz4 -q -c <"$cap" | head -c 60000 >"$tmp/cut1.lz4"
	expect_bad cut1.lz4 "lz4 data cut short at byte 60000: nothing decompressed"
	lz4 -q -c -l <"$cap" >"$tmp/legacy.lz4"
	expect_bad legacy.lz4 "compressed with lz4's legacy format"
	more="$more, lz4"
else
	echo "compressed: no lz4 command (apt-get install lz4): lz4 captures untested"
fi

head -c 100000 "$tmp/w.pcap.gz" >"$tmp/cut.gz"
"$DMLSCOPE" analyze "$tmp/cut.gz" --quiet --json "$tmp/cut.json" 2>"$tmp/err"
rc=$?
n=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input"]["packets"])' "$tmp/cut.json" 2>/dev/null || echo 0)
if [ $rc != 1 ] || [ "$n" -le 0 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "cut.gz" "$tmp/err"; then
	echo "FAIL cut gzip: exit $rc, $n packets, $(cat "$tmp/err")"; fail=1
fi

printf '\xfd7zXZ\0garbage-garbage' >"$tmp/bad.xz"; expect_bad bad.xz "corrupt xz data"
printf '\x28\xb5\x2f\xfdgarbage-garbage' >"$tmp/bad.zst"; expect_bad bad.zst "corrupt zstd data"
printf 'BZh91AY&SY' >"$tmp/a.bz2";          expect_bad a.bz2 "compressed with bzip2"
printf '\x04\x22\x4d\x18\x64\x40' >"$tmp/a.lz4"; expect_bad a.lz4 "lz4 data cut short at byte 6"
printf '\x04\x22\x4d\x18garbage-garbage' >"$tmp/bad.lz4"; expect_bad bad.lz4 "corrupt lz4 data"
printf '\x1f\x8b\x09\0garbage-garbage' >"$tmp/bad.gz"; expect_bad bad.gz "corrupt gzip data"
printf '' | gzip -c >"$tmp/empty.gz"; expect_bad empty.gz "empty once decompressed \(gzip\)"
gzip -c "$cap" | head -c 12 >"$tmp/head.gz"; expect_bad head.gz "gzip data cut short at byte 12: nothing decompressed"
[ $fail = 0 ] && echo "compressed: gzip, xz$more by content (file, stdin), cut, bzip2 and legacy lz4 named, corrupt"
exit $fail
