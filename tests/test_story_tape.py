"""helpers.stories.tape: a tape's pops and sends recorded, drawn beside autograd's order."""

import re

import pytest
import torch

# Notebook 05's Tape and ops, as the exercise checks recap them (`# recap of 05 §2`).
from helpers.checks.nb05 import Tape, add, relu
from helpers.graph import node_order
from helpers.stories.tape import TapeRun, tape_story, watch_tape


def _two_branches():
    """Appendix B's computation: pa = a + a, pb = b + b, top = relu(pa) + relu(pb)."""
    a, b = (torch.tensor(v, requires_grad=True) for v in (1.0, 3.0))
    tape = Tape()
    pa, pb = add(tape, a, a), add(tape, b, b)
    top = add(tape, relu(tape, pa), relu(tape, pb))
    return tape, top, {"a": a, "b": b}


def _run():
    tape, top, names = _two_branches()
    ran = node_order(top)
    with watch_tape(tape) as run:
        tape.backward(top)
    return tape, run, ran, names


def test_watch_logs_start_pops_and_sends_in_order_and_puts_the_tape_back():
    tape, run, _, names = _run()
    a, b = names["a"], names["b"]
    assert [r.op for r in run.records] == ["add", "add", "relu", "relu", "add"]
    kinds = [e[0] for e in run.events]
    assert kinds[0] == "start" and [e[1] for e in run.events if e[0] == "pop"] == [4, 3, 2, 1, 0]
    sends_to_b = [(e[2].item(), e[3].item()) for e in run.events if e[0] == "send" and e[1] is b]
    assert sends_to_b == [(1.0, 1.0), (1.0, 2.0)]          # each +=, with the running .g
    assert a.g.item() == 2 and "send" not in vars(tape) and "start" not in vars(tape)
    assert type(tape.records) is list and tape.records == []


def test_story_has_a_frame_per_record_the_start_and_each_pop():
    _, run, ran, names = _run()
    story = tape_story(run, ran, names)
    caps = story.captions
    assert len(story) == 5 + 1 + 5
    assert caps[0] == "Forward, on the tape: #0 = add(a, a) = 2; a used twice here"
    assert caps[5].startswith("Backward: start sets every .g on the tape to 0")
    assert caps[6] == "Pop #4 (add, #4.g = 1): #2.g += 1, #3.g += 1"
    # the running .g is shown where a share is added to an earlier one
    assert caps[9] == "Pop #1 (add, #1.g = 1): b.g += 1, b.g += 1 → 2; autograd sets b.grad"
    page = story._repr_html_()
    assert 'data-stepper="11"' in page
    assert "#4 AddBackward0" in story.frames[6][0]          # autograd's node, with the pop
    assert "AccumulateGrad" not in story.frames[5][0]       # not before any pop
    # b's AccumulateGrad ran once, for the two shares the tape sent b
    assert "AccumulateGrad → b.grad = 2<" in story.frames[9][0]
    assert "set once, on the sum of its shares" in story.frames[9][0]
    assert "autograd&#x27;s run, aligned to the tape&#x27;s pops:" in story.frames[6][0]


def _text_x(svg, text):
    (x,) = re.findall(r'<text[^>]* x="([\d.]+)"[^>]*>' + re.escape(text) + "</text>", svg)
    return float(x)


def test_autograd_nodes_under_their_record_and_readable_on_a_phone():
    _, run, ran, names = _run()
    story = tape_story(run, ran, names)
    svg = story.frames[9][0]                      # pop #1: pa = b + b
    own = _text_x(svg, "#1 AddBackward0")
    assert _text_x(svg, "AccumulateGrad → b.grad = 2") > own  # indented
    # a phone shows a frame about 342-358 px wide: 360 units keep 13-unit text at 12 px
    # or more (no label in the smaller class)
    assert all('viewBox="0 0 360 ' in svg for svg, _ in story.frames)
    assert not any(re.search(r'class="[^"]*small', svg) for svg, _ in story.frames)
    for look, text in (("blue", "on the tape"), ("grey faint", "popped"),
                       ("grey", "leaf"), ("orange hot", "this step&#x27;s record"),
                       ("orange", "got a share")):        # the colour key
        assert all(f'class="box {look}"' in svg and f">{text}<" in svg
                   for svg, _ in story.frames)
    # forward: only the rows made now are orange; a leaf read stays grey
    rows = re.findall(r'<rect class="box ([^"]*)"[^>]*/>(?:<text[^>]*>[^<]*</text>)?'
                      r'<text[^>]*>(#\d|a|b)</text>', story.frames[0][0])
    assert rows == [("grey", "a"), ("orange hot", "#0")]


