"""helpers.stories.ranks: two ranks of DDP recorded from inside, drawn on one timeline."""

import math

import pytest

from helpers import ddp
from helpers.stories.ranks import Run, rank_story, record_ranks

PARAMS = ["input_linear.weight", "input_linear.bias", "middle_linear.weight",
          "middle_linear.bias", "output_linear.weight", "output_linear.bias"]


@pytest.fixture(scope="module")
def runs():
    return [record_ranks([2, 0]), record_ranks([2, 0], find_unused_parameters=True)]


def kinds(events):
    return [e[0] for e in events]


def test_without_find_unused_rank_1_is_refused_and_rank_0_waits_in_its_all_reduce(runs):
    rank0, rank1 = runs[0].events
    assert [e[1] for e in rank0[:4]] == ["input_linear", "middle_linear", "middle_linear",
                                         "output_linear"]
    assert [e[1] for e in rank0 if e[0] == "hook"] == PARAMS[::-1]   # once each, last first
    assert kinds(rank0)[-1] == "bucket" and "reduced" not in kinds(rank0)
    assert [n for n, _ in rank0[-1][2]] == PARAMS                     # one bucket, all six
    assert [e[1] for e in rank1 if e[0] == "forward"] == ["input_linear", "output_linear"]
    assert "bucket" not in kinds(rank1)                               # no all-reduce
    grads = runs[0].of(1, "grads")[0][1]
    assert grads["middle_linear.weight"] is None and grads["input_linear.weight"] is not None
    assert runs[0].of(1, "refused")[0][1].startswith("Expected to have finished reduction")


def test_with_find_unused_the_bucket_holds_zeros_and_both_ranks_get_the_mean(runs):
    run = runs[1]
    before = [dict(run.of(r, "bucket")[0][2]) for r in range(2)]
    after = [dict(run.of(r, "reduced")[0][2]) for r in range(2)]
    hooked = [dict((e[1], e[2]) for e in run.of(r, "hook")) for r in range(2)]
    assert before[1]["middle_linear.weight"] == 0 == before[1]["middle_linear.bias"]
    assert "middle_linear.weight" not in hooked[1]
    for n in PARAMS:                           # what the hooks saw went into the bucket
        assert all(before[r][n] == hooked[r][n] for r in range(2) if n in hooked[r])
        assert after[0][n] == after[1][n]
        assert after[0][n] == pytest.approx((before[0][n] + before[1][n]) / 2, rel=1e-5,
                                            abs=1e-3)
    assert run.of(0, "grads")[0][1] == run.of(1, "grads")[0][1] == after[0]
    assert kinds(run.events[1])[-1] == "forward done"


def test_the_recording_hook_changes_nothing_ddp_computes(runs):
    """The comm hook runs torch's allreduce_hook: .grad as without a hook, bit for bit."""
    plain = ddp.launch(ddp.train, depths=[[2], [0]], find_unused_parameters=True).results()
    for rank in range(2):
        assert runs[1].of(rank, "grads")[0][1] == {
            n: float(g.sum()) for n, g in plain[rank][0].items()}


def test_the_story_draws_each_stage_and_is_the_same_bytes_run_after_run(runs):
    story = rank_story(runs)
    assert len(story) == 9
    caps = story.captions
    assert caps[0].startswith("Without find_unused_parameters. The forwards")
    assert "middle_linear used by rank 0 twice, rank 1 never" in caps[0]
    assert caps[1] == ("Rank 0's backward: DDP's hook copies each .grad into the bucket, "
                       "middle_linear's once after 2 uses; all-reduce starts.")
    assert "copies its 4 gradients into the bucket" in caps[2]
    assert "2 parts stay empty: no all-reduce" in caps[2]
    assert caps[3].startswith("Rank 1 steps on its own .grad; its next forward raises")
    assert caps[4] == ("Now the same step with find_unused_parameters=True. The "
                       "forwards: middle_linear used by rank 0 twice, rank 1 never.")
    assert "and zeros for the 2 unused" in caps[6]
    assert caps[7].endswith("middle_linear.weight: 676.6 and 0 \u2192 338.3.")
    page = story._repr_html_()
    width = float(story.frames[0][0].split('viewBox="0 0 ')[1].split()[0])
    assert 11 * 342 / width >= 12       # small text (11 units) on a phone: 342 px or more
    assert 'data-stepper="9"' in page and len(page.encode()) < 300_000
    assert "Expected to have finished" in story.frames[3][0]
    for i, (svg, _) in enumerate(story.frames):      # each frame names its run
        assert ("find_unused_parameters=True" in svg) == (i >= 4), i
        assert ("Without find_unused_parameters" in svg) == (i < 4), i
    assert ">676.6<" in story.frames[5][0] and ">338.3<" in story.frames[8][0]
    again = [record_ranks([2, 0]), record_ranks([2, 0], find_unused_parameters=True)]
    assert rank_story(again)._repr_html_() == page


def test_bad_input_gets_a_sentence_naming_the_argument(runs):
    for depths in ([2], [2, 4], "20", [2, True], None):
        with pytest.raises(ValueError, match="depths must be a list"):
            record_ranks(depths)
    with pytest.raises(ValueError, match="list of the runs that record_ranks returned"):
        rank_story([])
    with pytest.raises(ValueError, match="list of the runs"):
        rank_story(runs[0])
    three = Run([2, 0, 1], {}, runs[0].events + [[]])
    with pytest.raises(ValueError, match="draws two ranks, this run has 3"):
        rank_story([three])
    with pytest.raises(ValueError, match="no bucket and no .grad"):
        rank_story([Run([2, 0], {}, [[], []])])


def test_every_number_drawn_is_far_from_where_its_digits_would_change(runs):
    """The sums are drawn with one decimal: each is at least 1e-5 of its size away
    from a rounding edge, five times the most that float rounding moved any of them
    (2e-6 of its size) between torch 2.9.1, 2.13 and 2.15, each under this CPU's
    kernels, ATEN_CPU_CAPABILITY=default and avx2, and MKL_ENABLE_INSTRUCTIONS=AVX2,
    which all drew the same digits. The closest: input_linear.weight's mean,
    -324.5543, 1.3e-5 of its size from -324.55."""
    values = set()
    for run in runs:
        for events in run.events:
            for e in events:
                if e[0] == "hook":
                    values.add(e[2])
                elif e[0] in ("bucket", "reduced"):
                    values.update(v for _, v in e[2])
    for v in values - {0.0}:
        x = abs(v) / 0.1
        assert abs(x - math.floor(x) - 0.5) * 0.1 > 1e-5 * abs(v), v
