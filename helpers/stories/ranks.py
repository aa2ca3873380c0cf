"""Notebook 07's step-through: two ranks of DDP on one timeline.

    runs = [record_ranks([2, 0]), record_ranks([2, 0], find_unused_parameters=True)]
    rank_story(runs)                 # last line of a cell: the step-through

`record_ranks` runs one step of `helpers.ddp.train`'s model (`DynamicNet(1000,
100, 10)`, each rank's 32 rows, the summed squared error) on two processes,
rank r at depth ``depths[r]``, then each rank's next forward. Inside each rank,
`watch_ranks` records the events as they happen and reports each one at once
(`helpers.ddp.report`), so that a rank that fails or hangs still tells what it
did:

- ``("forward", module)``: a forward hook, at each call of ``input_linear``,
  ``middle_linear`` (once a use) and ``output_linear``;
- ``("hook", name, sum)``: `register_post_accumulate_grad_hook` on every
  parameter, in the order they fire in backward, with its ``.grad`` then (DDP's
  own hook fires right after each, and copies that ``.grad`` into the bucket);
- ``("bucket", index, [(name, sum), ...])``: DDP's public `register_comm_hook`,
  called when a bucket is complete (and the buckets before it have gone):
  which parameters it holds and what, just before it is all-reduced. The hook
  then runs torch's own `allreduce_hook` (divide by the number of ranks, sum
  over the ranks), which gives what DDP gives without a hook, bit for bit;
  without a hook DDP divides each gradient as it copies it into the bucket, so
  the frames' bucket values, recorded with the hook, are the undivided ones;
- ``("reduced", index, [(name, sum), ...])``: the same bucket once the
  all-reduce is done;
- ``("grads", {name: sum or None})``: every ``.grad`` when backward returned;
- ``("stepped",)``: `optimizer.step()` has run;
- ``("refused", message)``: DDP refused the next forward (its first line).
  That rank then waits to be stopped, so that the other ranks' records end
  where they really wait, not where its exit would stop them.

A gradient is recorded as one number, the sum of its entries (linear, so the
all-reduce's mean of two parts is the mean of their sums), and drawn with one
decimal, so that the all-reduce's arithmetic shows, in digits that every CPU
setting and torch release tried reproduces (tests/test_story_ranks.py). Events
are ordered within a rank as the rank recorded them; across ranks only at the
all-reduce, where they meet. No clock is read. `rank_story` draws the records,
one frame a stage of the step: the forwards, each rank's backward, the
all-reduce and `.grad`, or the refusal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
from torch.nn.parallel import DistributedDataParallel

from helpers import ddp
from helpers.stepper import Canvas, Stepper

__all__ = ["Run", "rank_story", "record_ranks", "watch_ranks"]


def _size(g: torch.Tensor | None) -> float | None:
    """A gradient in one number: the sum of its entries (None for no gradient)."""
    return None if g is None else float(g.sum())


def watch_ranks(rank: int, world_size: int, depths: list[int], **ddp_options: Any) -> str:
    """One rank: `ddp.train`'s model, data and step at depth ``depths[rank]``, then the
    next forward, every event reported as it happens (see the module's docstring)."""
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = DistributedDataParallel(ddp.DynamicNet(1000, 100, 10), **ddp_options)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
    inp, targ = ddp.rows(rank)
    names = {id(p): n for n, p in model.module.named_parameters()}
    for name, module in model.module.named_children():
        module.register_forward_hook(lambda m, i, o, name=name: ddp.report(("forward", name)))
    for name, p in model.module.named_parameters():
        p.register_post_accumulate_grad_hook(
            lambda p, name=name: ddp.report(("hook", name, _size(p.grad))))

    def parts(bucket) -> list[tuple[str, int | None]]:
        return [(names[id(p)], _size(g))
                for p, g in zip(bucket.parameters(), bucket.gradients())]

    def comm_hook(state, bucket):
        ddp.report(("bucket", bucket.index(), parts(bucket)))
        reduced = allreduce_hook(state, bucket)          # torch's default: same result

        def done(fut):
            ddp.report(("reduced", bucket.index(), parts(bucket)))
            return fut.value()

        return reduced.then(done)

    model.register_comm_hook(None, comm_hook)
    optimizer.zero_grad()
    ((model(inp, depths[rank]) - targ) ** 2).sum().backward()
    ddp.report(("grads", {n: _size(p.grad) for n, p in model.module.named_parameters()}))
    optimizer.step()
    ddp.report(("stepped",))
    try:
        model(inp, depths[rank])                         # the next step's forward
    except RuntimeError as e:
        ddp.report(("refused", str(e).splitlines()[0]))
        time.sleep(3600)                                 # until the launcher stops it
    ddp.report(("forward done",))
    dist.destroy_process_group()
    return "done"


@dataclass
class Run:
    """What each rank of one `record_ranks` run reported, in its own order."""

    depths: list[int]
    options: dict[str, Any]
    events: list[list[tuple]] = field(default_factory=list)

    def of(self, rank: int, kind: str) -> list[tuple]:
        return [e for e in self.events[rank] if e[0] == kind]


def _waiting(events: list[tuple], others: list[list[tuple]] = ()) -> bool:
    """The rank's last event is a bucket whose all-reduce has started, not finished,
    and that none of `others` (the ranks' events) has started."""
    if not events or events[-1][0] != "bucket":
        return False
    return not any(e[0] == "bucket" and e[1] == events[-1][1] for ev in others for e in ev)


def record_ranks(depths: list[int], timeout: float = 20.0, **ddp_options: Any) -> Run:
    """Run `watch_ranks` on ``len(depths)`` processes, rank r at depth ``depths[r]``;
    return what they reported. The run is over when every rank is done, or when a
    rank was refused and each of the others is done, refused, or waiting in an
    all-reduce that the refused rank never joined."""
    if (not isinstance(depths, (list, tuple)) or len(depths) < 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= 3
                       for d in depths)):
        raise ValueError(f"depths must be a list of a depth from 0 to 3 for each of at "
                         f"least two ranks, e.g. [2, 0], got {depths!r}")
    job = ddp.launch(watch_ranks, nprocs=len(depths), timeout=timeout, depths=list(depths),
                     **ddp_options)
    deadline = time.monotonic() + timeout
    try:
        while job.running():
            events = job.reports()
            refused = [r for r, ev in enumerate(events) if ev and ev[-1][0] == "refused"]
            gone = [events[r] for r in refused]
            if refused and all(r in refused or _waiting(ev, gone) or r not in job.running()
                               for r, ev in enumerate(events)):
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"the ranks were not done after {timeout:g} s")
            time.sleep(0.005)
        else:
            job.results()                   # a rank that raised: its WorkerError
    finally:
        job.stop()
    return Run(list(depths), dict(ddp_options), job.reports())


