#!/usr/bin/env bash
# Build the testbed dataset: real PyTorch jobs between network namespaces,
# captured like the study, then cross-checked against their truth with tshark.
#
#   bash testbed/make-dataset.sh            (or: make testbed)
#
# Matrix (override with the environment):
#   FRAMEWORKS="ddp rpc"  ddp = DDP over Gloo (ring), rpc = parameter server (star)
#   MODELS="mobilenetv2 resnet18"  BATCHES="16 32"  RANKS="4 8"
#   STEPS=8 EPOCHS=3      steps per epoch x epochs = 24 steps per run (8 were
#                         too few for a period within 3 % run after run: one
#                         step 30 % slow moves a 6-interval mean by 5 %)
#   LOSS="1"              loss runs (percent): DDP and RPC, resnet18, batch 32, 4 ranks
#   MANUAL="butterfly:mobilenetv2:4 ..."  hand-made all-reduce runs (framework
#                         manual, batch 16): algorithm:model:ranks, hierarchical
#                         in groups of 4; MANUAL="" for none
#   MATRIX=FILE           instead of the above: the runs listed in FILE, one a
#                         line, "SUBDIR run_job.py-ARGS" (testbed/matrix-issue9.txt:
#                         the widened matrix of issue 9, async, MPI, several
#                         jobs, bridge captures); writes DATASET/INDEX.txt
# Output: ${DATASET:-dataset}/n<ranks>/<run>/ (run names as in the study; the
# rank count is the subfolder so names stay unique).  A run folder that
# already holds truth.json is kept (FORCE=1 re-runs it).  Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
DATASET=${DATASET:-dataset}
FRAMEWORKS=${FRAMEWORKS:-"ddp rpc"}
MODELS=${MODELS:-"mobilenetv2 resnet18"}
BATCHES=${BATCHES:-"16 32"}
RANKS=${RANKS:-"4 8"}
STEPS=${STEPS:-8}
EPOCHS=${EPOCHS:-3}
LOSS=${LOSS:-"1"}
MANUAL=${MANUAL-"butterfly:mobilenetv2:4 butterfly:mobilenetv2:6 tree:mobilenetv2:8 hierarchical:mobilenetv2:8"}
FORCE=${FORCE:-0}

if [ "$(id -u)" != 0 ]; then
    echo "make-dataset: needs root (network namespaces, tcpdump, nftables)" >&2
    exit 1
fi
if ! "$PY" -c 'import torch, torchvision' 2>/dev/null; then
    echo "make-dataset: $PY cannot import torch/torchvision; apt-get install python3-torch python3-torchvision" >&2
    exit 1
fi
for t in tcpdump tshark nft ip; do
    command -v "$t" >/dev/null || { echo "make-dataset: '$t' missing" >&2; exit 1; }
done

if [ -n "${MATRIX:-}" ]; then
    [ -f "$MATRIX" ] || { echo "make-dataset: MATRIX '$MATRIX': no such file" >&2; exit 1; }
    mkdir -p "$DATASET"
    start=$(date +%s); i=0; failed=0
    total=$(grep -cv '^[[:space:]]*\(#\|$\)' "$MATRIX")
    while read -r sub rest; do
        case "$sub" in ''|'#'*) continue;; esac
        i=$((i + 1)); t0=$(date +%s)
        read -ra args <<<"$rest"
        printf '[%2d/%d] %s %s\n' "$i" "$total" "$sub" "$rest"
        if [ "$FORCE" != 1 ] && [ -f "$DATASET/$sub/.done-$(echo "$rest" | md5sum | cut -c1-12)" ]; then
            echo "    kept"; continue
        fi
        mkdir -p "$DATASET/$sub"
        if "$PY" testbed/run_job.py "${args[@]}" --out "$DATASET/$sub" --force \
            >"$DATASET/.last-run.log" 2>&1 </dev/null; then
            touch "$DATASET/$sub/.done-$(echo "$rest" | md5sum | cut -c1-12)"
            echo "    ok $(( $(date +%s) - t0 )) s: $(tail -1 "$DATASET/.last-run.log" | sed 's/^run_job: //')"
        else
            failed=$((failed + 1))
            echo "    JOB FAILED ($(( $(date +%s) - t0 )) s), log:"
            sed 's/^/    /' "$DATASET/.last-run.log" | grep -v '^    frame #' | tail -30
        fi
    done <"$MATRIX"
    rm -f "$DATASET/.last-run.log"
    "$PY" testbed/index.py "$DATASET" >"$DATASET/INDEX.txt"
    cat "$DATASET/INDEX.txt"
    echo "make-dataset: $total runs, $failed failed, $(( $(date +%s) - start )) s in all"
    [ "$failed" = 0 ]
    exit
