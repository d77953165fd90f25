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
            "pattern": "allreduce", "workers": args.world, "servers": 0,
            "mpi_allreduce_algorithm": args.mpi_alg or "default",
            "step_times": st.hist.times})
