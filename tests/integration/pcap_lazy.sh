#!/usr/bin/env bash
# libpcap is loaded when first needed (src/io/pcap_dl.h), not at start: the
# binary does not list it as needed, a BPF filter and writing a pcap still
# work through it, and where libpcap cannot be loaded (hidden by a bind
# mount in a mount namespace of our own, as root) reading a capture still
# works while a filter or writing a pcap is one line naming libpcap, exit 3.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
D=$DMLSCOPE
run="$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring"
cap="$run/worker-0-tcpdump.pcap"
packets() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["input"]["packets"])'; }

if command -v readelf >/dev/null 2>&1; then
	if readelf -d "$D" | grep NEEDED | grep -q libpcap; then
		echo "pcap_lazy: FAIL: $D is linked with libpcap (loaded at every start)"; fail=1
	fi
else
	echo "pcap_lazy: no readelf: the link is not checked"
fi
all=$("$D" analyze "$cap" --quiet --json - | packets)
tcp=$("$D" analyze "$cap" --filter "greater 1000" --quiet --json - | packets)
want=$(tcpdump -r "$cap" -nn greater 1000 2>/dev/null | wc -l)
if [ -z "$tcp" ] || [ "$tcp" != "$want" ] || [ "$tcp" -ge "$all" ]; then
	echo "pcap_lazy: FAIL: --filter "greater 1000" gave '$tcp' packets of '$all', tcpdump $want"; fail=1
fi
if ! "$D" generate --pattern ring --workers 2 --iterations 1 --gradient-bytes 100000 \
	-o "$tmp/g.pcap" 2>"$tmp/err" || [ "$(tcpdump -r "$tmp/g.pcap" 2>/dev/null | wc -l)" = 0 ]; then
	echo "pcap_lazy: FAIL: generate wrote no readable pcap: $(cat "$tmp/err")"; fail=1
fi

lib=$(ldconfig -p 2>/dev/null | awk '/libpcap\.so\.[0-9]/ {print $NF; exit}')
lib=${lib:+$(readlink -f "$lib")}
if [ "$(id -u)" != 0 ] || [ -z "$lib" ] || ! command -v unshare >/dev/null 2>&1 ||
	! unshare -m true 2>/dev/null; then
	echo "pcap_lazy: skip the part without libpcap (needs root, unshare and libpcap's path)"
	exit $fail
fi
# in a mount namespace of its own, libpcap's file is /dev/null
hidden() { unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$lib" "$@"; }
expect() { # NAME WANT_RC PATTERN -- CMD...
	local name=$1 want=$2 pat=$3; shift 4
	hidden "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "pcap_lazy: FAIL: $name without libpcap: exit $rc, want $want: $(cat "$tmp/err")"; fail=1
	elif [ -n "$pat" ] && { [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -Eq "$pat" "$tmp/err"; }; then
		echo "pcap_lazy: FAIL: $name without libpcap: stderr is not one line matching '$pat':"
		cat "$tmp/err"; fail=1
	fi
}
expect analyze 0 "" -- "$D" analyze "$run" --quiet --json "$tmp/a.json"
[ -s "$tmp/a.json" ] || { echo "pcap_lazy: FAIL: analyze without libpcap wrote no JSON"; fail=1; }
expect filter 3 "^dmlscope analyze: cannot load libpcap: " -- \
	"$D" analyze "$cap" --filter tcp --quiet --json -
expect generate 3 "^dmlscope generate: '[^']*': cannot load libpcap: " -- \
	"$D" generate --pattern ring --workers 2 --iterations 1 --gradient-bytes 100000 -o "$tmp/h.pcap"
exit $fail