fi

# one line per run: framework model batch ranks loss algorithm
plan=()
for n in $RANKS; do
    for fw in $FRAMEWORKS; do
        for m in $MODELS; do
            for b in $BATCHES; do plan+=("$fw $m $b $n 0 -"); done
        done
    done
done
for l in $LOSS; do
    for fw in $FRAMEWORKS; do plan+=("$fw resnet18 32 4 $l -"); done
done
for x in $MANUAL; do
    IFS=: read -r alg m n <<<"$x"
    plan+=("manual $m 16 $n 0 $alg")
done

total=${#plan[@]}
mkdir -p "$DATASET"
rows="$DATASET/.check-rows"
: >"$rows"
start=$(date +%s)
i=0
failed=0
echo "make-dataset: $total runs, $((STEPS * EPOCHS)) steps each, into $DATASET/"
for line in "${plan[@]}"; do
    i=$((i + 1))
    read -r fw m b n l alg <<<"$line"
    out="$DATASET/n$n"
    mkdir -p "$out"
    args=(--framework "$fw" --model "$m" --batch "$b" --ranks "$n" --steps "$STEPS"
          --epochs "$EPOCHS" --loss "$l" --out "$out")
    [ "$alg" = - ] || args+=(--algorithm "$alg")
    t0=$(date +%s)
    printf '[%2d/%d] %-4s %-11s batch %-3s ranks %s loss %-4s ' "$i" "$total" \
        "$fw$([ "$alg" = - ] || echo "/$alg")" "$m" "$b" "$n" "$l"
    name=$("$PY" - "${args[@]}" <<'EOF'
import sys
sys.path.insert(0, "testbed")
import run_job, argparse
p = argparse.ArgumentParser()
for o in ("--framework", "--model", "--out", "--algorithm"):
    p.add_argument(o)
for o in ("--batch", "--ranks", "--steps", "--epochs"):
    p.add_argument(o, type=int)
p.add_argument("--loss", type=float)
print(run_job.run_name(p.parse_args()))
EOF
)
    if [ "$FORCE" != 1 ] && [ -f "$out/$name/truth.json" ]; then
        "$PY" testbed/check_run.py --table-rows "$rows" "$out/$name" >/dev/null 2>&1 \
            || { failed=$((failed + 1)); echo -n "CHECK FAILED "; }
        echo "kept   $out/$name"
        continue
    fi
    if "$PY" testbed/run_job.py "${args[@]}" --force >"$DATASET/.last-run.log" 2>&1; then
        if "$PY" testbed/check_run.py --table-rows "$rows" "$out/$name" >"$DATASET/.last-check.log" 2>&1; then
            verdict="ok"
        else
            verdict="CHECK FAILED"; failed=$((failed + 1))
            sed 's/^/    /' "$DATASET/.last-check.log"
        fi
        echo "$verdict  $(( $(date +%s) - t0 )) s  $out/$name"
    else
        failed=$((failed + 1))
        echo "JOB FAILED ($(( $(date +%s) - t0 )) s), log:"
        sed 's/^/    /' "$DATASET/.last-run.log" | tail -30
    fi
done
rm -f "$DATASET/.last-run.log" "$DATASET/.last-check.log"
{
    echo "Testbed dataset: payload bytes per step (tshark tcp.len, median over steps 1..K-1)"
    echo "against the formulas (ring: 2(N-1)/N x S per rank; star: S per worker, W x S server;"
    echo "butterfly, tree, hierarchical: the bytes per pair of the algorithm's plan)."
    echo
    "$PY" -c 'import sys; sys.path.insert(0, "testbed"); import check_run; print(check_run.TABLE_HEADER)'
    cat "$rows"
} >"$DATASET/check.txt"
rm -f "$rows"
cat "$DATASET/check.txt"
echo "make-dataset: $total runs, $failed failed, $(( $(date +%s) - start )) s in all; table in $DATASET/check.txt"
[ "$failed" = 0 ]
