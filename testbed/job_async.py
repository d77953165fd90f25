#!/usr/bin/python3
"""Asynchronous data-parallel jobs for the testbed: each rank at its own
pace, nobody waits for a global step.  All three use torch.distributed.rpc
over TensorPipe forced onto TCP (uv transport, basic channel), as the
synchronous parameter server of job.py does.  Started by job.py (--kind).

  pairavg  pair averaging with a random peer, AD-PSGD's atomic averaging
           (Lian et al., ICML 2018; KungFu's PairAveraging, Mai et al.,
           OSDI 2020, is the same exchange with a model store): after its
           local Adam step a rank picks a random other rank, sends it its
           whole flattened parameter vector (S bytes); the peer answers with
           its own (S bytes back) and both take the mean of the two (the
           peer at its next step boundary: autograd forbids changing the
           parameters during its forward/backward pass).
           One exchange per step of the caller: S each way.
  gossip   push gossip: after its step a rank sends its parameter vector (S)
           to a random other rank, which averages it into its own on
           arrival; the answer is an empty acknowledgement.  At most one push
           of a rank in flight (the next step waits for the previous push).
  aps      asynchronous parameter server (Hogwild-style, no barrier): rank 0
           owns the model and Adam; a worker pushes its gradients (S), the
           server applies them at once and answers with the new parameters
           (S).  Workers of different speeds (--pace).

--pace P: the rank sleeps P seconds per step after its backward pass, i.e.
it computes slower, as a slower device would (run_job.py gives every rank a
different pace, so each rank has its own step period).  Every rank writes its
step end times (rank-<i>-steps.json); rank 0 writes train_history.log (for
aps: the server, one Batch row per applied update).
"""
import os
import random
import threading
import time

import torch
import torch.nn as nn
from torch.distributed import rpc

import job as J

_ST = None  # this rank's model state, for the RPC handlers


class State:
    def __init__(self, model):
        self.model = model
        self.params = J.trainable(model)
        self.lock = threading.Lock()
        self.served = 0
        self.inbox = []  # peers' vectors, averaged in at the next step boundary

    def mix_inbox(self):
        """(lock held) average what peers sent since the last step into
        ours; done between steps, as autograd forbids changing the
        parameters in place during a forward/backward pass."""
        for theirs in self.inbox:
            self.load((self.flat() + theirs) / 2)
        self.inbox = []

    def flat(self):
        return torch.cat([p.detach().reshape(-1) for p in self.params])

    def load(self, flat):
        with torch.no_grad():
            J.unflatten_into(self.params, flat)


def pa_exchange(theirs):
    """pairavg, on the peer: answer with our vector, average theirs in."""
    with _ST.lock:
        mine = _ST.flat()
        _ST.inbox.append(theirs)
        _ST.served += 1
    return mine


def gossip_recv(theirs):
    """gossip, on the receiver: average the pushed vector into ours."""
    with _ST.lock:
        _ST.inbox.append(theirs)
        _ST.served += 1
    return True


class AsyncServer:
    """aps: applies every worker's gradients as they come (no barrier)."""

    def __init__(self, model, hist, steps_per_epoch):
        self.st = State(model)
        self.opt = torch.optim.Adam(self.st.params, lr=1e-3)
        self.hist = hist
        self.spe = steps_per_epoch
        self.updates = 0
        self.by_rank = {}

    def push(self, rank, grads, loss, acc):
        with self.st.lock:
            for p, g in zip(self.st.params, grads):
                p.grad = g
            self.opt.step()
            self.opt.zero_grad(set_to_none=True)
            self.hist.row("Batch", self.updates % self.spe, loss, acc)
            self.updates += 1
            self.by_rank[rank] = self.by_rank.get(rank, 0) + 1
            return [p.detach().clone() for p in self.st.params]


_SERVER = None


def aps_push(rank, grads, loss, acc):
    return _SERVER.push(rank, grads, loss, acc)


def aps_params():
    with _SERVER.st.lock:
        return [p.detach().clone() for p in _SERVER.st.params]


def name(r):
    return f"w{r}"


