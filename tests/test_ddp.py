"""helpers.ddp: processes started, joined by gloo, their results collected, always cleaned up.

The workers live at the top of this module, because the processes import them by
name. Each test that starts processes pays for their imports (a second or two);
there are five of them.
"""

from __future__ import annotations

import os
import socket
import time

import pytest

from helpers.ddp import WorkerError, _bucket_sizes, free_port, run_processes, start_processes


def sum_of_ranks(rank, world_size, scale=1.0):
    import torch
    import torch.distributed as dist

    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)                   # 1 + 2 over two ranks
    return {"rank": rank, "world_size": world_size, "sum": scale * t.item()}


def rank_1_raises(rank, world_size):
    if rank == 1:
        raise ValueError("no luck on rank 1")
    time.sleep(60)                       # must be killed, not waited for


def dies(rank, world_size):
    os._exit(7)


def sleeps(rank, world_size):
    time.sleep(60)


def gone(procs) -> bool:
    return all(p.poll() is not None for p in procs)


def test_two_ranks_all_reduce_over_gloo():
    results = run_processes(sum_of_ranks, world_size=2, timeout=60, scale=2.0)
    assert results == [{"rank": r, "world_size": 2, "sum": 6.0} for r in range(2)]


def test_a_worker_error_names_its_rank_and_stops_the_others():
    job = start_processes(rank_1_raises, world_size=2, timeout=60, backend=None)
    start = time.monotonic()
    with pytest.raises(WorkerError, match=r"rank 1 raised ValueError: no luck on rank 1"):
        job.results()
    assert time.monotonic() - start < 30          # rank 0's sleep was cut short
    assert gone(job._procs) and not os.path.exists(job._tmp)
    with pytest.raises(WorkerError):              # asked again: the same answer
        job.results()


def test_a_process_that_dies_is_reported_with_its_exit_code():
    with pytest.raises(WorkerError, match=r"rank 0 exited with code 7"):
        run_processes(dies, world_size=1, timeout=60, backend=None)


def test_a_timeout_stops_every_process_and_removes_their_files():
    job = start_processes(sleeps, world_size=1, timeout=2, backend=None)
    with pytest.raises(TimeoutError, match=r"not done after 2.0 s"):
        job.results()
    assert gone(job._procs) and not os.path.exists(job._tmp)


def test_stop_without_results():
    job = start_processes(sleeps, world_size=1, timeout=60, backend=None)
    job.stop()
    assert gone(job._procs) and not os.path.exists(job._tmp)


def test_free_port_can_be_bound():
    port = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", port))


def test_the_worker_must_be_importable_by_name():
    def local(rank, world_size):
        return rank

    for worker in (local, lambda rank, world_size: rank, "sum_of_ranks", None):
        with pytest.raises(TypeError, match="importable module"):
            start_processes(worker)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"world_size": 0}, "world_size"), ({"world_size": 1.5}, "world_size"),
    ({"timeout": 0}, "timeout"), ({"timeout": "60"}, "timeout"),
    ({"backend": "nccl"}, "backend")])
def test_bad_arguments_are_refused_before_anything_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        start_processes(sum_of_ranks, **kwargs)


def test_bucket_sizes_are_read_from_ddp_logging_data():
    class Logged:                        # what DDP's _get_ddp_logging_data returns
        def __init__(self, data):
            self.data = data

        def _get_ddp_logging_data(self):
            return self.data

    assert _bucket_sizes(Logged({"bucket_sizes": "444840"})) == [444840]
    assert _bucket_sizes(Logged({"bucket_sizes": "1048576, 26214400"})) == [1048576, 26214400]
    assert _bucket_sizes(Logged({})) == []
