#!/usr/bin/env bash
# corpus.sh - `dmlscope analyze --quiet` over every file of a corpus of
# odd real captures (tcpdump's own test captures: every link type, broken
# and truncated files, pcapng variants).  Each file must end in exit code 0
# (analyzed) or 1 (read but bad or unusable), within a timeout, and without
# a sanitizer report; anything else (a crash, exit 2/3, a hang) fails.
#
# The corpus is optional: the directory DMLS_CORPUS names, else
# ../shared/corpus/tcpdump-tests beside the source tree (SRCDIR/..).
# Skipped (77) when it is absent.
#
# Env: DMLSCOPE (the binary), SRCDIR; DMLS_CORPUS the corpus dir;
# DMLS_CORPUS_TIMEOUT the seconds per file (default 20).
set -u
corpus=${DMLS_CORPUS:-$SRCDIR/../shared/corpus/tcpdump-tests}
limit=${DMLS_CORPUS_TIMEOUT:-20}
if [ ! -d "$corpus" ]; then
	echo "SKIP: corpus '$corpus' not found (set DMLS_CORPUS to tcpdump's test captures)"
	exit 77
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
n=0 bad=0 rc0=0 rc1=0
for f in "$corpus"/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	timeout "$limit" "$DMLSCOPE" analyze --quiet "$f" >/dev/null 2>"$log"
	rc=$?
	if grep -qE 'Sanitizer|runtime error:' "$log"; then
		echo "FAIL (sanitizer) $f"
		head -20 "$log"
		bad=$((bad + 1))
	elif [ "$rc" -eq 0 ]; then
		rc0=$((rc0 + 1))
	elif [ "$rc" -eq 1 ]; then
		rc1=$((rc1 + 1))
	else
		case $rc in
		124) why="timeout after ${limit}s" ;;
		*) why="exit $rc" ;;
		esac
		echo "FAIL ($why) $f"
		head -5 "$log"
		bad=$((bad + 1))
	fi
done
echo "corpus: $n files, $rc0 analyzed, $rc1 rejected as bad input, $bad failures"
[ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
