#!/usr/bin/env bash
# dmlscope watch's errors: one line naming what is wrong, the documented exit
# code (doc/contract.md), nothing captured.  No capture right (an
# unprivileged user, as root with setpriv; as any other user, that user) and
# a missing interface are I/O errors (3); a filter that does not compile and
# bad options are usage errors (2).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
# expect NAME WANT_RC PATTERN -- CMD...
expect() {
	local name=$1 want=$2 pat=$3; shift 4
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "watch_errors: FAIL: $name: exit $rc, want $want: $(cat "$tmp/err")"; fail=1
	elif [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -Eq "^dmlscope watch: $pat" "$tmp/err"; then
		echo "watch_errors: FAIL: $name: stderr is not one line matching '$pat':"
		cat "$tmp/err"; fail=1
	fi
}
D=$DMLSCOPE
expect missing-iface 3 "no such interface 'dmlsnosuch0'" -- $D watch -i dmlsnosuch0 --duration 1
expect bad-filter 2 "invalid filter 'tcp port': " -- $D watch -i lo --filter "tcp port" --duration 1
expect no-iface 2 "no interface given" -- $D watch --duration 1
expect bad-interval 2 "invalid --interval 'soon'" -- $D watch -i lo --interval soon
expect bad-duration 2 "invalid --duration '-1'" -- $D watch -i lo --duration -1
expect bad-snaplen 2 "invalid --snaplen '10'" -- $D watch -i lo --snaplen 10
expect bad-buffer 2 "invalid --buffer '1kB'" -- $D watch -i lo --buffer 1kB
expect write-stdout 2 "-w takes a file" -- $D watch -i lo -w -
expect extra-arg 2 "unexpected argument 'eth0'" -- $D watch -i lo eth0
expect unknown-opt 2 "unknown option '--bogus'" -- $D watch -i lo --bogus
expect no-value 2 "option '-i' needs a value" -- $D watch -i
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null 2>&1; then
		chmod 755 "$tmp"
		expect unprivileged 3 "'lo': no permission to capture" -- \
			setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all $D watch -i lo --duration 1
		expect unwritable 3 "'/nonexistent-dir/x.pcap': cannot write" -- \
			$D watch -i lo -w /nonexistent-dir/x.pcap --duration 1
	else
		echo "watch_errors: setpriv not found: the unprivileged case not run"
	fi
else
	expect unprivileged 3 "'lo': no permission to capture" -- $D watch -i lo --duration 1
fi
exit $fail