# ---------------------------------------------------------------------------------
# Drawing: two lanes, rank 0 on the left and rank 1 on the right; the all-reduce
# spans both, because it is where the ranks meet.

# Narrow, so that a phone (the frame 342 to 358 px wide) shows the small text (11
# units) at 12 px or more.
M, LANE, GAP = 2, 150, 6          # M: a margin, so that no stroke is cut
W = 2 * LANE + GAP + 2 * M
HEAD = 24                         # the run's option, above the lanes
TOP_FWD, ROW_FWD = HEAD + 22, 20
TOP_SLOTS, ROW_SLOT = HEAD + 106, 19
MODULES = ("input_linear", "middle_linear", "output_linear")


def _fmt(v: float | None) -> str:
    """A sum as digits every CPU reproduces here: one decimal (an exact zero: 0)."""
    if v is None:
        return "None"
    return "0" if v == 0 else f"{v:.1f}"


@dataclass
class _Rank:
    """One rank's record, sorted into the stages of the step."""

    depth: int
    uses: dict[str, int]                     # forward calls of each module
    hooks: list[tuple[str, float]]           # post-accumulate hooks, in order
    bucket: dict[str, float | None]          # the bucket's parts before the all-reduce
    reduced: dict[str, float | None]         # ... and after it
    grads: dict[str, float | None] | None    # .grad when backward returned
    refused: str | None                      # the next forward's refusal


def _sort(run: Run, rank: int) -> _Rank:
    events = run.events[rank]
    step = []
    for e in events:
        if e[0] != "forward":
            break
        step.append(e[1])
    bucket = {n: v for e in run.of(rank, "bucket") for n, v in e[2]}
    reduced = {n: v for e in run.of(rank, "reduced") for n, v in e[2]}
    grads = run.of(rank, "grads")
    refused = run.of(rank, "refused")
    return _Rank(run.depths[rank], {m: step.count(m) for m in MODULES},
                 [(e[1], e[2]) for e in run.of(rank, "hook")], bucket, reduced,
                 grads[0][1] if grads else None, refused[0][1] if refused else None)


def _slots(run: Run, ranks: list[_Rank]) -> list[str]:
    """The bucket's parameters in the bucket's order, as a rank's comm hook saw it
    (the same on every rank); if no bucket was all-reduced, in the model's order."""
    for r in range(len(run.events)):
        buckets = sorted(run.of(r, "bucket"), key=lambda e: e[1])
        if buckets:
            return [n for e in buckets for n, _ in e[2]]
    for rk in ranks:
        if rk.grads is not None:
            return list(rk.grads)
    raise ValueError("the run recorded no bucket and no .grad: nothing to draw")


