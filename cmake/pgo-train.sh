#!/usr/bin/env bash
# pgo-train.sh GEN USE: the profiles of build GEN's instrumented dmlscope
# (-DDMLS_PGO=GENERATE) for build USE (-DDMLS_PGO=USE).
#
# The binary analyzes the bundled samples, every real run of tests/data
# (patterns, collectives, frameworks, jobs sharing hosts, -i any, loss:
# paths never taken in training are laid out as cold), generated jobs (one
# long, threaded and not; the study's patterns from `dmlscope generate`) and
# a flood of new flows, and compares runs: the paths of every packet and of
# the analysis.  Each profile (.gcda, written beside its object in GEN) is
# copied to the same place in USE, where -fprofile-use reads it, and USE's
# stamp (pgo.stamp, a dependency of every object there) is written: USE is
# rebuilt with them.  The stamp holds the checksum of the binary and of this
# script: nothing is done while it names both (their profiles are in place).
# A run that fails fails the build: its profile would train the compiler on
# an error path.
set -euo pipefail
gen=$1 use=$2
bin=$gen/dmlscope stamp=$use/pgo.stamp
sum=$(cat "$bin" "$0" | cksum) # the binary and this training
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && exit 0
here=$(cd "$(dirname "$0")/.." && pwd)
py=$(command -v python3 || true)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
find "$gen" -name '*.gcda' -delete
printf 'training the profile-guided build ... '
t0=$(date +%s.%N)

an() { "$bin" analyze "$@" --quiet --json /dev/null; }

for s in "$here"/samples/*/; do
	an "$s"
done
mkdir "$work/runs"
for f in "$here"/tests/data/*.tar.xz; do # each a run folder or two
	tar -xJf "$f" -C "$work/runs"
	for r in "$work/runs"/*/; do
		an "$r"
	done
	rm -rf "${work:?}/runs/"*
done
"$bin" compare "$here"/samples/*/ --quiet --json /dev/null
for p in ring tree star butterfly; do
	"$bin" generate --pattern "$p" --workers 6 --gradient-bytes 300KB --iterations 60 \
		--snaplen 96 --seed 1 -o "$work/$p.pcap" >/dev/null 2>&1
	an "$work/$p.pcap"
done
if [ -n "$py" ]; then
	"$py" "$here/bench/gencap.py" job "$work/job.pcap" --hosts 8 --iterations 300 --snaplen 100 \
		--seed 1 >/dev/null
	an "$work/job.pcap" --threads 1
	an "$work/job.pcap" --threads 2
	"$py" "$here/bench/gencap.py" job "$work/stream.pcap" --hosts 4 --iterations 60 --snaplen 100 \
		--seed 2 --stream-mbps 200 >/dev/null
	an "$work/stream.pcap"
	"$py" "$here/bench/gencap.py" flood "$work/flood.pcap" --packets 150000 --snaplen 100 \
		--seed 1 >/dev/null
	an "$work/flood.pcap" --threads 2
fi

profiles=$(cd "$gen" && find CMakeFiles -name '*.gcda')
if [ -z "$profiles" ]; then
	echo "pgo-train.sh: the runs wrote no profiles: is $gen built with -DDMLS_PGO=GENERATE?" >&2
	exit 1
fi
find "$use" -path "$use/CMakeFiles/*" -name '*.gcda' -delete
while read -r f; do
	mkdir -p "$use/$(dirname "$f")"
	cp "$gen/$f" "$use/$f"
done <<<"$profiles"
echo "$sum" >"$stamp"
awk "BEGIN{printf \"%.1f s, %d profiles\n\", $(date +%s.%N) - $t0, $(wc -l <<<"$profiles")}"
