"""Run a function on a few local processes, in torchrun's environment (notebook 07).

    job = launch(train, nprocs=2, timeout=30, depths=...)   # returns at once
    ...                                                      # the notebook goes on
    results = job.results()                                  # waits: a result per rank

`launch` is `torch.multiprocessing.start_processes`, the launcher of PyTorch's
DDP tutorial, plus what a notebook needs around it:

- the environment `torchrun` gives each process (`MASTER_ADDR`, `MASTER_PORT`,
  `RANK`, `WORLD_SIZE`, `LOCAL_RANK`), on top of the notebook's own environment
  at launch time (so `TORCH_DISTRIBUTED_DEBUG` set in the notebook reaches the
  ranks), so that `dist.init_process_group("gloo")` in the function joins the
  others on 127.0.0.1;
- each rank's return value, sent back in a file of its own (written whole or
  not at all, so that a rank stopped while writing leaves nothing half-read);
- what a rank reports as it goes (`report(event)` inside the function), kept even
  when the rank later fails, hangs or is stopped: `job.reports()`, rank by rank;
- a failure reported as a `WorkerError` naming the rank that failed first, the
  line of the function and the message, path-free (`.traceback` keeps the
  rank's whole traceback); the other ranks are stopped at once;
- a deadline: after `timeout` seconds every process is stopped and a
  `TimeoutError` says which ranks were not done;
- nothing left behind: no process, no file.

How the processes start, so that none imports torch again (about 2 s, and as
much again for `torch._dynamo`, which DDP's constructor imports):

- on Linux they are forks of the calling process (the notebook's kernel), made
  after it has imported `torch._dynamo`: a launch and its results take a
  fraction of a second (about 0.1 s on an idle machine). Each one
  first points `sys.stdout`, `sys.stderr` and the file descriptors 1 and 2 at
  /dev/null, so that nothing it prints reaches the notebook;
- elsewhere (macOS) they fork from a server process that `prepare()` starts in
  the background, which imports torch and `torch._dynamo` once;
- where there is neither (Windows), each process starts afresh (spawn).

torchrun itself starts each process afresh: seconds, where a fork takes a
fraction of one. The script helpers/train_ddp.py is what a learner runs with it.

The function must be importable by name (defined in a module, not in a
notebook): `train` (from helpers/train_ddp.py), `train_accumulating` and
`train_checkpointed` below are the ones notebook 07 runs.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import shutil
import socket
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as torch_mp
from torch.nn.parallel import DistributedDataParallel
from torch.utils.checkpoint import checkpoint

from helpers.train_ddp import DynamicNet, rows, train

__all__ = ["CheckpointedNet", "DynamicNet", "WorkerError", "launch", "prepare", "report",
           "rows", "same_grads", "train", "train_accumulating", "train_checkpointed",
           "verdict"]

_PRELOAD = ["torch", "torch._dynamo", "torch.distributed", "helpers.ddp"]
_REPORTS: str | None = None    # in a rank that launch started: the file report() appends to


def report(event: Any) -> None:
    """Inside a rank that `launch` started: send `event` (anything picklable) to the
    caller at once, so that it arrives even if the rank fails, hangs or is stopped
    later. `Job.reports()` returns the events rank by rank, each rank's in the order
    it sent them."""
    if _REPORTS is None:
        raise RuntimeError("ddp.report(event) works only inside a rank that ddp.launch "
                           "started")
    data = pickle.dumps(event)
    with open(_REPORTS, "ab") as f:             # one write: the length, then the event
        f.write(len(data).to_bytes(8, "little") + data)


def _read_reports(path: str) -> list[Any]:
    """The events in a rank's report file, whole ones only (the last may be half-written)."""
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        data = f.read()
    events, i = [], 0
    while i + 8 <= len(data):
        n = int.from_bytes(data[i:i + 8], "little")
        if i + 8 + n > len(data):
            break
        events.append(pickle.loads(data[i + 8:i + 8 + n]))
        i += 8 + n
    return events


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
    if sys.platform.startswith("linux") and "fork" in methods:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def prepare() -> None:
    """Get the processes of later launches ready: where they fork from a server
    (macOS), start it now, in the background; it imports torch for every launch.
    Where they are forks of this process (Linux), there is nothing to do."""
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
    """'train, line 12:' and, indented on the next line, 'loss.backward()': the
    deepest frame in `fn`'s own file (two lines, each within 79 columns)."""
    source = getattr(fn.__code__, "co_filename", None)
    frames = [f for f in traceback.extract_tb(tb) if f.filename == source]
    if not frames:
        return ""
    f = frames[-1]
    return f"{f.name}, line {f.lineno - fn.__code__.co_firstlineno + 1}:\n    {f.line}"


