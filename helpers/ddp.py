"""Run a function in a few local processes joined by `torch.distributed` (gloo, CPU).

    results = run_processes(worker, world_size=2, timeout=60, steps=3)

    job = start_processes(worker, world_size=2, timeout=60, steps=3)   # returns at once
    ...                                                                # the notebook goes on
    results = job.results()                                            # waits

start `world_size` fresh Python processes (``python -m helpers.ddp``), join them
in a gloo process group on 127.0.0.1 (a free port, picked here), call
``worker(rank, world_size, **kwargs)`` in each and return the workers' return
values, by rank. A notebook cannot send its own functions to another process,
so `worker` must be defined in an importable module: `dynamicnet_worker`, at
the end of this module, is the one notebook 06 runs.

The processes are always cleaned up: when one fails, or after `timeout`
seconds, all of them are killed, and a `WorkerError` (or `TimeoutError`) says
which rank failed and how. Each process also ends itself a few seconds after
its timeout, should the notebook's kernel be gone. Their output never reaches
the notebook; the end of it is kept for those messages.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import pickle
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

__all__ = ["DynamicNet", "Processes", "WorkerError", "dynamicnet_worker", "free_port",
           "run_processes", "start_processes"]


class WorkerError(RuntimeError):
    """A worker process raised, or died: which rank, and what it said."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _loopback_interface() -> str | None:
    """The loopback interface's name ("lo" on Linux, "lo0" on macOS), if there is one."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except (AttributeError, OSError):  # pragma: no cover -- platforms without it
        return None
    return next((n for n in ("lo", "lo0") if n in names), None)


def _spec(worker: Callable[..., Any]) -> str:
    """'module:qualified.name' of `worker`, which the child process imports."""
    module = getattr(worker, "__module__", None)
    name = getattr(worker, "__qualname__", "")
    if (not callable(worker) or not isinstance(name, str) or not module
            or module == "__main__" or "<" in name):
        raise TypeError(
            f"the worker must be a function defined at the top level of an importable module "
            f"(the other processes import it by name), not {worker!r}")
    return f"{module}:{name}"


def _tail(path: str, lines: int = 20) -> str:
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()
    except OSError:  # pragma: no cover
        return ""


def _kill(proc: subprocess.Popen) -> None:
    """Stop `proc` and everything it started (its own process group), and reap it."""
    if proc.poll() is None:
        try:
            if hasattr(os, "killpg"):
                os.killpg(proc.pid, signal.SIGKILL)
            else:  # pragma: no cover -- Windows
                proc.kill()
        except (ProcessLookupError, PermissionError):  # pragma: no cover -- already gone
            pass
    proc.wait()


class Processes:
    """The processes `start_processes` started: `results()` waits for them, `stop()` ends them.

    They are stopped, and their files removed, when `results()` returns or
    raises, when `stop()` is called, and at the latest when this object is
    garbage-collected or Python exits; each process also ends itself once its
    time is up, even if this process is gone.
    """

    def __init__(self, spec: str, world_size: int, timeout: float, backend: str | None,
                 kwargs: dict[str, Any]):
        self.timeout = timeout
        self._tmp = tempfile.mkdtemp(prefix="g-to-grad-ddp-")
        self._procs: list[subprocess.Popen] = []
        self._finalizer = weakref.finalize(self, _cleanup, self._procs, self._tmp)
        self._outcome: tuple[str, Any] | None = None
        with open(os.path.join(self._tmp, "kwargs.pkl"), "wb") as f:
            pickle.dump(kwargs, f)
        env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()),
                   WORLD_SIZE=str(world_size),
                   PYTHONPATH=os.pathsep.join(p for p in [os.getcwd(), *sys.path] if p))
        loopback = _loopback_interface()
        if loopback:
            env.setdefault("GLOO_SOCKET_IFNAME", loopback)
        self._deadline = time.monotonic() + timeout
        try:
            for rank in range(world_size):
                with open(os.path.join(self._tmp, f"rank{rank}.log"), "wb") as log:
                    self._procs.append(subprocess.Popen(
                        [sys.executable, "-m", "helpers.ddp", spec, self._tmp, str(timeout),
                         backend or "none"],
                        env=dict(env, RANK=str(rank)), stdin=subprocess.DEVNULL, stdout=log,
                        stderr=subprocess.STDOUT, start_new_session=hasattr(os, "killpg")))
        except BaseException:
            self.stop()
            raise

    def results(self) -> list[Any]:
        """Wait for every process; their results by rank, or the first failure's error."""
        if self._outcome is None:
            try:
                while (time.monotonic() < self._deadline
                       and any(p.poll() is None for p in self._procs)
                       and all(p.poll() in (None, 0) for p in self._procs)):
                    time.sleep(0.02)
                self._outcome = ("ok", _results(self._procs, self._tmp, self.timeout))
            except (WorkerError, TimeoutError) as e:
                self._outcome = ("error", e)
            finally:
                self.stop()
        if self._outcome[0] == "error":
            raise self._outcome[1]
        return self._outcome[1]

    def stop(self) -> None:
        """Kill every process that still runs, and remove their files."""
        self._finalizer()


