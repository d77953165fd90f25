#!/usr/bin/env bash
# Progress on stderr: on a terminal (a pty made by script(1)) while a capture
# is read; nothing when stderr is not a terminal, nothing with --quiet.
# DMLSCOPE_PROGRESS_DELAY=0 so that a short capture shows it too.
set -u
command -v script >/dev/null || { echo "skip: no script(1) to make a terminal"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
"$DMLSCOPE" generate --pattern ring --workers 4 --gradient-bytes 2MB --iterations 60 \
	--snaplen 100 -o "$tmp/job.pcap" >/dev/null 2>&1 || { echo "FAIL generate"; exit 1; }
export DMLSCOPE_PROGRESS_DELAY=0
script -qec "'$DMLSCOPE' analyze '$tmp/job.pcap' --json /dev/null >/dev/null" /dev/null \
	>"$tmp/tty" 2>&1
grep -aq "dmlscope analyze: .* of .* (.*%).* packets" "$tmp/tty" ||
	{ echo "FAIL: no progress on a terminal: $(tr '\r' '\n' <"$tmp/tty" | head -3)"; fail=1; }
script -qec "'$DMLSCOPE' analyze '$tmp/job.pcap' --quiet" /dev/null >"$tmp/quiet" 2>&1
grep -aq "packets" "$tmp/quiet" && { echo "FAIL: progress with --quiet"; fail=1; }
"$DMLSCOPE" analyze "$tmp/job.pcap" --json /dev/null >/dev/null 2>"$tmp/err"
[ -s "$tmp/err" ] && { echo "FAIL: stderr not a terminal but written: $(head -c 200 "$tmp/err")"; fail=1; }
[ $fail = 0 ] && echo "progress: on a terminal, not with --quiet, not to a file"
exit $fail