def _rank(rank: int, fn: Callable[..., Any], nprocs: int, port: int, kwargs: dict[str, Any],
          env: dict[str, str], folder: str) -> None:
    """One process: torchrun's environment, then `fn(rank, nprocs, **kwargs)`; the
    outcome goes to `folder/rank<r>` as (time, "ok", result) or (time, "error", ...),
    and the process ends at once, with os._exit.

    Nothing of `fn` is freed before that: its frame (and so its locals: the model,
    the process group) stays alive to the end. Freeing them would destroy gloo's
    process group, which joins its worker threads while holding the GIL; since
    torch 2.13 a worker may need the GIL to free the work of an all-reduce that
    DDP started during backward, and then both wait forever.
    """
    quiet = os.open(os.devnull, os.O_WRONLY)   # nothing printed reaches the notebook:
    os.dup2(quiet, 1)                          # not C++'s warnings,
    os.dup2(quiet, 2)
    sys.stdout = sys.stderr = open(os.devnull, "w")   # nor Python's (a kernel's streams)
    global _REPORTS
    _REPORTS = os.path.join(folder, f"reports{rank}")
    os.environ.update(env)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                      WORLD_SIZE=str(nprocs), LOCAL_RANK=str(rank))
    if "lo" in {name for _, name in socket.if_nameindex()}:
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.set_debug_level_from_env()            # torch read it at import, long before
    torch.set_num_threads(1)
    kept: list = []

    def keep_frame(frame, event, arg):         # fn's own frame, kept past its return
        if event == "call" and frame.f_code is getattr(fn, "__code__", None):
            kept.append(frame)
            sys.setprofile(None)

    sys.setprofile(keep_frame)
    try:
        outcome: tuple = ("ok", fn(rank, nprocs, **kwargs))
    except Exception as e:  # noqa: BLE001 -- sent to the notebook, in words
        kept.append(e)                         # its traceback holds the frames
        outcome = ("error", type(e).__name__, str(e), _where(e.__traceback__, fn),
                   traceback.format_exc())
    finally:
        sys.setprofile(None)
    path = os.path.join(folder, f"rank{rank}")
    with open(path + ".part", "wb") as f:
        pickle.dump((time.time(), *outcome), f)
    os.replace(path + ".part", path)            # whole, or not at all
    os._exit(0 if outcome[0] == "ok" else 1)


