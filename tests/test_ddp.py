"""helpers.ddp: torch's launcher, a result per rank, failures and hangs reported, nothing left.

The workers live at the top of this module, because the processes import them by
name. On Linux the processes are forks of this one (torch already imported); a
launch costs a fraction of a second.
"""

from __future__ import annotations

import os
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


def quits(rank, world_size):
    os._exit(0)


def sleeps(rank, world_size):
    time.sleep(60)


def talks(rank, world_size):
    import warnings

    print("rank", rank, "prints")
    warnings.warn("a rank's warning", stacklevel=1)
    os.write(2, b"and writes to fd 2\n")
    return rank


def plain_until_refused(rank, world_size, depths):
    """ddp.train without find_unused_parameters, keeping what it has when refused,
    and where: (step, "forward" or "backward")."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(ddp.DynamicNet(1000, 100, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    inp, targ = ddp.rows(rank)
    before, grads, error, where = [], [], None, None
    try:
        for step, depth in enumerate(depths[rank]):
            before.append({n: p.detach().clone() for n, p in model.module.named_parameters()})
            optimizer.zero_grad()
            where = (step, "forward")
            loss = ((model(inp, depth) - targ) ** 2).sum()
            where = (step, "backward")
            loss.backward()
            grads.append({n: p.grad for n, p in model.module.named_parameters()})
            optimizer.step()
    except RuntimeError as e:
        error = str(e)
    return before, grads, error, where


def bucket_sizes(rank, world_size):
    """DDP's own account of its buckets (bytes each), after a step of ddp.train's model."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(ddp.DynamicNet(1000, 100, 10))
    inp, targ = ddp.rows(rank)
    ((model(inp, 2) - targ) ** 2).sum().backward()
    sizes = model._get_ddp_logging_data()["bucket_sizes"]
    dist.destroy_process_group()
    return sizes


def no_sync_around(rank, world_size, forward_inside):
    """One backward with `no_sync()` around the forward or only around the backward:
    the gradient of `input_linear.weight` after it."""
    import contextlib

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(ddp.DynamicNet(1000, 100, 10))
    inp, targ = ddp.rows(rank)
    with model.no_sync() if forward_inside else contextlib.nullcontext():
        loss = ((model(inp, 2) - targ) ** 2).sum()
    with contextlib.nullcontext() if forward_inside else model.no_sync():
        loss.backward()
    grad = model.module.input_linear.weight.grad
    dist.destroy_process_group()
    return grad


def bucket_events(rank, world_size):
    """What one backward of ddp.train's model under DDP runs to fill a bucket and to
    all-reduce it, in order (torch's profiler): the names of those events."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.profiler import ProfilerActivity, profile

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(ddp.DynamicNet(1000, 100, 10))
    inp, targ = ddp.rows(rank)
    loss = ((model(inp, 2) - targ) ** 2).sum()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        loss.backward()
    dist.destroy_process_group()
    events = sorted(prof.events(), key=lambda e: e.time_range.start)
    return [e.name for e in events if "mul_out" in e.name or "allreduce" in e.name]


def left_behind(job) -> list[str]:
    """The files of this job still on disk: torch's error files, the result folder.
    (Per job, not a listing of the temporary folder: other tests may run meanwhile.)"""
    return [path for path in [*job._context.error_files, job._folder]
            if path and os.path.exists(path)]


def gone(job) -> bool:
    return not any(p.is_alive() for p in job._context.processes)


def test_two_ranks_all_reduce_over_gloo():
    job = ddp.launch(sum_of_ranks, nprocs=2, timeout=60, scale=2.0)
    results = job.results()
    assert results == [{"rank": r, "world_size": 2, "sum": 6.0} for r in range(2)]
    assert not left_behind(job)


def test_a_rank_that_raises_is_named_with_its_line_and_the_others_stop():
    job = ddp.launch(rank_1_raises, nprocs=2, timeout=60)
    start = time.monotonic()
    with pytest.raises(ddp.WorkerError) as info:
        job.results()
    assert time.monotonic() - start < 20          # rank 0's sleep was cut short
    e = info.value
    assert str(e).splitlines() == [
        "rank 1 raised ValueError in rank_1_raises, line 4:",
        '    raise ValueError(f"no luck on rank {rank} ({x})")',
        "ValueError: no luck on rank 1 (1)"]
    assert (e.rank, e.error, e.message) == (1, "ValueError", "no luck on rank 1 (1)")
    assert "Traceback" in e.traceback and "rank_1_raises" in e.traceback
    assert gone(job) and not left_behind(job)
    with pytest.raises(ddp.WorkerError):          # asked again: the same answer
        job.results()


def test_a_process_that_dies_is_reported_with_its_exit_code():
    with pytest.raises(ddp.WorkerError, match=r"rank 0 died \(exit code 7\)"):
        ddp.launch(dies, nprocs=1, timeout=60).results()


def test_a_process_that_quits_without_a_result_is_reported():
    with pytest.raises(ddp.WorkerError, match=r"rank 0 ended without a result"):
        ddp.launch(quits, nprocs=1, timeout=60).results()


def test_a_timeout_stops_every_process():
    job = ddp.launch(sleeps, nprocs=2, timeout=1)
    with pytest.raises(TimeoutError, match=r"rank\(s\) \[0, 1\] not done after 1 s"):
        job.results()
    assert gone(job) and not left_behind(job)


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


def test_train_keeps_each_steps_grad_as_it_was():
    """`train` keeps each step's .grad tensors without a clone (notebook 07 shows it, and
    one_process does the same): zero_grad() sets .grad to None, so every backward makes
    new ones. Step 0's, kept through two more steps, are still what one step gives."""
    three = ddp.launch(ddp.train, depths=[[2, 1, 0], [2, 0, 0]],
                       find_unused_parameters=True).results()
    one = ddp.launch(ddp.train, depths=[[2], [2]], find_unused_parameters=True).results()
    for rank in range(2):
        steps = three[rank]
        for name, g in steps[0].items():
            assert torch.equal(g, one[rank][0][name]), (rank, name)
            assert g.data_ptr() != steps[1][name].data_ptr(), (rank, name)


