#!/usr/bin/python3
"""One rank of a real data-parallel training job, run inside a testbed netns.

Started by testbed/run_job.py, once per host, with /usr/bin/python3 (Debian's
python3-torch).  CPU only, one thread per rank.  Two kinds of job:

  ddp  PyTorch DistributedDataParallel over Gloo (TCP).  Every host is a
       worker; gradients are all-reduced in buckets (Gloo's ring all-reduce).
  ps   A synchronous parameter server with torch.distributed.rpc over
       TensorPipe, forced onto TCP (uv transport, basic channel).  Rank 0 is
       the server (it owns the model and Adam); ranks 1..W are workers that
       push their gradients and receive the updated parameters every step.
  manual  Data-parallel training whose gradient averaging is written by hand
       with torch.distributed point-to-point ops over Gloo (isend/recv on
       the flattened gradient), with --algorithm
         butterfly     Rabenseifner all-reduce (Thakur, Rabenseifner & Gropp
                       2005): recursive-halving reduce-scatter (partner at XOR
                       distance N/2 gets S/2, then N/4 gets S/4, ...), then
                       recursive-doubling all-gather back; N a power of two
         tree          binary tree (parent (i-1)/2): reduce to rank 0, then
                       broadcast down the same tree, S per edge each way
         hierarchical  contiguous groups of --group ranks: ring all-reduce
                       inside each group, ring all-reduce of the group
                       leaders (first rank of each group), then each leader
                       broadcasts along its group's ring (a chain)
         pairwise      pair averaging (KungFu's PairAveraging, synchronous):
                       each step, after its local Adam step, a rank swaps
                       its whole parameter vector (S) with one partner
                       (round-robin tournament, a new partner every step)
                       and averages the two
         clique        direct reduce-scatter then all-gather over all pairs
                       (KungFu's CLIQUE): chunk j (S/N) to rank j, then the
                       own reduced chunk to every rank; 2(N-1)/N x S per rank
       The plan of every step (who sends which slice to whom) is computed by
       plan_ops(), which also gives truth.json its expected bytes per pair.

Inputs are synthetic 32x32 RGB images with random labels (a few fixed batches
per rank, cycled, so the loss goes down by memorisation).  Rank 0 writes
train_history.log in the study's format (Keras callback style: header
`Type,ID,Timestamp,Loss,Accuracy`, `Batch,<batch in epoch>,...` after every
step, `Epoch,<epoch>,...` after every epoch) and truth.json with what only the
job knows (parameter count, gradient bytes, ...).
"""
import argparse
import contextlib
import json
import os
import sys
import threading
import time

import torch
import torch.distributed as dist
from torch.distributed import rpc
import torch.nn as nn
import torchvision

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:
    pass

N_CLASSES = 10
N_DISTINCT_BATCHES = 4


def build_model(name):
    torch.manual_seed(1234)  # same initial weights on every rank
    if name == "mobilenetv2":
        return torchvision.models.mobilenet_v2(num_classes=N_CLASSES)
    if name == "resnet18":
        return torchvision.models.resnet18(num_classes=N_CLASSES)
    if name == "resnet50":
        return torchvision.models.resnet50(num_classes=N_CLASSES)
    if name == "tinycnn":  # small and fast, for the smoke test
        return nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 8 * 8, 64), nn.ReLU(),
            nn.Linear(64, N_CLASSES))
    raise SystemExit(f"job: unknown model '{name}'")


def trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


def unflatten_into(tensors, flat):
    """Copy the flat vector back into tensors (parameters or their
    gradients), in order: the inverse of torch.cat of their reshape(-1)."""
    off = 0
    for t in tensors:
        k = t.numel()
        t.copy_(flat[off:off + k].view_as(t))
        off += k


def make_data(rank, batch):
    g = torch.Generator().manual_seed(1000 + rank)
    return [(torch.randn(batch, 3, 32, 32, generator=g),
             torch.randint(0, N_CLASSES, (batch,), generator=g))
            for _ in range(N_DISTINCT_BATCHES)]


class History:
    """train_history.log writer (rank 0 only), flushed row by row."""

    def __init__(self, path):
        self.f = open(path, "w")
        self.f.write("Type,ID,Timestamp,Loss,Accuracy\n")
        self.f.flush()
        self.times = []

    def row(self, kind, idx, loss, acc):
        t = time.time()
        if kind == "Batch":
            self.times.append(t)
        self.f.write(f"{kind},{idx},{t:.6f},{loss:.6f},{acc:.6f}\n")
        self.f.flush()

    def close(self):
        self.f.close()