def _lane(pic: Canvas, x: float, rank: int, rk: _Rank, slots: list[str], *,
          values: dict[str, tuple[str, str]], hot: set[str], note: list[tuple[str, str]]
          ) -> None:
    """One rank's lane: its forward, its bucket (each part and its sum), a note."""
    pic.text(x + LANE / 2, HEAD + 14, f"rank {rank} \u00b7 depth {rk.depth}", cls="bold",
             anchor="middle")
    for i, m in enumerate(MODULES):
        k = rk.uses[m]
        label = m if k == 1 else (f"{m} \u00d7 {k}" if k else f"{m}: unused")
        cls = ("blue" if k else "grey dashed") + (" hot" if "forward" in hot else "")
        pic.box(x, TOP_FWD + i * ROW_FWD, LANE, ROW_FWD - 3, label, cls=cls)
    pic.text(x + 4, TOP_SLOTS - 6, "bucket 0", cls="small bold")
    pic.text(x + LANE - 3, TOP_SLOTS - 6, "\u03a3", cls="small bold", anchor="end")
    for i, n in enumerate(slots):
        y = TOP_SLOTS + i * ROW_SLOT
        text, look = values.get(n, ("", "grey dashed"))
        pic.box(x, y, LANE, ROW_SLOT - 3, "", cls=look + (" hot" if n in hot else ""))
        pic.text(x + 4, y + 12, n, cls="small")
        pic.text(x + LANE - 3, y + 12, text, cls="small bold", anchor="end")
    y = TOP_SLOTS + len(slots) * ROW_SLOT + 52
    for text, cls in note:
        pic.text(x + 2, y, text, cls=f"small {cls}")
        y += 14


def _first_sentence(message: str) -> list[str]:
    """The refusal's first sentence, in lines that fit a lane."""
    import textwrap

    return textwrap.wrap(message.split(". ")[0] + ".", 28)[:4]


def rank_story(runs: list[Run], *, title: str = "One step of DDP on two ranks") -> Stepper:
    """Draw `record_ranks` runs (two ranks each) as one step-through, a run after the
    other: the forwards, each rank's backward (hooks, bucket), the all-reduce where
    the ranks meet, what `.grad` holds, and a refusal where DDP refused."""
    if (not isinstance(runs, (list, tuple)) or not runs
            or not all(isinstance(r, Run) for r in runs)):
        raise ValueError("rank_story needs a list of the runs that record_ranks returned")
    frames: list[tuple[Canvas, str]] = []
    for i, run in enumerate(runs):
        if len(run.events) != 2:
            raise ValueError(f"rank_story draws two ranks, this run has {len(run.events)}")
        frames += _run_frames(run, again=i > 0)
    return Stepper(frames, title=title)