def test_autograd_waits_for_a_leafs_last_use():
    a, b = (torch.tensor(v, requires_grad=True) for v in (1.0, 3.0))
    tape = Tape()
    top = add(tape, add(tape, a, b), b)          # b used by #0 and by #1
    ran = node_order(top)
    with watch_tape(tape) as run:
        tape.backward(top)
    caps = tape_story(run, ran, {"a": a, "b": b}).captions
    assert caps[-2] == ("Pop #1 (add, #1.g = 1): #0.g += 1, b.g += 1; "
                        "autograd waits for 1 more use of b")
    assert caps[-1] == ("Pop #0 (add, #0.g = 1): a.g += 1, b.g += 1 → 2; "
                        "autograd sets a.grad, b.grad")


def test_a_one_input_op_on_the_last_output_shares_its_frame_and_start_marks_the_loss():
    a, b = (torch.tensor(v, requires_grad=True) for v in (1.0, 3.0))
    tape = Tape()
    top = relu(tape, add(tape, relu(tape, add(tape, a, b)), b))   # a layer: add, relu
    ran = node_order(top)
    with watch_tape(tape) as run:
        tape.backward(top)
    story = tape_story(run, ran, {"a": a, "b": b})
    assert story.captions[:3] == [
        "Forward, on the tape: #0 = add(a, b) = 4, #1 = relu(#0) = 4",
        "Forward, on the tape: #2 = add(#1, b) = 7, #3 = relu(#2) = 7; b's 2nd use",
        "Backward: start sets every .g on the tape to 0, then #3.g (the loss's) to 1"]
    assert len(story) == 2 + 1 + 4
    rows = re.findall(r'<rect class="box ([^"]*)"[^>]*/>(?:<text[^>]*>[^<]*</text>)?'
                      r'<text[^>]*>(#\d|a|b)</text>', story.frames[2][0])
    assert ("orange hot", "#3") in rows                   # the loss, its .g just set
    assert [look for look, name in rows if look.startswith("orange")] == ["orange hot"]


def test_leaves_on_the_same_use_share_one_phrase():
    a, b = (torch.tensor(v, requires_grad=True) for v in (1.0, 3.0))
    tape = Tape()
    top = add(tape, add(tape, a, b), add(tape, a, b))
    ran = node_order(top)
    with watch_tape(tape) as run:
        tape.backward(top)
    caps = tape_story(run, ran, {"a": a, "b": b}).captions
    assert caps[1] == "Forward, on the tape: #1 = add(a, b) = 4; 2nd use of a and b"


def test_a_leaf_that_needs_no_grad_is_said_to_get_nothing():
    a = torch.tensor(1.0, requires_grad=True)
    x = torch.tensor(2.0)
    tape = Tape()
    top = relu(tape, add(tape, a, x))
    ran = node_order(top)
    with watch_tape(tape) as run:
        tape.backward(top)
    story = tape_story(run, ran, {"a": a, "x": x})
    assert "x does not require grad: autograd skips it" in story.frames[-1][0]


def test_same_run_same_bytes():
    pages = []
    for _ in range(2):
        _, run, ran, names = _run()
        pages.append(tape_story(run, ran, names)._repr_html_())
    assert pages[0] == pages[1]


def test_bad_input_gets_a_sentence():
    with pytest.raises(TypeError, match="watch_tape needs a tape"):
        with watch_tape([1, 2]):
            pass
    with pytest.raises(ValueError, match="the tape is empty"):
        with watch_tape(Tape()):
            pass
    tape, run, ran, names = _run()
    with pytest.raises(ValueError, match="what watch_tape recorded"):
        tape_story(TapeRun(records=run.records), ran, names)
    with pytest.raises(ValueError, match="node_order"):
        tape_story(run, [], names)
    with pytest.raises(TypeError, match=r"names\['a'\] is a list"):
        tape_story(run, ran, {"a": [1.0], "b": names["b"]})
    with pytest.raises(ValueError, match=r"record #1 \(add\)'s input 0 is neither in names"):
        tape_story(run, ran, {"a": names["a"]})
    big, x = Tape(), torch.ones(2, requires_grad=True)
    y = add(big, x, x)
    with watch_tape(big) as run2:
        big.backward(y)
    with pytest.raises(ValueError, match=r"x has shape \(2,\): build the example"):
        tape_story(run2, node_order(y.sum()), {"x": x})


def test_the_tape_is_put_back_even_when_backward_raises():
    tape, top, _ = _two_branches()

    def broken(t, g):
        raise RuntimeError("send failed")

    tape.send = broken
    with pytest.raises(RuntimeError, match="send failed"):
        with watch_tape(tape):
            tape.backward(top)
    assert tape.send is broken and type(tape.records) is list and len(tape.records) == 4
