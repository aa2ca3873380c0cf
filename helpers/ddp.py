"""Run a function on a few local processes, as `torchrun` would (notebook 06).

    job = launch(train, nprocs=2, timeout=30, depths=...)   # returns at once
    ...                                                      # the notebook goes on
    results = job.results()                                  # waits: a result per rank

`launch` is `torch.multiprocessing.start_processes`, the launcher of PyTorch's
DDP tutorial, plus what a notebook needs around it:

- the environment `torchrun` gives each process (`MASTER_ADDR`, `MASTER_PORT`,
  `RANK`, `WORLD_SIZE`), so that `dist.init_process_group("gloo")` in the
  function joins the others on 127.0.0.1;
- each rank's return value, sent back through a pipe;
- a rank's exception, re-raised in the notebook as a `WorkerError` that names
  the rank, the line of the function and the message, path-free
  (`.traceback` keeps the rank's whole traceback);
- a deadline: after `timeout` seconds every process is stopped and a
  `TimeoutError` says which ranks were not done;
- nothing left behind: no process, no file.

The processes fork from a server process that has imported torch and
`torch._dynamo` (DDP's constructor imports it, about 2 s) once, in the
background, from `prepare()` on: a launch then costs a fraction of a second.
Where there is no fork server (Windows), each process starts afresh (spawn).
The function must be importable by name (defined in a module, not in a
notebook): `train` below is the one notebook 06 runs.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import random
import socket
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import torch
import torch.multiprocessing as torch_mp

__all__ = ["DynamicNet", "WorkerError", "launch", "prepare", "train"]

_PRELOAD = ["torch", "torch._dynamo", "torch.distributed", "helpers.ddp"]


class WorkerError(RuntimeError):
    """A rank raised or died: which rank, where in its function, and the message.

    `.rank`, `.error` (the exception's type name), `.message`, and `.traceback`,
    the rank's whole traceback as text.
    """

    def __init__(self, rank: int, summary: str, error: str = "", message: str = "",
                 traceback: str = ""):
        super().__init__(summary)
        self.rank, self.error, self.message, self.traceback = rank, error, message, traceback


def _method() -> str:
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


def prepare() -> None:
    """Start the fork server now, in the background: it imports torch for every launch."""
    if _method() == "forkserver":
        from multiprocessing import forkserver

        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        forkserver.ensure_running()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _where(tb, fn: Callable[..., Any]) -> str:
    """'train, line 12: loss.backward()': the deepest frame in `fn`'s own file."""
    source = getattr(fn.__code__, "co_filename", None)
    frames = [f for f in traceback.extract_tb(tb) if f.filename == source]
    if not frames:
        return ""
    f = frames[-1]
    return f"{f.name}, line {f.lineno - fn.__code__.co_firstlineno + 1}: {f.line}"


def _rank(rank: int, fn: Callable[..., Any], nprocs: int, port: int,
          kwargs: dict[str, Any], queue) -> None:
    """One process: torchrun's environment, then `fn(rank, nprocs, **kwargs)`."""
    quiet = os.open(os.devnull, os.O_WRONLY)   # C++ warnings would land in the notebook
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(nprocs), LOCAL_RANK=str(rank))
    if "lo" in {name for _, name in socket.if_nameindex()}:
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    torch.set_num_threads(1)
    try:
        queue.put((rank, "ok", pickle.dumps(fn(rank, nprocs, **kwargs))))
    except Exception as e:  # noqa: BLE001 -- sent to the notebook, in words
        where = _where(e.__traceback__, fn)
        queue.put((rank, "error", pickle.dumps((type(e).__name__, str(e), where,
                                                traceback.format_exc()))))
        sys.exit(1)


