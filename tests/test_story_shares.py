"""helpers.stories.shares: a reused layer's shares recorded as they arrive, and drawn."""

import html
import re

import pytest
import torch
from torch import nn

from helpers.stories.shares import SharesRecord, share_story, watch_shares


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(3, 4)
        self.middle = nn.Linear(4, 4)
        self.outer = nn.Linear(4, 2)

    def forward(self, x, depth):
        h = self.inner(x).clamp(min=0)
        for _ in range(depth):
            h = torch.tanh(self.middle(h))
        return self.outer(h)


def _run(depth=3, momentum=0.9, step=True, steps_before=0, set_to_none=True):
    torch.manual_seed(0)
    net, x, y = Net(), torch.randn(5, 3), torch.randn(5, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=momentum)
    for _ in range(steps_before):               # unwatched steps: a buffer exists
        opt.zero_grad()
        ((net(x, depth) - y) ** 2).sum().backward()
        opt.step()
    with watch_shares(net, "middle", opt) as record:
        opt.zero_grad(set_to_none=set_to_none)
        ((net(x, depth) - y) ** 2).sum().backward()
        if step:
            opt.step()
    return net, record


def test_records_uses_shares_in_arrival_order_grad_and_the_step_then_unhooks():
    net, record = _run()
    w = net.middle.weight
    assert [(u.number, u.node, u.path) for u in record.uses] == [
        (i, "AddmmBackward0", "TBackward0") for i in (1, 2, 3)]
    assert all(u.accumulator is record.uses[0].accumulator for u in record.uses)
    assert [use for use, _ in record.arrivals] == [3, 2, 1]      # the last use first
    (summed,) = record.hook_runs                                  # the hook ran once
    running = record.arrivals[0][1] + record.arrivals[1][1] + record.arrivals[2][1]
    assert record.grad_was_none and torch.equal(summed, running)
    (written,) = record.grad_writes                               # .grad written once
    assert torch.equal(written, w.grad)
    (step,) = record.steps
    assert torch.equal(step.after, w.detach()) and not torch.equal(step.before, step.after)
    assert torch.equal(step.state["momentum_buffer"], w.grad) and step.lr == 0.1
    n_uses = len(record.uses)
    ((net(torch.randn(5, 3), 2)) ** 2).sum().backward()         # hooks are gone
    assert len(record.uses) == n_uses and len(record.hook_runs) == 1


def test_story_has_a_frame_per_event_and_says_what_happened():
    _, record = _run()
    story = share_story(record, row=1, cols=range(4))
    assert len(story) == 1 + 3 + 1 + 1          # the forward pass, 3 shares, .grad, step
    caps = story.captions
    assert caps[0] == ("Forward: 3 calls of middle make 3 AddmmBackward0 nodes; their "
                       "TBackward0 nodes lead to one AccumulateGrad node")
    assert caps[1] == ("Backward: use 3's share arrives first; the AccumulateGrad node keeps "
                       "it in its input buffer until the node runs")     # says what it is
    assert caps[3].startswith("Use 1's share arrives last")
    assert "runs once" in caps[4] and caps[4].endswith("(None until now) becomes that sum: "
                                                        "same bars")
    assert "middle.weight.grad = input buffer" in story.frames[4][0]   # same bars as frame 4
    step = record.steps[0]                      # a move on its own axis, and the caption says so
    assert caps[5].startswith("optimizer.step(): momentum buffer = .grad, so the weight moves "
                              "once, by −lr × frame 5's bars (axis ±")
    assert not step.had_buffer
    assert all("momentum buffer: none yet" in svg for svg, _ in story.frames[:5])
    assert "momentum buffer = .grad" in story.frames[5][0]
    assert not any("no buffer" in svg for svg, _ in story.frames)   # every buffer named
    assert (step.after - step.before).abs().max() < 0.5 * record.grad_writes[0].abs().max()
    assert 'data-stepper="6"' in story._repr_html_()
    assert "each share that arrived: row 1, columns 0–3" in story.frames[1][0]
    assert all(len(cap) <= 120 for cap in caps)       # one line or two on a phone
    assert "share 3" in story.frames[1][0] and "share 1" not in story.frames[1][0]
    assert all(f"use {i}" in story.frames[0][0] for i in (1, 2, 3))
    assert story.frames[5][0].count('class="bar grey"') == 4   # the step: no use's colour
    _, once = _run(depth=1)
    assert share_story(once, cols=[1]).captions[0] == (
        "Forward: 1 call of middle makes an AddmmBackward0 node; its TBackward0 node leads "
        "to the weight's AccumulateGrad node")


