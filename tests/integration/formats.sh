#!/usr/bin/env bash
# formats.sh - the same packets in every container dmlscope reads give the
# same counts.  The sample run's worker captures (pcap, microseconds) are
# rewritten by Wireshark's editcap/mergecap as nanosecond pcap, as pcapng,
# and merged into one pcapng; the four files together and a copy of one
# file beside itself (a packet "captured at both ends") must agree with the
# originals on packets, wire bytes and payload bytes.  Skipped (77) without
# editcap/mergecap (Debian: wireshark-common, pulled in by tshark).
set -u
command -v editcap >/dev/null && command -v mergecap >/dev/null || {
	echo "editcap/mergecap not installed: skipped"; exit 77; }
run=$SRCDIR/samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring
[ -d "$run" ] || { echo "no sample run: skipped"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

# counts FILE...: "packets wire payload duplicates" of analyze --json
counts() {
	"$DMLSCOPE" analyze --quiet --json - "$@" 2>"$tmp/err" | /usr/bin/python3 -c '
import json, sys
i = json.load(sys.stdin)["input"]
print(i["packets"], i["wire_bytes"], i["payload_bytes"], i["skipped"]["duplicates"])'
}
check() { # NAME WANT GOT
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: got '$3', want '$2'"; cat "$tmp/err"; fail=1
	else
		echo "ok   $1: $3"
	fi
}

ws=("$run"/worker-*-tcpdump.pcap)
want=$(counts "${ws[@]}")
[ -n "$want" ] || { echo "FAIL: analyze of the sample"; cat "$tmp/err"; exit 1; }
ng=() ns=()
for w in "${ws[@]}"; do
	b=$(basename "$w" .pcap)
	editcap -F pcapng "$w" "$tmp/$b.pcapng" && ng+=("$tmp/$b.pcapng")
	editcap -F nsecpcap "$w" "$tmp/$b.ns.pcap" && ns+=("$tmp/$b.ns.pcap")
done
check "pcapng per worker" "$want" "$(counts "${ng[@]}")"
check "nanosecond pcap per worker" "$want" "$(counts "${ns[@]}")"
mergecap -F pcapng -w "$tmp/all.pcapng" "${ws[@]}"
check "one merged pcapng" "$want" "$(counts "$tmp/all.pcapng")"

# worker 0 captured twice (as if at both ends): counted once
one=$(counts "${ws[0]}")
read -r p w pay _ <<<"$one"
check "same packets in two files" "$p $w $pay $p" "$(counts "${ws[0]}" "${ng[0]}")"
exit $fail