class Job:
    """The processes of one `launch`: `results()` waits for them, `stop()` ends them."""

    def __init__(self, fn: Callable[..., Any], nprocs: int, timeout: float,
                 kwargs: dict[str, Any]):
        method = _method()
        if method == "forkserver":
            prepare()
        elif method == "fork":
            import torch._dynamo  # noqa: F401 -- once here, not in every rank's DDP()
        self.timeout, self.nprocs = timeout, nprocs
        self._folder = tempfile.mkdtemp(prefix="ddp-job-")
        self._outcome: tuple[str, Any] | None = None
        self._reports: list[list[Any]] = [[] for _ in range(nprocs)]
        self._deadline = time.monotonic() + timeout
        self._context = torch_mp.start_processes(
            _rank, args=(fn, nprocs, _free_port(), kwargs, dict(os.environ), self._folder),
            nprocs=nprocs, join=False, start_method=method)

    def _read(self) -> dict[int, tuple]:
        """What the ranks have written so far: {rank: (time, status, ...)}."""
        got = {}
        for rank in range(self.nprocs):
            path = os.path.join(self._folder, f"rank{rank}")
            if os.path.exists(path):
                with open(path, "rb") as f:
                    got[rank] = pickle.load(f)
        return got

    def reports(self) -> list[list[Any]]:
        """What each rank has sent with `report(...)` so far (all of it, once the job
        is over): one list a rank, in the order the rank sent them."""
        if os.path.isdir(self._folder):
            self._reports = [_read_reports(os.path.join(self._folder, f"reports{r}"))
                             for r in range(self.nprocs)]
        return [list(events) for events in self._reports]

    def running(self) -> list[int]:
        """The ranks whose process has not ended yet."""
        return [r for r, p in enumerate(self._context.processes) if p.exitcode is None]

    def _wait(self) -> list[Any]:
        processes = self._context.processes
        while True:
            codes = [p.exitcode for p in processes]    # read once: a rank may end meanwhile
            failed = [r for r, code in enumerate(codes) if code not in (None, 0)]
            if failed:
                raise self._failure(failed)
            running = [p for p, code in zip(processes, codes) if code is None]
            if not running:
                got = self._read()
                missing = [r for r in range(self.nprocs) if r not in got]
                if missing:
                    raise WorkerError(missing[0], f"rank {missing[0]} ended without a result")
                return [got[r][2] for r in range(self.nprocs)]
            left = self._deadline - time.monotonic()
            if left <= 0:
                waiting = [r for r, p in enumerate(processes) if p.exitcode is None]
                raise TimeoutError(f"rank(s) {waiting} not done after "
                                   f"{self.timeout:g} s: every process stopped")
            multiprocessing.connection.wait([p.sentinel for p in running],
                                            timeout=min(left, 1.0))

    def results(self) -> list[Any]:
        """Wait for every rank; its return values by rank, or the first failure's error."""
        if self._outcome is None:
            try:
                self._outcome = ("ok", self._wait())
            except (WorkerError, TimeoutError) as e:
                self._outcome = ("error", e)
            finally:
                self.stop()
        if self._outcome[0] == "error":
            raise self._outcome[1]
        return self._outcome[1]

    def _failure(self, failed: list[int]) -> WorkerError:
        """The error of the rank that raised first (the others often fail because of
        it: a peer gone), or the exit code of a rank that died without a word."""
        errors = {r: o for r, o in self._read().items() if o[1] == "error"}
        if errors:
            rank = min(errors, key=lambda r: errors[r][0])
            _, _, error, message, where, tb = errors[rank]
            place = f" in {where}" if where else ""
            return WorkerError(rank, f"rank {rank} raised {error}{place}\n{error}: {message}",
                               error, message, tb)
        rank = failed[0]
        code = self._context.processes[rank].exitcode
        return WorkerError(rank, f"rank {rank} died (exit code {code})")

    def stop(self) -> None:
        """Stop every process that still runs, rank 0 first; keep what the ranks
        reported; remove the files they and torch wrote."""
        for p in self._context.processes:
            if p.is_alive():
                p.kill()
            p.join()
        for path in self._context.error_files:
            if path and os.path.exists(path):
                os.remove(path)
        self.reports()
        shutil.rmtree(self._folder, ignore_errors=True)


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
# What notebook 07 runs: the tutorial's DynamicNet under DistributedDataParallel
# (notebook 06 uses DynamicNet too). `DynamicNet`, `rows` and `train` live in the
# script helpers/train_ddp.py, which torchrun runs as it is.
# The notebook prints `train` and `main` as they are: keep them
# short, as a learner would write them, and at most 79 characters wide.
# `train_checkpointed` (07 section 3) is described there, not printed;
# `CheckpointedNet.forward` is printed.