def test_teardown_never_hangs():
    """DDP's all-reduce works, freed by gloo's threads, need the GIL (torch 2.13 on):
    freeing the model at a rank's end must not wait for them; five runs in a row."""
    for _ in range(5):
        grads = ddp.launch(ddp.train, timeout=20, depths=[[2, 1, 0], [2, 0, 0]],
                           find_unused_parameters=True).results()
        assert grads[0][2]["middle_linear.weight"] is None


def test_the_notebooks_environment_reaches_the_ranks(monkeypatch):
    """TORCH_DISTRIBUTED_DEBUG=INFO, set after the fork server started, names the
    parameters that got no gradient (notebook 07 says INFO is enough)."""
    ddp.prepare()
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "INFO")
    with pytest.raises(ddp.WorkerError) as info:
        ddp.launch(ddp.train, depths=[[2, 1, 1], [2, 0, 1]]).results()
    assert info.value.rank == 1
    assert ("Parameters which did not receive grad for rank 1: middle_linear.bias, "
            "middle_linear.weight") in info.value.message


def test_no_sync_accumulates_and_all_reduces_once():
    (seen0, grad0), (seen1, grad1) = ddp.launch(ddp.train_accumulating, depth=2,
                                                micro_batches=2).results()
    assert len(seen0) == len(seen1) == 2
    assert not torch.equal(seen0[0], seen1[0])          # own gradients, no all-reduce
    assert torch.equal(grad0, grad1)
    torch.testing.assert_close(grad0, (seen0[1] + seen1[1]) / 2)


def test_no_sync_counts_where_the_forward_runs():
    """What counts is the forward (notebook 07 puts both inside no_sync()). Inside
    no_sync(), the backward (run outside) only accumulates; outside, the backward (run
    inside) all-reduces."""
    inside = ddp.launch(no_sync_around, forward_inside=True).results()
    outside = ddp.launch(no_sync_around, forward_inside=False).results()
    assert not torch.equal(inside[0], inside[1])
    assert torch.equal(outside[0], outside[1])
    torch.testing.assert_close(outside[0], (inside[0] + inside[1]) / 2)


def test_static_graph_accepts_a_fixed_set_of_unused_parameters():
    """Notebook 07: static_graph=True with rank 1 skipping middle_linear at every
    step runs, and the ranks stay equal; a set that changes is refused."""
    grads = ddp.launch(ddp.train, depths=[[2, 3, 1], [0, 0, 0]],
                       static_graph=True).results()
    for step in range(3):
        for name, g in grads[0][step].items():
            assert torch.equal(g, grads[1][step][name]), (step, name)
    with pytest.raises(ddp.WorkerError, match="not compatible with static_graph"):
        ddp.launch(ddp.train, depths=[[2, 1, 1], [2, 0, 1]], static_graph=True).results()