class Job:
    """The processes of one `launch`: `results()` waits for them, `stop()` ends them."""

    def __init__(self, fn: Callable[..., Any], nprocs: int, timeout: float,
                 kwargs: dict[str, Any]):
        method = _method()
        if method == "forkserver":
            prepare()
        self.timeout, self.nprocs = timeout, nprocs
        self._queue = multiprocessing.get_context(method).SimpleQueue()
        self._outcome: tuple[str, Any] | None = None
        self._deadline = time.monotonic() + timeout
        self._context = torch_mp.start_processes(
            _rank, args=(fn, nprocs, _free_port(), kwargs, self._queue), nprocs=nprocs,
            join=False, start_method=method)

    def _drain(self, got: dict[int, tuple]) -> None:
        while not self._queue.empty():
            rank, status, payload = self._queue.get()
            got[rank] = (status, pickle.loads(payload))

    def results(self) -> list[Any]:
        """Wait for every rank; its return values by rank, or the first failure's error."""
        if self._outcome is None:
            got: dict[int, tuple] = {}
            try:
                while True:
                    self._drain(got)
                    left = self._deadline - time.monotonic()
                    if left <= 0:
                        waiting = [r for r in range(self.nprocs) if r not in got]
                        raise TimeoutError(f"rank(s) {waiting} not done after "
                                           f"{self.timeout:g} s: every process stopped")
                    try:
                        if self._context.join(timeout=min(left, 0.05), grace_period=0.5):
                            break
                    except (torch_mp.ProcessRaisedException, torch_mp.ProcessExitedException) as e:
                        self._drain(got)
                        raise self._failure(e.error_index, got) from None
                self._drain(got)
                self._outcome = ("ok", [got[r][1] for r in range(self.nprocs)])
            except (WorkerError, TimeoutError) as e:
                self._outcome = ("error", e)
            finally:
                self.stop()
        if self._outcome[0] == "error":
            raise self._outcome[1]
        return self._outcome[1]

    def _failure(self, rank: int, got: dict[int, tuple]) -> WorkerError:
        errors = sorted(r for r, (status, _) in got.items() if status == "error")
        if rank not in errors and errors:
            rank = errors[0]
        if rank in errors:
            error, message, where, tb = got[rank][1]
            place = f" in {where}" if where else ""
            return WorkerError(rank, f"rank {rank} raised {error}{place}\n{error}: {message}",
                               error, message, tb)
        code = self._context.processes[rank].exitcode
        return WorkerError(rank, f"rank {rank} died (exit code {code})")

    def stop(self) -> None:
        """Stop every process that still runs, and remove the error files torch wrote."""
        for p in self._context.processes:
            if p.is_alive():
                p.kill()
            p.join()
        for path in self._context.error_files:
            if path and os.path.exists(path):
                os.remove(path)


def launch(fn: Callable[..., Any], nprocs: int = 2, timeout: float = 30.0,
           **kwargs: Any) -> Job:
    """Start `fn(rank, nprocs, **kwargs)` on `nprocs` processes and return at once."""
    if isinstance(nprocs, bool) or not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"nprocs must be a positive int, got {nprocs!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not callable(fn) or module in (None, "__main__") or "<" in str(name):
        raise TypeError("the function must be defined at the top level of an importable "
                        f"module (each process imports it by name), not {fn!r}")
    return Job(fn, nprocs, float(timeout), kwargs)


# ---------------------------------------------------------------------------------
# What notebook 06 runs: the tutorial's DynamicNet under DistributedDataParallel.


class DynamicNet(torch.nn.Module):
    """The tutorial's model, as in notebook 04 (`forward` may be given a depth)."""

    # recap of 04 §1
    def __init__(self, D_in: int, H: int, D_out: int):
        super().__init__()
        self.input_linear = torch.nn.Linear(D_in, H)
        self.middle_linear = torch.nn.Linear(H, H)
        self.output_linear = torch.nn.Linear(H, D_out)

    def forward(self, x: torch.Tensor, depth: int | None = None) -> torch.Tensor:
        if depth is None:
            depth = random.randint(0, 3)
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(depth):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


def rows(rank: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Rank `rank`'s 32 of the tutorial's 64 random rows: inputs (32, 1000), targets (32, 10)."""
    g = torch.Generator().manual_seed(1000 + rank)
    return torch.randn(32, 1000, generator=g), torch.randn(32, 10, generator=g)


def train(rank: int, world_size: int, depths: list[list[int]], **ddp_options: Any) -> list:
    """One rank of DynamicNet under DDP, at the depths given; .grad after each backward."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")       # RANK, WORLD_SIZE, MASTER_ADDR/PORT: set
    torch.manual_seed(0)                  # the same weights on every rank
    model = DistributedDataParallel(DynamicNet(1000, 100, 10), **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    inp, targ = rows(rank)                # this rank's half of the batch
    grads = []
    for depth in depths[rank]:
        optimizer.zero_grad()
        loss = ((model(inp, depth) - targ) ** 2).sum()
        loss.backward()                   # DDP averages .grad over the ranks
        grads.append({n: p.grad for n, p in model.module.named_parameters()})
        optimizer.step()
    dist.destroy_process_group()
    return grads