class Steps:
    """One rank's step bookkeeping: each step's end time (every rank:
    save_steps) and, on rank 0, the train log (`hist`): a Batch row per step,
    an Epoch row of the epoch's mean loss and accuracy."""

    def __init__(self, args):
        self.hist = (History(os.path.join(args.out, "train_history.log"))
                     if args.rank == 0 else None)
        self.times = []
        self.steps = args.steps
        self.el = self.ea = 0.0

    def step(self, b, out, y, loss):
        acc = (out.argmax(1) == y).float().mean().item()
        self.el += loss.item()
        self.ea += acc
        self.times.append(time.time())
        if self.hist:
            self.hist.row("Batch", b, loss.item(), acc)

    def epoch(self, epoch):
        if self.hist:
            self.hist.row("Epoch", epoch, self.el / self.steps, self.ea / self.steps)
        self.el = self.ea = 0.0


FRAMEWORK = {"ddp": "pytorch_ddp", "ps": "pytorch_rpc", "manual": "pytorch_manual",
             "pairavg": "pytorch_async", "gossip": "pytorch_async", "aps": "pytorch_async",
             "mpi": "mpi4py"}
BACKEND = {"ddp": "gloo", "manual": "gloo", "mpi": "openmpi"}  # others: tensorpipe


def save_steps(args, times, role="worker", **extra):
    """This rank's own step end times (every rank, also the ones that write
    no train_history.log) and `extra`: <out>/rank-<i>-steps.json, gathered
    into truth.json by run_job.py."""
    with open(os.path.join(args.out, f"rank-{args.rank}-steps.json"), "w") as f:
        json.dump({"rank": args.rank, "role": role, "step_times": times, **extra}, f)