def test_nothing_a_rank_prints_reaches_the_caller(capfd):
    assert ddp.launch(talks, nprocs=2, timeout=60).results() == [0, 1]
    out, err = capfd.readouterr()
    assert out == err == ""


def test_plain_ddp_a_rank_that_skips_the_layer_steps_on_its_own_gradients():
    """What notebook 07 says of plain DDP when rank 1 skips middle_linear at step 1:
    rank 1 joins no all-reduce, steps on its own gradients and refuses at its next
    forward; rank 0 never ends step 1's backward."""
    rank0, rank1 = ddp.launch(plain_until_refused, depths=[[2, 1, 1], [2, 0, 1]]).results()
    before, grads, error, where = rank1
    assert len(grads) == 2 and "Expected to have finished reduction" in error
    assert where == (2, "forward")
    net = ddp.DynamicNet(1000, 100, 10)
    net.load_state_dict(before[1])
    inp, targ = ddp.rows(1)
    ((net(inp, 0) - targ) ** 2).sum().backward()
    assert grads[1]["middle_linear.weight"] is None
    for name in ("input_linear.weight", "output_linear.weight"):
        torch.testing.assert_close(grads[1][name], net.get_parameter(name).grad)
    assert len(rank0[1]) == 1 and rank0[2] is not None      # no step 1 on rank 0
    assert rank0[3] == (1, "backward")                      # stuck in its backward


def test_one_bucket_holds_all_six_parameters():
    """Notebook 07: DynamicNet(1000, 100, 10)'s six parameters (444,840 bytes) share one
    bucket, so a rank that skips middle_linear joins no all-reduce at all."""
    numel = sum(p.numel() for p in ddp.DynamicNet(1000, 100, 10).parameters())
    sizes = ddp.launch(bucket_sizes).results()
    assert sizes == [str(4 * numel)] * 2 == ["444840"] * 2


def test_same_grads_compares_every_rank_and_step_none_alike():
    """ddp.same_grads, notebook 07's comparison of the ranks with one process's replay."""
    def steps(scale=1.0, b0=None):
        g = torch.ones(2, 2)
        return [{"a": g, "b": b0}, {"a": scale * g, "b": g.clone()}]

    alone = steps(2.0)
    ddp.same_grads([steps(2.0), steps(2.0 + 1e-7)], alone)
    with pytest.raises(AssertionError, match=r"rank 1, step 0: gradients for \['a', 'b'\]"):
        ddp.same_grads([steps(2.0), steps(2.0, b0=torch.ones(2, 2))], alone)
    with pytest.raises(AssertionError, match="differ for a"):
        ddp.same_grads([steps(1.0)], alone)
    with pytest.raises(AssertionError, match="rank 0 took 1 steps, the replay 2"):
        ddp.same_grads([steps(2.0)[:1]], alone)


def one_step_of_grads(rank, world_size, scale):
    return [{"a": torch.full((2, 2), scale), "b": None}]


def test_verdict_is_ok_or_refused_and_raises_on_anything_else():
    """ddp.verdict, notebook 07's table: the refusal named, or the replay's gradients."""
    alone = one_step_of_grads(0, 2, 1.0)
    assert ddp.verdict(ddp.launch(one_step_of_grads, scale=1.0), alone, "luck") == "ok"
    assert ddp.verdict(ddp.launch(rank_1_raises), alone, "no luck") == "refused"
    with pytest.raises(ddp.WorkerError, match="no luck on rank 1"):
        ddp.verdict(ddp.launch(rank_1_raises), alone, "ready only once")
    with pytest.raises(AssertionError, match="differ for a"):
        ddp.verdict(ddp.launch(one_step_of_grads, scale=2.0), alone, "luck")


