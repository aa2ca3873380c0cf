r"""The PyTorch tutorial's DynamicNet trained under DistributedDataParallel.

torchrun starts this script once a rank, each process with RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT in its environment. On one machine,
two CPU processes, from the course's folder:

    torchrun --standalone --nproc-per-node=2 helpers/train_ddp.py

Two warnings come first. torchrun says it sets OMP_NUM_THREADS to 1 in each
process (unless you set it yourself). Then each rank warns that
find_unused_parameters=True found no unused parameter: at step 0 every rank
uses every layer, and DDP warns the first time it finds none (a false alarm
here, as the warning itself allows).

On N machines, run on each, with I its number (0 to N-1) and HOST:PORT a free
port of machine 0:

    torchrun --nnodes=N --node-rank=I --rdzv-endpoint=HOST:PORT \
        --nproc-per-node=2 helpers/train_ddp.py

`main` gives each of the WORLD_SIZE (here 2N) ranks its depths.

On GPUs: init_process_group("nccl"); with local_rank =
int(os.environ["LOCAL_RANK"]) (the rank's GPU on its own machine; RANK counts
over all machines), call torch.cuda.set_device(local_rank), put the model and
the data on that device, and wrap the model as
DistributedDataParallel(model, device_ids=[local_rank]).

Notebook 07 runs `train` in processes forked from its kernel instead
(helpers.ddp.launch), and shows `train` and `main`.
"""

import os
import random
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


class DynamicNet(torch.nn.Module):
    """The tutorial's model, as in notebook 04 (`forward` may get a depth)."""

    # recap of 04 §1
    def __init__(self, D_in, H, D_out):
        super().__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x, depth=None):
        if depth is None:
            depth = random.randint(0, 3)
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(depth):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


def rows(rank):
    """Rank `rank`'s 32 random rows of the tutorial's shape: inputs
    (32, 1000), targets (32, 10); the tutorial's 64 rows on two ranks."""
    g = torch.Generator().manual_seed(1000 + rank)
    return torch.randn(32, 1000, generator=g), torch.randn(32, 10, generator=g)


def train(rank, world_size, depths, **ddp_options):
    # joins the others at MASTER_ADDR:MASTER_PORT (torchrun, ddp.launch set)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)              # (DDP copies rank 0's weights anyway)
    model = DistributedDataParallel(DynamicNet(1000, 100, 10), **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    inp, targ = rows(rank)            # this rank's 32 rows
    grads = []                        # .grad after each backward
    for depth in depths[rank]:        # this rank's depth at each step
        optimizer.zero_grad()
        loss = ((model(inp, depth) - targ) ** 2).sum()
        loss.backward()               # DDP: .grad averaged over the ranks
        # no .clone() needed: the next zero_grad() replaces .grad with None
        grads.append({n: p.grad for n, p in model.module.named_parameters()})
        optimizer.step()
    dist.destroy_process_group()
    return grads


def main():                           # what torchrun runs, once a rank
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    # rank 0 uses middle_linear at steps 0 and 1, the other ranks at step 0
    depths = [[2, 1, 0]] + [[2, 0, 0]] * (world_size - 1)
    grads = train(rank, world_size, depths, find_unused_parameters=True)
    for step, g in enumerate(grads):
        g = g["middle_linear.weight"]
        what = "None" if g is None else f"sums to {g.sum():.1f}"
        # the line in one write ("\n" in it, end=""): no other rank's splits it
        print(f"rank {rank}, step {step}: middle_linear.weight.grad {what}\n",
              end="", flush=True)


if __name__ == "__main__":
    main()
    # Before Python exits, give gloo's worker threads a moment. With torch 2.15,
    # one of them frees the last all-reduce of a backward after backward has
    # returned, and needs the GIL for it: if Python is shutting down by then,
    # the process aborts ("terminate called without an active exception",
    # pytorch#190489). Here: 1 run in 5 without the pause, none in 80 with it.
    time.sleep(0.5)
