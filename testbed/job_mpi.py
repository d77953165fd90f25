#!/usr/bin/python3
"""One rank of a data-parallel job whose gradients are all-reduced by Open
MPI (mpi4py, Debian python3-mpi4py over openmpi-bin): each step the
gradients are flattened into one float32 numpy buffer (a view of a torch
tensor) and summed with comm.Allreduce, divided by N, copied back, then
Adam.  This is what Horovod's MPI path moves too: one all-reduce of S bytes
per step.  Started by mpirun (run_job.py --framework mpi), rank and world
from MPI; the BTL is TCP over eth0 only, so the ranks talk over the
testbed's bridge.  Which all-reduce algorithm Open MPI runs is chosen by
run_job.py with MCA parameters (coll_tuned) and recorded in truth.json.

Two more ways to the same averaged gradient, with other collectives
(--mpi-alg): "zero" reduce-scatters the gradient (each rank then holds the
sum of its 1/N shard, as ZeRO and FSDP do) and all-gathers the shards:
the bytes of a ring all-reduce, in two calls; "rootreduce" reduces it to
rank 0 and broadcasts the sum back (a parameter server made of
collectives: Open MPI's trees or chains for large messages).
"""
import os
import socket
import time

import numpy as np
import torch
import torch.nn as nn
from mpi4py import MPI

import job as J


def run(args):
    comm = MPI.COMM_WORLD
    args.rank, args.world = comm.Get_rank(), comm.Get_size()
    model = J.build_model(args.model)  # same seed everywhere: no broadcast
    params = J.trainable(model)
    n = sum(p.numel() for p in params)
    opt = torch.optim.Adam(params, lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    data = J.make_data(args.rank, args.batch)
    st = J.Steps(args)
    recv = np.empty(n, dtype=np.float32)
    pad = -n % args.world  # zero: the shards are equal
    shard = np.empty((n + pad) // args.world, dtype=np.float32)
    full = np.empty(n + pad, dtype=np.float32)
    comm.Barrier()
    for epoch in range(args.epochs):
        for b in range(args.steps):
            x, y = data[b % len(data)]
            opt.zero_grad(set_to_none=False)
            out = model(x)
            loss = lossf(out, y)
            if args.straggle > 0 and args.rank == args.straggle_rank:
                time.sleep(args.straggle)
            loss.backward()
            flat = torch.cat([p.grad.reshape(-1) for p in params]).numpy()
            if args.mpi_alg == "zero":
                comm.Reduce_scatter_block(np.concatenate([flat, np.zeros(pad, np.float32)]),
                                          shard, op=MPI.SUM)
                comm.Allgather(shard, full)
                recv[:] = full[:n]
            elif args.mpi_alg == "rootreduce":
                comm.Reduce(flat, recv, op=MPI.SUM, root=0)
                comm.Bcast(recv, root=0)
            else:
                comm.Allreduce(flat, recv, op=MPI.SUM)
            avg = torch.from_numpy(recv) / args.world
            J.unflatten_into([p.grad for p in params], avg)
            opt.step()
            st.step(b, out, y, loss)
        st.epoch(epoch)
    comm.Barrier()
    J.save_steps(args, st.times)
    # where this rank ran (the launcher's mapping, checked by run_job.py)
    with open(os.path.join(args.out, f"rank-{args.rank}-host.txt"), "w") as f:
        f.write(MPI.Get_processor_name() + " " + socket.gethostname() + "\n")
    if args.rank == 0:
        st.hist.close()
        J.write_truth(args, model, {
            "pattern": {"zero": "reducescatter+allgather",
                        "rootreduce": "reduce+broadcast"}.get(args.mpi_alg, "allreduce"),
            "workers": args.world, "servers": 0,
            "mpi_allreduce_algorithm": args.mpi_alg or "default",
            "step_times": st.hist.times})