def _cleanup(procs: list[subprocess.Popen], tmp: str) -> None:
    for p in procs:
        _kill(p)
    shutil.rmtree(tmp, ignore_errors=True)


def start_processes(worker: Callable[..., Any], world_size: int = 2, timeout: float = 60.0,
                    backend: str | None = "gloo", **kwargs: Any) -> Processes:
    """Start `run_processes`'s processes and return at once; `.results()` collects them.

    For work that can run in the background while the notebook goes on.
    """
    spec = _spec(worker)
    if isinstance(world_size, bool) or not isinstance(world_size, int) or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if backend not in ("gloo", None):
        raise ValueError(f"backend must be 'gloo' or None, got {backend!r}")
    return Processes(spec, world_size, float(timeout), backend, kwargs)


def run_processes(worker: Callable[..., Any], world_size: int = 2, timeout: float = 60.0,
                  backend: str | None = "gloo", **kwargs: Any) -> list[Any]:
    """``[worker(rank, world_size, **kwargs) for rank in range(world_size)]``, in parallel.

    Each rank runs in a process of its own. With `backend` "gloo" (the default)
    the processes first join a process group on 127.0.0.1, whose collectives
    time out after `timeout` seconds too; with None they run unconnected.
    `kwargs` and the return values travel by pickle. Raises `WorkerError` when
    a worker raises or its process dies, `TimeoutError` when they are not all
    done after `timeout` seconds; either way no process is left when it returns.
    """
    return start_processes(worker, world_size, timeout, backend, **kwargs).results()


def _results(procs: list[subprocess.Popen], tmp: str, timeout: float) -> list[Any]:
    """The workers' results, or the error of the first rank that failed."""
    codes = [p.poll() for p in procs]
    for p in procs:
        _kill(p)
    outcomes = []
    for rank in range(len(procs)):
        path = os.path.join(tmp, f"rank{rank}.pkl")
        if os.path.exists(path):
            with open(path, "rb") as f:
                outcomes.append(pickle.load(f))
        else:
            outcomes.append(None)
    for rank, outcome in enumerate(outcomes):
        if outcome is not None and outcome[0] == "error":
            raise WorkerError(f"rank {rank} raised {outcome[1]}\n{outcome[2]}")
    for rank, code in enumerate(codes):
        if code not in (None, 0) or (code == 0 and outcomes[rank] is None):
            raise WorkerError(f"rank {rank} exited with code {code}, output:\n"
                              + _tail(os.path.join(tmp, f"rank{rank}.log")))
    if None in codes:
        waiting = [rank for rank, code in enumerate(codes) if code is None]
        raise TimeoutError(f"rank(s) {waiting} not done after {timeout} s: all processes "
                           f"stopped; output of rank {waiting[0]}:\n"
                           + _tail(os.path.join(tmp, f"rank{waiting[0]}.log")))
    return [outcome[1] for outcome in outcomes]


def _child(spec: str, tmp: str, timeout: float, backend: str) -> int:
    """One process: join the group, run the worker, store its result for the parent."""
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    watchdog = threading.Timer(timeout + 5, os._exit, (3,))   # ends even if orphaned
    watchdog.daemon = True
    watchdog.start()
    try:
        module, name = spec.split(":")
        worker: Any = importlib.import_module(module)
        for part in name.split("."):
            worker = getattr(worker, part)
        with open(os.path.join(tmp, "kwargs.pkl"), "rb") as f:
            kwargs = pickle.load(f)
        if backend == "none":
            outcome = ("ok", worker(rank, world_size, **kwargs))
        else:
            import torch.distributed as dist

            dist.init_process_group(backend, rank=rank, world_size=world_size,
                                    timeout=datetime.timedelta(seconds=timeout))
            try:
                outcome = ("ok", worker(rank, world_size, **kwargs))
            finally:
                dist.destroy_process_group()
    except Exception as e:  # noqa: BLE001 -- reported to the parent, in words
        outcome = ("error", f"{type(e).__name__}: {e}", traceback.format_exc())
    path = os.path.join(tmp, f"rank{rank}.pkl")
    with open(path + ".part", "wb") as f:
        pickle.dump(outcome, f)
    os.replace(path + ".part", path)
    return 0 if outcome[0] == "ok" else 1


