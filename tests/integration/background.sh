#!/usr/bin/env bash
# A steady bulk transfer between two hosts of a job is left out of the
# split into jobs, the job's pattern, steps and S, and said (background.py):
# the bundled DDP ring of 4 (100 and 500 Mbit/s between two ranks that are
# not neighbours, 500 beside a ring edge: its order is 1 4 3 2; 500 from
# rank 1 to a storage host 9 of no job), a
# parameter server of 6 at 2 % loss (300 Mbit/s between two workers) and a
# tree of 8 (300 Mbit/s between two nodes).
set -u
NAME=background
sample=$(ls -d "$SRCDIR"/samples/pytorch_ddp-*/ 2>/dev/null | head -1)
[ -n "$sample" ] || { echo "SKIP: no sample run"; exit 77; }
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run rpc6-loss2.tar.xz rpc6-loss2
fixture_unpack tree8-busy.tar.xz
tree=$(ls -d "$tmp"/*-tree/ | head -1)
mkdir "$tmp/work"
exec /usr/bin/python3 "$SRCDIR/tests/integration/background.py" "$DMLSCOPE" "$tmp/work" \
	"${sample%/}:1:3:100" "${sample%/}:1:3:500" "${sample%/}:1:4:500" "${sample%/}:1:9:500" \
	"$run:3:5:300" "${tree%/}:3:5:300"