def init(args):
    opts = rpc.TensorPipeRpcBackendOptions(
        num_worker_threads=max(8, 2 * args.world), rpc_timeout=600,
        init_method=f"tcp://{args.master}:{args.port}",
        _transports=["uv"], _channels=["basic"])
    rpc.init_rpc(name(args.rank), rank=args.rank, world_size=args.world,
                 rpc_backend_options=opts)


def run_peer(args):
    """pairavg and gossip: every rank trains and exchanges with random peers."""
    global _ST
    model = J.build_model(args.model)  # same seed: same start everywhere
    _ST = State(model)
    init(args)
    opt = torch.optim.Adam(_ST.params, lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    data = J.make_data(args.rank, args.batch)
    rng = random.Random(7000 + args.rank)
    st = J.Steps(args)
    peers = [q for q in range(args.world) if q != args.rank]
    chosen, pending = [], None
    for epoch in range(args.epochs):
        for b in range(args.steps):
            x, y = data[b % len(data)]
            opt.zero_grad(set_to_none=False)
            out = model(x)
            loss = lossf(out, y)
            loss.backward()
            if args.pace > 0:
                time.sleep(args.pace)
            with _ST.lock:
                opt.step()
                _ST.mix_inbox()
                mine = _ST.flat()
            peer = rng.choice(peers)
            chosen.append(peer)
            if args.kind == "pairavg":
                theirs = rpc.rpc_sync(name(peer), pa_exchange, args=(mine,))
                with _ST.lock:
                    _ST.load((mine + theirs) / 2)
            else:
                if pending is not None:
                    pending.wait()
                pending = rpc.rpc_async(name(peer), gossip_recv, args=(mine,))
            st.step(b, out, y, loss)
        st.epoch(epoch)
    if pending is not None:
        pending.wait()
    rpc.shutdown()  # graceful: serves the others until every rank is done
    J.save_steps(args, st.times, peers=chosen, served=_ST.served)
    hist = st.hist
    if hist:
        hist.close()
        J.write_truth(args, model, {
            "pattern": "pairwise", "workers": args.world, "servers": 0,
            "algorithm": args.kind, "mode": "asynchronous",
            "bytes_per_exchange": 4 * sum(p.numel() for p in _ST.params),
            "step_times": hist.times})


def run_aps(args):
    global _SERVER
    if args.rank == 0:
        model = J.build_model(args.model)
        hist = J.History(os.path.join(args.out, "train_history.log"))
        _SERVER = AsyncServer(model, hist, args.steps)
        init(args)
        rpc.shutdown()  # until every worker is done
        hist.row("Epoch", 0, 0.0, 0.0)
        hist.close()
        J.save_steps(args, hist.times, role="server")
        J.write_truth(args, model, {
            "pattern": "star", "workers": args.world - 1, "servers": 1,
            "algorithm": "aps", "mode": "asynchronous",
            "server_updates": _SERVER.updates,
            "server_updates_by_rank": {str(k): v for k, v in sorted(_SERVER.by_rank.items())},
            "step_times": hist.times})
        return
    init(args)
    model = J.build_model(args.model)
    params = J.trainable(model)
    lossf = nn.CrossEntropyLoss()
    data = J.make_data(args.rank, args.batch)
    new = rpc.rpc_sync(name(0), aps_params)
    times = []
    for epoch in range(args.epochs):
        for b in range(args.steps):
            with torch.no_grad():
                for p, v in zip(params, new):
                    p.copy_(v)
            x, y = data[b % len(data)]
            model.zero_grad(set_to_none=True)
            out = model(x)
            loss = lossf(out, y)
            loss.backward()
            if args.pace > 0:
                time.sleep(args.pace)
            acc = (out.argmax(1) == y).float().mean().item()
            new = rpc.rpc_sync(name(0), aps_push,
                               args=(args.rank, [p.grad for p in params], loss.item(), acc))
            times.append(time.time())
    J.save_steps(args, times)
    rpc.shutdown()


def run(args):
    if args.kind == "aps":
        run_aps(args)
    else:
        run_peer(args)