def test_reentrant_checkpoints_under_ddp():
    """Notebook 07 section 3, every case of ddp.train_checkpointed: DDP without
    static_graph expects each AccumulateGrad to run once per backward. A reentrant
    checkpoint around each use runs it once a use: refused, with or without
    find_unused_parameters. One reentrant checkpoint around all the uses runs it once,
    which plain DDP accepts, but find_unused_parameters's walk finds no use inside
    (middle_linear ran under no_grad), marks the layer unused, then sees its hook fire:
    refused. static_graph=True (which counts the hook's firings) accepts every case,
    and so does the non-reentrant kind; each gives the gradients of plain DDP."""
    plain = ddp.launch(ddp.train, depths=[[2], [2]], find_unused_parameters=True).results()
    refused = {(True, "plain"), (True, "find_unused_parameters"),
               (False, "find_unused_parameters")}             # (each_use, option)
    for each_use in (True, False):
        for reentrant in (True, False):
            for option in ("plain", "find_unused_parameters", "static_graph"):
                options = {} if option == "plain" else {option: True}
                job = ddp.launch(ddp.train_checkpointed, use_reentrant=reentrant,
                                 each_use=each_use, **options)
                want = "refused" if reentrant and (each_use, option) in refused else "ok"
                assert ddp.verdict(job, [plain[0][0]],
                                   "Expected to mark a variable ready only once") == want


def test_ddp_divides_each_gradient_as_it_copies_it_then_the_all_reduce_sums():
    """Notebook 07 §2's bucket, divided by the number of ranks and summed over them:
    without a comm hook, DDP's hook divides each gradient as it copies it into the
    bucket (the Reducer's mul_out, once per parameter), and only then is the bucket
    all-reduced (a sum: gloo's default op). With a comm hook, the bucket holds the
    gradients as they are, and torch's allreduce_hook divides it just before the sum
    (the step-through's recording hook; tests/test_story_ranks.py: the same .grad)."""
    for names in ddp.launch(bucket_events).results():
        divisions = [i for i, n in enumerate(names) if n.endswith("reducer::mul_out")]
        all_reduces = [i for i, n in enumerate(names) if "allreduce" in n]
        assert len(divisions) == 6 and all_reduces, names
        assert max(divisions) < min(all_reduces), names


# --- what notebook 07 says, checked (issue 29) -------------------------------------


def reports_then_raises(rank, world_size):
    ddp.report(("started", rank))
    if rank == 1:
        ddp.report(("about to fail",))
        raise ValueError("no luck")
    ddp.report(("sleeping",))
    time.sleep(60)                       # stopped by the launcher, its reports kept


def test_reports_arrive_as_they_go_and_survive_a_failure():
    job = ddp.launch(reports_then_raises, nprocs=2, timeout=60)
    with pytest.raises(ddp.WorkerError, match="no luck"):
        job.results()
    assert job.reports() == [[("started", 0), ("sleeping",)], [("started", 1), ("about to fail",)]]
    assert gone(job) and not left_behind(job)
    with pytest.raises(RuntimeError, match="only inside a rank"):
        ddp.report("outside")


def skips_after_accumulating(rank, world_size, last_depths):
    """A micro-batch under no_sync() at depth 2, then one outside at last_depths[rank],
    with find_unused_parameters=True: middle_linear.weight's gradient from each part
    (None where the rank skipped the layer), and .grad at the end."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(ddp.DynamicNet(1000, 100, 10), find_unused_parameters=True)
    w = model.module.middle_linear.weight
    (x0, x1), (y0, y1) = (t.chunk(2) for t in ddp.rows(rank))
    with model.no_sync():
        ((model(x0, 2) - y0) ** 2).sum().backward()
    first = w.grad.clone()
    second = torch.autograd.grad(((model.module(x1, last_depths[rank]) - y1) ** 2).sum(), w,
                                 allow_unused=True)[0]
    ((model(x1, last_depths[rank]) - y1) ** 2).sum().backward()
    grad = w.grad.clone()
    dist.destroy_process_group()
    return first, second, grad


def test_a_skipped_parameter_sends_its_accumulated_grad_not_zeros():
    """Notebook 07 §3: zeros go into the bucket for a parameter the rank skipped only
    while its .grad is None; after a micro-batch under no_sync(), its accumulated .grad
    goes in instead. Rank 1 skips middle_linear in the all-reducing micro-batch: every
    rank gets (rank 0's two parts + rank 1's first part) / 2, not rank 0's alone / 2."""
    (a0, b0, g0), (a1, b1, g1) = ddp.launch(skips_after_accumulating,
                                            last_depths=[2, 0]).results()
    assert b1 is None and torch.equal(g0, g1)
    torch.testing.assert_close(g0, (a0 + b0 + a1) / 2)
    assert not torch.allclose(g0, (a0 + b0) / 2)
    (a0, b0, g0), (a1, b1, g1) = ddp.launch(skips_after_accumulating,
                                            last_depths=[0, 0]).results()
    assert b0 is None and b1 is None                     # no rank used it: still reduced
    torch.testing.assert_close(g0, (a0 + a1) / 2)
    assert torch.equal(g0, g1)


