#!/usr/bin/env bash
# A steady bulk transfer between two hosts of a job is left out of the
# split into jobs, the job's pattern, steps and S, and said (background.py):
# the bundled DDP ring of 4 (100 and 500 Mbit/s between two ranks that are
# not neighbours, 500 beside a ring edge: its order is 1 4 3 2; 500 from
# rank 1 to a storage host 9 of no job), a
# parameter server of 6 at 2 % loss (300 Mbit/s between two workers) and a
# tree of 8 (300 Mbit/s between two nodes); the same two running on and off
# (2 s on, 3 s off; 3 s on, 4 s off); 2 Gbit/s between two ranks of the
# ring, whose acknowledgements are an edge's tenth; 2 Gbit/s from a rank of
# the ring to its predecessor, whose acknowledgements ride the ring edge
# the other way; a DDP ring of 6 at 2 % loss (its steps are its ranks'
# clocks') with 300 Mbit/s from rank 1 to a non-neighbour, steady and 1.5 s
# on, 2 s off; half-second stretches (2 Gbit/s 0.5 s on, 0.5 s off beside
# the ring; 300 Mbit/s 0.5 s on, 1 s off between two workers of the
# parameter server); a stream from a rank of the ring to its successor,
# along the ring edge, in the sender's own file too (background.py's +);
# the parameter server's worker's own file, whose job moves a twentieth of
# what its stream does.
set -u
NAME=background
sample=$(ls -d "$SRCDIR"/samples/pytorch_ddp-*/ 2>/dev/null | head -1)
[ -n "$sample" ] || { echo "SKIP: no sample run"; exit 77; }
. "$SRCDIR/tests/integration/lib/fixture.sh"
fixture_run rpc6-loss2.tar.xz rpc6-loss2
fixture_unpack tree8-busy.tar.xz
fixture_unpack ddp6-loss2.tar.xz
tree=$(ls -d "$tmp"/*-tree/ | head -1)
mkdir "$tmp/work"
/usr/bin/python3 "$SRCDIR/tests/integration/background.py" "$DMLSCOPE" "$tmp/work" \
	"${sample%/}:1:3:100" "${sample%/}:1:3:500" "${sample%/}:1:4:500" "${sample%/}:1:9:500" \
	"+$run:3:5:300" "${tree%/}:3:5:300" "$run:3:5:300:2:3" "${tree%/}:3:5:300:3:4" \
	"${sample%/}:1:3:2000" "${sample%/}:1:2:2000" "$tmp/ddp6-loss2:1:4:300" \
	"$tmp/ddp6-loss2:1:3:300:1.5:2" "${sample%/}:1:3:2000:0.5:0.5" "$run:3:5:300:0.5:1" \
	"+${sample%/}:4:3:300" "+${sample%/}:1:4:500"