def _run_frames(run: Run, again: bool = False) -> list[tuple[Canvas, str]]:
    """One run's frames; `again`: a run after the first, whose first caption says
    it is the same step with other options."""
    ranks = [_sort(run, r) for r in range(2)]
    slots = _slots(run, ranks)
    label = ("find_unused_parameters=True" if run.options.get("find_unused_parameters")
             else "Without find_unused_parameters")
    band_y = TOP_SLOTS + len(slots) * ROW_SLOT + 10
    height = band_y + 150
    values: list[dict[str, tuple[str, str]]] = [{}, {}]
    notes: list[list[tuple[str, str]]] = [[], []]
    hooks_shown = [False, False]
    band = ["", ""]                      # the all-reduce's text and look, once started
    frames: list[tuple[Canvas, str]] = []

    def frame(caption: str, hot: list[set[str]]) -> None:
        pic = Canvas(W, height)
        pic.text(W / 2, 14, label, cls="bold", anchor="middle")
        for r, rk in enumerate(ranks):
            _lane(pic, M + r * (LANE + GAP), r, rk, slots, values=values[r], hot=hot[r],
                  note=notes[r])
        if band[0]:
            pic.box(M, band_y, W - 2 * M, 24, band[0], cls=band[1])
            for r in range(2):
                if ranks[r].bucket and hooks_shown[r]:
                    cx = M + r * (LANE + GAP) + LANE / 2
                    pic.line(cx, band_y - 9, cx, band_y, cls=band[1].split()[0])
        pic.text(M, height - 32, "\u03a3: the sum of a part's entries", cls="small grey")
        for x, y, look, meaning in ((M, 18, "blue", "the rank's own .grad"),
                                    (M + LANE + GAP, 18, "orange", "zeros from DDP"),
                                    (M, 4, "green", "the mean over the ranks")):
            pic.box(x + 1, height - y - 9, 10, 10, cls=look)       # the colour's swatch
            pic.text(x + 15, height - y, meaning, cls="small grey")
        frames.append((pic, caption))

    skipped = [m for m in MODULES if any(rk.uses[m] == 0 for rk in ranks)]
    times = {0: "never", 1: "once", 2: "twice"}
    uses = "; ".join(", ".join(f"rank {r} {times.get(rk.uses[m], f'{rk.uses[m]} times')}"
                               for r, rk in enumerate(ranks)) for m in skipped)
    flag = run.options.get("find_unused_parameters")
    head = (label if not again                   # a later run: the same step, other options
            else f"Now the same step with {label}" if flag
            else "Now the same step without find_unused_parameters")
    alone = "" if again else ", each rank on its own"        # said once, in 120 characters
    said = (f"{head}. The forwards{alone}: {' and '.join(skipped)} used by {uses}"
            if skipped else f"{head}. The forwards: every rank uses every layer")
    frame(said + ".", [{"forward"}, {"forward"}])

    for r, rk in enumerate(ranks):
        other = 1 - r
        hooks_shown[r] = True
        hooked = dict(rk.hooks)
        for n in slots:
            if n in hooked:
                values[r][n] = (_fmt(hooked[n]), "blue")
            elif n in rk.bucket:
                values[r][n] = (_fmt(rk.bucket[n]), "orange")
        zeros = [n for n in slots if n not in hooked and n in rk.bucket]
        empty = [n for n in slots if n not in hooked and n not in rk.bucket]
        many = [m for m in MODULES if rk.uses[m] > 1]
        what = ("each .grad" if len(hooked) == len(slots)
                else f"its {len(hooked)} gradients")
        said = (f"Rank {r}'s backward: DDP's hook copies {what} into the bucket"
                + (f", {many[0]}'s once after {rk.uses[many[0]]} uses" if many else ""))
        if zeros:
            said += f", and zeros for the {len(zeros)} unused"
        if rk.bucket:
            said += "; all-reduce starts"
            if ranks[other].bucket and hooks_shown[other]:
                band[:] = ["all-reduce: \u00f7 2 on each rank, then summed",
                           "green"]
            elif hooks_shown[other]:
                band[:] = [f"all-reduce started by rank {r} only: it waits", "red dashed"]
            else:
                band[:] = [f"all-reduce: rank {r} waits for rank {other}", "green dashed"]
        else:
            said += f"; {len(empty)} parts stay empty: no all-reduce"
            none = [n for n in slots if rk.grads is not None and rk.grads.get(n) is None]
            notes[r] = [("backward returns; .grad:", "blue"),
                        ("this rank's own gradients", "blue")] + [
                (f"{n}: None", "blue") for n in none[:2]]
            if band[0]:
                band[:] = [f"all-reduce started by rank {other} only: it waits",
                           "red dashed"]
        hot: list[set[str]] = [set(), set()]
        hot[r] = {*hooked, *zeros}
        frame(said + ".", hot)

    if all(rk.reduced for rk in ranks):
        for r, rk in enumerate(ranks):
            values[r] = {n: (_fmt(v), "green") for n, v in rk.reduced.items()}
        band[1] = "green hot"
        shown = next((n for n in slots if n.split(".")[0] in skipped), slots[0])
        parts = " and ".join(_fmt(rk.bucket.get(shown)) for rk in ranks)
        frame("The all-reduce: each part becomes (rank 0's + rank 1's) / 2, on both ranks; "
              f"{shown}: {parts} \u2192 {_fmt(ranks[0].reduced[shown])}.",
              [set(slots), set(slots)])
        band[1] = "green"
        for r, rk in enumerate(ranks):
            g = rk.grads or {}
            notes[r] = [("backward returns; .grad:", "green"),
                        ("the mean over the ranks", "green")] + [
                (f"{n}: {_fmt(g.get(n))}", "green bold") for n in slots
                if n.split(".")[0] in skipped][:2]
        frame("Backward returns: every .grad holds the mean over the ranks, the same on "
              "both, the skipped layer's too.", [set(), set()])
    for r, rk in enumerate(ranks):
        if rk.refused:
            notes[r] = [("next forward: RuntimeError", "red bold")] + [
                (line, "red") for line in _first_sentence(rk.refused)]
            said = (f"Rank {r} steps on its own .grad; its next forward raises."
                    if run.of(r, "stepped") else f"Rank {r}'s next forward raises.")
            if _waiting(run.events[1 - r], [run.events[r]]):
                said += f" Rank {1 - r} still waits in its all-reduce: the launcher stops it."
            frame(said, [set(), set()])
    return frames
