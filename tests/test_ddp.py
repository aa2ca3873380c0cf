"""helpers.ddp: torch's launcher, a result per rank, failures and hangs reported, nothing left.

The workers live at the top of this module, because the processes import them by
name. The processes fork from one server that imports torch once for the whole
file (a few seconds); each launch after that costs a fraction of a second.
"""

from __future__ import annotations

import glob
import os
import tempfile
import time

import pytest
import torch

from helpers import ddp


def sum_of_ranks(rank, world_size, scale=1.0):
    import torch.distributed as dist

    dist.init_process_group("gloo")      # from the environment the launcher sets
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)                   # 1 + 2 over two ranks
    dist.destroy_process_group()
    return {"rank": rank, "world_size": world_size, "sum": scale * t.item()}


def rank_1_raises(rank, world_size):
    if rank == 1:
        x = 1
        raise ValueError(f"no luck on rank {rank} ({x})")
    time.sleep(60)                       # must be stopped, not waited for


def dies(rank, world_size):
    os._exit(7)


def sleeps(rank, world_size):
    time.sleep(60)


def error_files():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "pytorch-errorfile-*")))


def gone(job) -> bool:
    return not any(p.is_alive() for p in job._context.processes)


def test_two_ranks_all_reduce_over_gloo():
    results = ddp.launch(sum_of_ranks, nprocs=2, timeout=60, scale=2.0).results()
    assert results == [{"rank": r, "world_size": 2, "sum": 6.0} for r in range(2)]


def test_a_rank_that_raises_is_named_with_its_line_and_the_others_stop():
    before = error_files()
    job = ddp.launch(rank_1_raises, nprocs=2, timeout=60)
    start = time.monotonic()
    with pytest.raises(ddp.WorkerError) as info:
        job.results()
    assert time.monotonic() - start < 20          # rank 0's sleep was cut short
    e = info.value
    assert str(e).splitlines() == [
        "rank 1 raised ValueError in rank_1_raises, line 4: "
        'raise ValueError(f"no luck on rank {rank} ({x})")',
        "ValueError: no luck on rank 1 (1)"]
    assert (e.rank, e.error, e.message) == (1, "ValueError", "no luck on rank 1 (1)")
    assert "Traceback" in e.traceback and "rank_1_raises" in e.traceback
    assert gone(job) and error_files() == before
    with pytest.raises(ddp.WorkerError):          # asked again: the same answer
        job.results()


def test_a_process_that_dies_is_reported_with_its_exit_code():
    with pytest.raises(ddp.WorkerError, match=r"rank 0 died \(exit code 7\)"):
        ddp.launch(dies, nprocs=1, timeout=60).results()


def test_a_timeout_stops_every_process():
    job = ddp.launch(sleeps, nprocs=2, timeout=1)
    with pytest.raises(TimeoutError, match=r"rank\(s\) \[0, 1\] not done after 1 s"):
        job.results()
    assert gone(job)


def test_stop_without_results():
    job = ddp.launch(sleeps, nprocs=1, timeout=60)
    job.stop()
    assert gone(job)


def test_the_function_must_be_importable_by_name():
    def local(rank, world_size):
        return rank

    for fn in (local, lambda rank, world_size: rank, "sum_of_ranks", None):
        with pytest.raises(TypeError, match="importable module"):
            ddp.launch(fn)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"nprocs": 0}, "nprocs"), ({"nprocs": 1.5}, "nprocs"),
    ({"timeout": 0}, "timeout"), ({"timeout": "60"}, "timeout")])
def test_bad_arguments_are_refused_before_anything_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ddp.launch(sum_of_ranks, **kwargs)


def test_train_gives_every_rank_the_mean_gradient():
    grads = ddp.launch(ddp.train, depths=[[2], [1]]).results()
    name = "middle_linear.weight"
    own = []
    for rank, depth in enumerate((2, 1)):
        torch.manual_seed(0)
        net = ddp.DynamicNet(1000, 100, 10)
        inp, targ = ddp.rows(rank)
        ((net(inp, depth) - targ) ** 2).sum().backward()
        own.append(net.get_parameter(name).grad)
    for rank in range(2):
        torch.testing.assert_close(grads[rank][0][name], (own[0] + own[1]) / 2)