def test_every_label_is_at_least_12_units_high():
    """No `small` text (11 units): at 390 px a 360-unit frame shows 13-unit labels at
    about 12 px."""
    story = share_story(_run()[1], row=1, cols=range(4))
    for svg, _ in story.frames:
        labels = re.findall(r'<text class="([^"]*)"', svg)
        assert labels and not any("small" in cls.split() for cls in labels)
        assert 'viewBox="0 0 360 ' in svg


def test_same_record_same_bytes_and_plain_sgd_has_no_buffer():
    a = share_story(_run()[1], row=0, cols=[0, 2])
    assert "row 0, columns 0, 2" in a.frames[1][0]
    assert "row 0, column 1" in share_story(_run()[1], row=0, cols=[1]).frames[1][0]
    b = share_story(_run()[1], row=0, cols=[0, 2])
    assert a._repr_html_() == b._repr_html_()
    _, plain = _run(momentum=0.0)
    assert share_story(plain, cols=[1]).captions[-1] == (
        "optimizer.step(): middle.weight moves once (axis ±0.2, not ±2)")
    assert all("no momentum buffer" in svg for svg, _ in share_story(plain, cols=[1]).frames)
    _, later = _run(steps_before=1)              # a buffer from an earlier, unwatched step
    story = share_story(later, cols=[1])
    assert later.steps[0].had_buffer
    assert html.escape("momentum buffer: last step's") in story.frames[0][0]
    assert "momentum buffer updated" in story.frames[-1][0]
    assert story.captions[-1].startswith(
        "optimizer.step(): the momentum buffer takes in .grad; the weight moves once, by "
        "−lr × buffer")
    assert ".grad = the sum" in story.frames[-1][0]
    _, kept = _run(steps_before=1, set_to_none=False)     # .grad zeroed, not None: it adds
    kept_story = share_story(kept, cols=[1])
    assert ".grad += the sum" in kept_story.frames[-1][0]
    assert "= input buffer" not in kept_story.frames[-2][0]          # it adds: other bars
    assert kept_story.captions[-2].endswith(".grad adds that sum")
    _, no_step = _run(depth=1, step=False)
    assert len(share_story(no_step, cols=[1])) == 1 + 1 + 1


def test_bad_input_gets_a_sentence_naming_the_argument():
    net = Net()
    with pytest.raises(TypeError, match="needs the model, an nn.Module, not a str"):
        with watch_shares("net", "middle"):
            pass
    with pytest.raises(ValueError, match="no layer named 'mid'"):
        with watch_shares(net, "mid"):
            pass
    with pytest.raises(TypeError, match="optimizer is a list"):
        with watch_shares(net, "middle", [net.middle.weight]):
            pass
    other = torch.optim.SGD(net.inner.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="does not hold middle.weight"):
        with watch_shares(net, "middle", other):
            pass
    with pytest.raises(TypeError, match="record watch_shares gave, not a list"):
        share_story([])
    with pytest.raises(ValueError, match="no call of middle was recorded"):
        share_story(_run(depth=0)[1])
    _, record = _run()
    with pytest.raises(ValueError, match=r"row must be a row of middle.weight, shaped \(4, 4\)"):
        share_story(record, row=4)
    with pytest.raises(ValueError, match="cols must be 1 to 8 columns"):
        share_story(record, cols=[0, 9])
    with pytest.raises(RuntimeError, match="call 1 made no path to middle.weight"):
        with watch_shares(net, "middle"), torch.no_grad():
            net(torch.randn(2, 3), 1)
    assert isinstance(record, SharesRecord)