# ---------------------------------------------------------------------------
# What notebook 06 runs: the tutorial's DynamicNet under DistributedDataParallel.


class DynamicNet(nn.Module):
    """The tutorial's model, as in notebook 04 (`forward` may be given a depth; it keeps it)."""

    # recap of 04 §1
    def __init__(self, D_in: int, H: int, D_out: int):
        super().__init__()
        self.input_linear = nn.Linear(D_in, H)
        self.middle_linear = nn.Linear(H, H)
        self.output_linear = nn.Linear(H, D_out)

    def forward(self, x: torch.Tensor, depth: int | None = None) -> torch.Tensor:
        if depth is None:                       # the tutorial: a new random depth every call
            depth = random.randint(0, 3)
        self.depth = depth
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(depth):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


def _states(module: nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _bucket_sizes(model: nn.Module) -> list[int]:
    """The sizes in bytes of DDP's gradient buckets (from its logging data)."""
    sizes = model._get_ddp_logging_data().get("bucket_sizes", "")
    return [int(s) for s in str(sizes).split(",") if s.strip()]


def _train(rank: int, data: tuple[torch.Tensor, torch.Tensor], steps: int, seed: int,
           depths: list[int] | None, **ddp_options: Any) -> dict[str, Any]:
    """Train a DDP DynamicNet for `steps` steps; what happened in each, until an error."""
    from torch.nn.parallel import DistributedDataParallel

    torch.manual_seed(seed)                     # the same initial weights on every rank
    random.seed(seed + rank)                    # each rank draws its own depths
    net = DynamicNet(*SIZES)
    model = DistributedDataParallel(net, **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    inp, targ = data
    log: dict[str, Any] = {"depths": [], "before": [], "grads": [], "error": None,
                           "bucket_sizes": _bucket_sizes(model)}
    for t in range(steps if depths is None else len(depths)):
        log["before"].append(_states(net))
        stage = "forward"
        try:
            optimizer.zero_grad()
            out = model(inp, None if depths is None else depths[t])
            log["depths"].append(net.depth)
            stage = "backward"
            ((out - targ) ** 2).sum().backward()
        except RuntimeError as e:
            log["error"] = {"step": t, "stage": stage, "message": str(e)}
            break
        log["grads"].append({name: None if p.grad is None else p.grad.clone()
                             for name, p in net.named_parameters()})
        optimizer.step()
    log["after"] = _states(net)
    return log


SIZES = (1000, 100, 10)                         # the tutorial's D_in, H, D_out
ROWS = 32                                       # each rank's half of the tutorial's 64 rows


def dynamicnet_worker(rank: int, world_size: int, steps: int = 4, seed: int = 0,
                      static_depths: list[list[int]] | None = None) -> dict[str, Any]:
    """One rank of notebook 06's three DDP runs of DynamicNet, in this order.

    - "find_unused": `find_unused_parameters=True`, the tutorial's random depths
      (`random.seed(seed + rank)`);
    - "static_graph": `static_graph=True`, at `static_depths[rank]`;
    - "plain": no option, the same random depths as the first run. It runs last:
      when one rank skips `middle_linear`, the ranks stop agreeing on what to
      all-reduce, and the group cannot be used after that.

    Each run starts from the same weights (`torch.manual_seed(seed)`) and trains
    with the tutorial's SGD (lr 1e-4, momentum 0.9) and summed squared error on
    this rank's own 32 random rows. Returns the rank's rows and, per run, the
    sizes of DDP's gradient buckets, the depths used, the weights before each
    step and after the last, the gradients after each backward, and the error
    that stopped it (step, stage and message), if any.
    """
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(1000 + rank)
    data = torch.randn(ROWS, SIZES[0], generator=g), torch.randn(ROWS, SIZES[2], generator=g)
    static = None if static_depths is None else static_depths[rank]
    runs = {"find_unused": _train(rank, data, steps, seed, None, find_unused_parameters=True),
            "static_graph": _train(rank, data, steps, seed, static, static_graph=True),
            "plain": _train(rank, data, steps, seed, None)}
    return {"rank": rank, "inp": data[0], "targ": data[1], **runs}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="one process of helpers.ddp.run_processes")
    parser.add_argument("spec")
    parser.add_argument("tmp")
    parser.add_argument("timeout", type=float)
    parser.add_argument("backend")
    a = parser.parse_args()
    sys.exit(_child(a.spec, a.tmp, a.timeout, a.backend))