def write_truth(args, model, extra):
    n = sum(p.numel() for p in trainable(model))
    truth = {
        "framework": FRAMEWORK[args.kind],
        "backend": BACKEND.get(args.kind, "tensorpipe"),
        "model": args.model,
        "optimizer": "adam",
        "batch": args.batch,
        "steps": args.steps * args.epochs,  # total optimizer steps
        "steps_per_epoch": args.steps,
        "epochs": args.epochs,
        "ranks": args.world,
        "trainable_params": n,
        "dtype": "float32",
        "gradient_bytes": 4 * n,
        "torch_version": torch.__version__,
        "torchvision_version": torchvision.__version__,
    }
    truth.update(extra)
    with open(os.path.join(args.out, "job-truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


# ---------------------------------------------------------------- DDP / Gloo
def run_ddp(args):
    dist.init_process_group("gloo", init_method=f"tcp://{args.master}:{args.port}",
                            rank=args.rank, world_size=args.world)
    model = build_model(args.model)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    data = make_data(args.rank, args.batch)
    st = Steps(args)
    k = max(1, args.accum)
    dist.barrier()
    for epoch in range(args.epochs):
        for b in range(args.steps):
            # one optimizer step = k micro-batches; DDP all-reduces only in
            # the last one (no_sync() for the k-1 before: gradient
            # accumulation, the traffic's iteration is the optimizer step)
            opt.zero_grad()
            for j in range(k):
                x, y = data[(b * k + j) % len(data)]
                ctx = ddp.no_sync() if j < k - 1 else contextlib.nullcontext()
                with ctx:
                    out = ddp(x)
                    loss = lossf(out, y)
                    if args.straggle > 0 and args.rank == args.straggle_rank:
                        # a slow rank: longer compute
                        time.sleep(args.straggle)
                    loss.backward()
            opt.step()
            st.step(b, out, y, loss)
        st.epoch(epoch)
    dist.barrier()
    save_steps(args, st.times)
    if args.rank == 0:
        st.hist.close()
        write_truth(args, model, {
            "pattern": "ring", "workers": args.world, "servers": 0,
            "bucket_cap_mb": args.bucket_mb, "accumulation": k,
            "step_times": st.hist.times})
    dist.destroy_process_group()


# ------------------------------------------- hand-made collectives over Gloo
# A plan is a list of phases per rank; a phase is a list of operations
# ("send", peer, lo, hi), ("add", peer, lo, hi) (receive and add) or
# ("copy", peer, lo, hi) (receive and overwrite), on element ranges of the
# flattened gradient.  In a phase every send is posted first (isend), then
# the receives are done in order, then the sends are waited for; a send
# range that a receive of the phase overlaps is sent from a copy.

def _split(lo, hi, k):
    """k contiguous near-equal element ranges of [lo, hi)."""
    n = hi - lo
    return [(lo + n * j // k, lo + n * (j + 1) // k) for j in range(k)]


def _ring_phases(members, rank, lo, hi):
    """Ring all-reduce (reduce-scatter then all-gather, 2(m-1) phases of
    1/m) among `members`; position p sends to position p+1."""
    m = len(members)
    if m < 2 or rank not in members:
        return []
    p = members.index(rank)
    nxt, prv = members[(p + 1) % m], members[(p - 1) % m]
    ch = _split(lo, hi, m)
    out = []
    for s in range(m - 1):  # reduce-scatter
        a, b = ch[(p - s) % m], ch[(p - s - 1) % m]
        out.append([("send", nxt, *a), ("add", prv, *b)])
    for s in range(m - 1):  # all-gather
        a, b = ch[(p + 1 - s) % m], ch[(p - s) % m]
        out.append([("send", nxt, *a), ("copy", prv, *b)])
    return out


def pair_partner(rank, world, step):
    """pairwise: rank's partner in `step`, None for a bye.  The round-robin
    ("circle") tournament, as dmlscope generate does it: with M = N rounded
    up to even, round k = step mod (M-1) pairs position M-1 with k and
    (k + i) with (k - i) mod (M-1); every pair meets once in M-1 steps."""
    M = world + (world & 1)
    k = step % (M - 1)
    for i in range(M // 2):
        a = M - 1 if i == 0 else (k + i) % (M - 1)
        b = (k + M - 1 - i) % (M - 1)
        if rank in (a, b):
            q = b if rank == a else a
            return q if q < world else None
    return None


def plan_ops(alg, rank, world, n, group=4, step=0):
    """The phases rank `rank` runs in step `step` to all-reduce (sum) n
    elements (pairwise: to sum its vector with its partner's)."""
    if alg == "pairwise":
        q = pair_partner(rank, world, step)
        return [] if q is None else [[("send", q, 0, n), ("add", q, 0, n)]]
    if alg == "clique":
        # direct reduce-scatter then all-gather over all pairs (KungFu's
        # CLIQUE: one star per chunk, rooted at the chunk's owner)
        ch = _split(0, n, world)
        peers = [q for q in range(world) if q != rank]
        return [[("send", q, *ch[q]) for q in peers] + [("add", q, *ch[rank]) for q in peers],
                [("send", q, *ch[rank]) for q in peers] + [("copy", q, *ch[q]) for q in peers]]
    if alg == "butterfly":
        # N not a power of two: MPICH's way (Thakur et al. 2005, sec. 4):
        # with p the largest power of two <= N and r = N - p, each even rank
        # below 2r sends its whole vector to rank+1 and waits; the odd ones
        # take part as new rank rank/2, the rest as rank - r; at the end the
        # odd ones send the result back.
        p = 1
        while p * 2 <= world:
            p *= 2
        r = world - p
        if rank < 2 * r and rank % 2 == 0:
            return [[("send", rank + 1, 0, n)], [("copy", rank + 1, 0, n)]]
        new = rank // 2 if rank < 2 * r else rank - r
        real = lambda q: 2 * q + 1 if q < r else q + r
        out, lo, hi, segs = [], 0, n, []
        if rank < 2 * r:
            out.append([("add", rank - 1, 0, n)])
        d = p // 2
        while d >= 1:  # recursive halving reduce-scatter
            peer = real(new ^ d)
            mid = (lo + hi) // 2
            if new & d:
                keep, give = (mid, hi), (lo, mid)
            else:
                keep, give = (lo, mid), (mid, hi)
            out.append([("send", peer, *give), ("add", peer, *keep)])
            segs.append((peer, give))
            lo, hi = keep
            d //= 2
        for peer, give in reversed(segs):  # recursive doubling all-gather
            out.append([("send", peer, lo, hi), ("copy", peer, *give)])
            lo, hi = min(lo, give[0]), max(hi, give[1])
        if rank < 2 * r:
            out.append([("send", rank - 1, 0, n)])
        return out
    if alg == "tree":
        kids = [c for c in (2 * rank + 1, 2 * rank + 2) if c < world]
        parent = (rank - 1) // 2 if rank else None
        out = []
        if kids:
            out.append([("add", c, 0, n) for c in kids])
        if parent is not None:
            out.append([("send", parent, 0, n)])
            out.append([("copy", parent, 0, n)])
        if kids:
            out.append([("send", c, 0, n) for c in kids])
        return out
    if alg == "hierarchical":
        if world % group or group < 2 or world // group < 2:
            raise SystemExit(f"job: hierarchical needs ranks = k x {group}, k >= 2")
        g0 = rank - rank % group
        members = list(range(g0, g0 + group))
        leaders = list(range(0, world, group))
        out = _ring_phases(members, rank, 0, n)
        out += _ring_phases(leaders, rank, 0, n)
        p = rank - g0  # broadcast along the ring: p -> p+1, from the leader
        if p > 0:
            out.append([("copy", rank - 1, 0, n)])
        if p < group - 1:
            out.append([("send", rank + 1, 0, n)])
        return out
    raise SystemExit(f"job: unknown algorithm '{alg}'")


def _reduce_bcast(flat, world):
    dist.reduce(flat, dst=0)
    dist.broadcast(flat, src=0)


def _gather_sum(flat, world):
    parts = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(parts, flat)
    flat.copy_(torch.stack(parts).sum(0))


# Gloo's own collectives instead of a plan (the wire pattern is Gloo's; the
# truth holds no expected pairs): "reducebcast" sums the gradient at rank 0
# and broadcasts it back; "allgather" gathers every rank's whole gradient
# and sums locally (N-1 S sent per rank, where an all-reduce sends
# 2(N-1)/N S)
NATIVE = {"reducebcast": _reduce_bcast, "allgather": _gather_sum}


def expected_pairs(alg, world, n, group=4, elem=4, step=0):
    """{(src, dst): bytes in step `step`} from the plans of every rank."""
    pairs = {}
    for r in range(world):
        for ph in plan_ops(alg, r, world, n, group, step):
            for op, peer, lo, hi in ph:
                if op == "send":
                    pairs[(r, peer)] = pairs.get((r, peer), 0) + elem * (hi - lo)
    return pairs


def run_plan(plan, flat):
    for ph in plan:
        recv = [(lo, hi) for op, peer, lo, hi in ph if op != "send"]
        # a send whose range a receive of the same phase writes (pairwise:
        # the whole vector both ways) sends a copy
        works = [dist.isend(flat[lo:hi].clone() if any(l < hi and lo < h for l, h in recv)
                            else flat[lo:hi], peer)
                 for op, peer, lo, hi in ph if op == "send"]
        for op, peer, lo, hi in ph:
            if op == "send":
                continue
            buf = torch.empty(hi - lo, dtype=flat.dtype)
            dist.recv(buf, peer)
            if op == "add":
                flat[lo:hi] += buf
            else:
                flat[lo:hi].copy_(buf)
        for w in works:
            w.wait()


def run_manual(args):
    dist.init_process_group("gloo", init_method=f"tcp://{args.master}:{args.port}",
                            rank=args.rank, world_size=args.world)
    model = build_model(args.model)  # same seed everywhere: no initial broadcast
    params = trainable(model)
    n = sum(p.numel() for p in params)
    pairwise = args.algorithm == "pairwise"
    opt = torch.optim.Adam(params, lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    data = make_data(args.rank, args.batch)
    st = Steps(args)
    dist.barrier()
    for epoch in range(args.epochs):
        for b in range(args.steps):
            x, y = data[b % len(data)]
            opt.zero_grad(set_to_none=False)
            out = model(x)
            loss = lossf(out, y)
            loss.backward()
            step = epoch * args.steps + b
            native = args.algorithm in NATIVE
            plan = None if native else plan_ops(args.algorithm, args.rank, args.world, n,
                                                 args.group, step)
            if native:
                flat = torch.cat([p.grad.reshape(-1) for p in params])
                NATIVE[args.algorithm](flat, args.world)
                flat /= args.world
                unflatten_into([p.grad for p in params], flat)
                opt.step()
            elif pairwise:
                # pair averaging (KungFu's PairAveraging, made synchronous
                # and symmetric): local Adam step, then the model (S bytes)
                # is swapped with this step's partner and averaged
                opt.step()
                with torch.no_grad():
                    flat = torch.cat([p.detach().reshape(-1) for p in params])
                    run_plan(plan, flat)
                    if plan:
                        flat /= 2
                    unflatten_into(params, flat)
            else:
                flat = torch.cat([p.grad.reshape(-1) for p in params])
                run_plan(plan, flat)
                flat /= args.world
                unflatten_into([p.grad for p in params], flat)
                opt.step()
            st.step(b, out, y, loss)
        st.epoch(epoch)
    dist.barrier()
    if args.rank == 0:
        hist = st.hist
        hist.close()
        total = args.steps * args.epochs
        by_step = [{} if args.algorithm in NATIVE else
                   expected_pairs(args.algorithm, args.world, n, args.group, step=k)
                   for k in range(total)]
        pairs = by_step[0]
        extra = {}
        if pairwise:
            # partners change every step: the plan of every step (index =
            # global step, the one whose Batch row ends it); the per-step
            # pairs are the mean over one round (M-1 steps)
            M = args.world + (args.world & 1)
            pairs = {}
            for k in range(M - 1):
                for sd, v in expected_pairs(args.algorithm, args.world, n, args.group,
                                            step=k).items():
                    pairs[sd] = pairs.get(sd, 0) + v / (M - 1)
            extra["expected_pair_bytes_by_step"] = [
                [[s, d, v] for (s, d), v in sorted(ps.items())] for ps in by_step]
        write_truth(args, model, {**extra,
            "pattern": args.algorithm, "workers": args.world, "servers": 0,
            "algorithm": args.algorithm,
            "group": args.group if args.algorithm == "hierarchical" else None,
            "expected_pair_bytes_per_step": [[s, d, v] for (s, d), v in sorted(pairs.items())],
            "step_times": hist.times})
    dist.destroy_process_group()


# ------------------------------------------------------- parameter server
_PS = None


class ParamServer:
    """Synchronous PS: waits for all W gradients, averages, Adam step, replies
    to every worker with the new parameters."""

    def __init__(self, model, workers, hist, steps):
        self.model = model
        self.params = trainable(model)
        self.opt = torch.optim.Adam(self.params, lr=1e-3)
        self.workers = workers
        self.hist = hist
        self.steps = steps
        self.lock = threading.Lock()
        self.fut = torch.futures.Future()
        self.acc_grads = None
        self.n = 0
        self.step = 0
        self.eloss = 0.0
        self.eacc = 0.0
        self.bl = 0.0
        self.ba = 0.0

    def snapshot(self):
        return [p.detach().clone() for p in self.params]

    def push(self, grads, loss, acc):
        with self.lock:
            if self.acc_grads is None:
                self.acc_grads = [g.clone() for g in grads]
            else:
                for a, g in zip(self.acc_grads, grads):
                    a += g
            self.n += 1
            self.bl += loss
            self.ba += acc
            fut = self.fut
            if self.n == self.workers:
                for p, a in zip(self.params, self.acc_grads):
                    p.grad = a / self.workers
                self.opt.step()
                self.opt.zero_grad(set_to_none=True)
                bl, ba = self.bl / self.workers, self.ba / self.workers
                b = self.step % self.steps
                self.hist.row("Batch", b, bl, ba)
                self.eloss += bl
                self.eacc += ba
                if b == self.steps - 1:
                    self.hist.row("Epoch", self.step // self.steps,
                                  self.eloss / self.steps, self.eacc / self.steps)
                    self.eloss = self.eacc = 0.0
                self.step += 1
                self.acc_grads, self.n, self.bl, self.ba = None, 0, 0.0, 0.0
                self.fut = torch.futures.Future()
                fut.set_result(self.snapshot())
            return fut


def ps_get_params():
    return _PS.snapshot()


def shard_of(params, k, shards):
    """The parameters shard k of `shards` keeps: tensors dealt largest
    first to the lightest shard, so the shards' bytes are near-equal (every
    shards-th tensor gave one shard all of MobileNetV2's convolutions and
    the others its batch norms)."""
    load, owner = [0] * shards, {}
    for i in sorted(range(len(params)), key=lambda i: (-params[i].numel(), i)):
        j = min(range(shards), key=lambda j: (load[j], j))
        owner[i] = j
        load[j] += params[i].numel()
    return [p for i, p in enumerate(params) if owner[i] == k]


@rpc.functions.async_execution
def push_pull(grads, loss, acc):
    return _PS.push(grads, loss, acc)


def run_ps(args):
    global _PS
    shards = max(1, args.shards)
    workers = args.world - shards
    opts = rpc.TensorPipeRpcBackendOptions(
        num_worker_threads=max(8, 2 * args.world), rpc_timeout=600,
        init_method=f"tcp://{args.master}:{args.port}",
        _transports=["uv"], _channels=["basic"])
    # ranks 0..shards-1 are servers ("ps", then "ps1", ...): with shards > 1
    # each keeps shard_of(params) and the workers push and pull each shard
    # to its server at once; shard 0's server keeps the log
    names = ["ps"] + [f"ps{k}" for k in range(1, shards)]
    name = names[args.rank] if args.rank < shards else f"worker{args.rank}"
    if args.rank < shards:
        model = build_model(args.model)
        path = os.path.join(args.out, "train_history.log" if args.rank == 0 else
                            f"shard-{args.rank}-history.log")
        hist = History(path)
        _PS = ParamServer(model, workers, hist, args.steps)
        _PS.params = shard_of(_PS.params, args.rank, shards)
        _PS.opt = torch.optim.Adam(_PS.params, lr=1e-3)
        rpc.init_rpc(name, rank=args.rank, world_size=args.world, rpc_backend_options=opts)
        rpc.shutdown()  # waits until every worker is done
        hist.close()
        if args.rank == 0:
            write_truth(args, model, {
                "pattern": "star", "workers": workers, "servers": shards,
                "step_times": hist.times})
        else:
            os.unlink(path)
        return
    rpc.init_rpc(name, rank=args.rank, world_size=args.world, rpc_backend_options=opts)
    model = build_model(args.model)
    params = trainable(model)
    lossf = nn.CrossEntropyLoss()
    data = make_data(args.rank, args.batch)
    parts = [shard_of(params, k, shards) for k in range(shards)]
    new = [rpc.rpc_sync(names[k], ps_get_params) for k in range(shards)]
    for epoch in range(args.epochs):
        for b in range(args.steps):
            with torch.no_grad():
                for k in range(shards):
                    for p, v in zip(parts[k], new[k]):
                        p.copy_(v)
            x, y = data[b % len(data)]
            model.zero_grad(set_to_none=True)
            out = model(x)
            loss = lossf(out, y)
            loss.backward()
            acc = (out.argmax(1) == y).float().mean().item()
            futs = [rpc.rpc_async(names[k], push_pull,
                                  args=([p.grad for p in parts[k]], loss.item(), acc))
                    for k in range(shards)]
            new = [f.wait() for f in futs]
    rpc.shutdown()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", choices=["ddp", "ps", "manual", "pairavg", "gossip", "aps", "mpi"],
                    required=True)
    ap.add_argument("--algorithm", choices=["butterfly", "tree", "hierarchical",
                                            "pairwise", "clique", "reducebcast", "allgather"],
                    default="butterfly", help="manual: the hand-made all-reduce")
    ap.add_argument("--group", type=int, default=4, help="manual hierarchical: ranks per group")
    ap.add_argument("--shards", type=int, default=1,
                    help="ps: parameter servers (ranks 0..shards-1), each keeping a shard")
    ap.add_argument("--rank", type=int, help="(mpi: from MPI)")
    ap.add_argument("--world", type=int, help="(mpi: from MPI)")
    ap.add_argument("--master", help="rendezvous address (not mpi)")
    ap.add_argument("--port", type=int, default=29500)
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=20, help="steps per epoch")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--bucket-mb", type=float, default=25.0, help="ddp: bucket_cap_mb")
    ap.add_argument("--accum", type=int, default=1,
                    help="ddp: micro-batches per optimizer step (no_sync for k-1 of k)")
    ap.add_argument("--straggle", type=float, default=0.0,
                    help="ddp, mpi: seconds the straggler sleeps per micro-batch")
    ap.add_argument("--straggle-rank", type=int, default=-1, help="ddp, mpi: the straggler")
    ap.add_argument("--pace", type=float, default=0.0,
                    help="async kinds: seconds this rank sleeps per step (its own speed)")
    ap.add_argument("--mpi-alg", default="", help="mpi: the Open MPI allreduce algorithm "
                    "forced with MCA (for truth.json only)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    # job_async and job_mpi `import job`: this very module, not a second copy
    # (a second torch.set_num_interop_threads aborts the process)
    sys.modules.setdefault("job", sys.modules[__name__])
    if args.kind == "mpi":
        import job_mpi
        job_mpi.run(args)
        return
    if args.rank is None or args.world is None or not args.master:
        ap.error("--rank, --world and --master are required")
    if args.kind == "ddp":
        run_ddp(args)
    elif args.kind == "manual":
        run_manual(args)
    elif args.kind == "ps":
        run_ps(args)
    else:
        import job_async
        job_async.run(args)


if __name__ == "__main__":
    main()