def train_accumulating(rank, world_size, depth, micro_batches):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = DistributedDataParallel(DynamicNet(1000, 100, 10))
    w, seen = model.module.middle_linear.weight, []
    w.register_post_accumulate_grad_hook(        # w.grad after each backward
        lambda w: seen.append(w.grad.clone()))
    inp, targ = rows(rank)
    xs, ys = inp.chunk(micro_batches), targ.chunk(micro_batches)
    for x, y in zip(xs[:-1], ys[:-1]):           # all but the last
        with model.no_sync():                    # forward and backward inside
            ((model(x, depth) - y) ** 2).sum().backward()
    ((model(xs[-1], depth) - ys[-1]) ** 2).sum().backward()   # all-reduces
    dist.destroy_process_group()
    return seen, w.grad


class CheckpointedNet(DynamicNet):
    """DynamicNet(1000, 100, 10) with the uses of middle_linear checkpointed:
    each use under a checkpoint of its own (`each_use`), or one around them all.
    Notebook 07 prints its `forward`: at most 79 characters wide."""

    def __init__(self, use_reentrant, each_use):
        super().__init__(1000, 100, 10)
        self.use_reentrant, self.each_use = use_reentrant, each_use

    def forward(self, x, depth):
        h = self.input_linear(x).clamp(min=0)
        reentrant = self.use_reentrant
        if self.each_use:                    # a checkpoint around each use
            for _ in range(depth):
                h = checkpoint(self.middle, h, 1, use_reentrant=reentrant)
        else:                                # one around them all
            h = checkpoint(self.middle, h, depth, use_reentrant=reentrant)
        return self.output_linear(h)

    def middle(self, h, uses):
        for _ in range(uses):
            h = self.middle_linear(h).clamp(min=0)
        return h


def train_checkpointed(rank, world_size, use_reentrant, each_use, **ddp_options):
    """`train`'s first backward, depth 2 on every rank, with the uses of
    middle_linear checkpointed (`CheckpointedNet`): every .grad, as `train` returns
    them (a list of one step's {name: .grad})."""
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)                        # train's weights
    model = DistributedDataParallel(CheckpointedNet(use_reentrant, each_use),
                                    **ddp_options)
    inp, targ = rows(rank)
    ((model(inp, 2) - targ) ** 2).sum().backward()
    dist.destroy_process_group()
    return [{n: p.grad for n, p in model.module.named_parameters()}]


def same_grads(grads: list[list[dict[str, torch.Tensor | None]]],
               alone: list[dict[str, torch.Tensor | None]]) -> None:
    """Assert that every rank's gradients at every step (`grads`, one list a rank, as
    `train` returns them) equal `alone`'s, one process's replay: the same parameters
    without a gradient (None), the others equal up to float rounding (`compare`)."""
    from helpers.compare import compare

    for rank, rank_grads in enumerate(grads):
        if len(rank_grads) != len(alone):
            raise AssertionError(f"rank {rank} took {len(rank_grads)} steps, "
                                 f"the replay {len(alone)}")
        for step, (got, want) in enumerate(zip(rank_grads, alone)):
            used = [n for n, g in want.items() if g is not None]
            got_used = [n for n, g in got.items() if g is not None]
            if got_used != used:
                raise AssertionError(f"rank {rank}, step {step}: gradients for {got_used}, "
                                     f"the replay has them for {used}")
            compare({n: got[n] for n in used}, {n: want[n] for n in used}).check()


def verdict(job: Job, alone: list[dict[str, torch.Tensor | None]], refusal: str) -> str:
    """"ok" when every rank's gradients equal `alone`'s (`same_grads`), "refused" when
    a rank raised an error with `refusal` in its message (DDP refused the run). Any
    other error, and gradients that differ, raise: neither is a verdict."""
    try:
        grads = job.results()
    except WorkerError as e:
        if refusal not in e.message:
            raise
        return "refused"
    same_grads(grads, alone)
    return "ok"