class Swapped(torch.nn.Module):
    """Two layers registered in the order opposite to their use: DDP's first buckets
    (the parameters in reverse order of registration) do not fill in bucket order."""

    def __init__(self):
        super().__init__()
        self.last = torch.nn.Linear(64, 64)
        self.first = torch.nn.Linear(64, 64)

    def forward(self, x):
        return self.last(self.first(x))


def ready_and_reduced(rank, world_size):
    """The events of one backward, in order: each parameter ready (its post-accumulate
    hook) and each bucket all-reduced (DDP's comm hook, running torch's default one)."""
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
    from torch.nn.parallel import DistributedDataParallel

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(Swapped(), find_unused_parameters=True, bucket_cap_mb=0.01)
    names = {id(p): n for n, p in model.module.named_parameters()}
    events = []
    for n, p in model.module.named_parameters():
        p.register_post_accumulate_grad_hook(lambda p, n=n: events.append(("ready", n)))

    def hook(state, bucket):
        events.append(("reduce", bucket.index(), [names[id(p)] for p in bucket.parameters()]))
        return allreduce_hook(state, bucket)

    model.register_comm_hook(None, hook)
    model(torch.randn(4, 64)).sum().backward()
    dist.destroy_process_group()
    return events


def test_buckets_are_all_reduced_in_order():
    """A complete bucket waits for the buckets before it (no longer in notebook 07). Here the last
    bucket is complete second, and all-reduced last."""
    for events in ddp.launch(ready_and_reduced).results():
        reduced = [e for e in events if e[0] == "reduce"]
        assert [e[1] for e in reduced] == list(range(len(reduced))) and len(reduced) >= 3
        ready = [e[1] for e in events if e[0] == "ready"]
        last = reduced[-1][2]
        complete = max(ready.index(n) for n in last)             # when it was complete
        assert complete < ready.index(reduced[0][2][-1])          # before bucket 0 was
        assert events.index(reduced[-1]) == len(events) - 1       # yet reduced last


def test_the_post_accumulate_hook_fires_once_a_backward_or_once_a_reentrant_segment():
    """Notebook 07 §2: after the uses' sum; once per backward, but under the reentrant
    checkpoint once per checkpointed segment, each segment running a backward of its own."""
    from torch.utils.checkpoint import checkpoint

    lin = torch.nn.Linear(3, 3)
    fired = []
    lin.weight.register_post_accumulate_grad_hook(lambda p: fired.append(1))
    x = torch.randn(2, 3)

    def twice(h):
        return lin(lin(h))

    def count(run):
        fired.clear()
        run().sum().backward()
        return len(fired)

    assert count(lambda: twice(twice(x))) == 1                     # 4 uses, plain
    for reentrant, segments in ((True, 2), (False, 1)):
        two = lambda r=reentrant: checkpoint(twice, checkpoint(  # noqa: E731
            twice, x.requires_grad_(), use_reentrant=r), use_reentrant=r)
        assert count(two) == segments


def test_a_doubled_learning_rate_undoes_the_mean_for_sgd_adam_ignores_the_factor():
    """Notebook 07 §3: with a summed loss DDP's gradient is half one process's; SGD
    (no weight decay) with twice the learning rate takes the same steps (and Adam's
    steps, not in the notebook, hardly change with a constant factor: only through eps)."""
    def steps(opt_class, scale, **kw):
        torch.manual_seed(0)
        w = torch.nn.Parameter(torch.randn(5))
        opt = opt_class([w], **kw)
        for _ in range(3):
            opt.zero_grad()
            (scale * (w ** 2).sum()).backward()
            opt.step()
        return w.detach()

    sgd = dict(momentum=0.9)
    torch.testing.assert_close(steps(torch.optim.SGD, 0.5, lr=0.2, **sgd),
                               steps(torch.optim.SGD, 1.0, lr=0.1, **sgd))
    assert not torch.allclose(steps(torch.optim.SGD, 0.5, lr=0.2, weight_decay=0.1, **sgd),
                              steps(torch.optim.SGD, 1.0, lr=0.1, weight_decay=0.1, **sgd))
    torch.testing.assert_close(steps(torch.optim.Adam, 0.5, lr=0.1),
                               steps(torch.optim.Adam, 1.0, lr=0.1))
