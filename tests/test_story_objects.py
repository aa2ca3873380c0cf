"""helpers.stories.objects: lesson 8's layers recorded and drawn, object by object."""

import re

import pytest
import torch

from helpers.stories.objects import Event, layer_story, watch_layers


class Lin:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, inp):
        self.inp = inp
        self.out = inp @ self.w + self.b
        print("out.g dne yet")
        return self.out

    def backward(self):
        self.inp.g = self.out.g @ self.w.t()
        self.w.g = self.inp.t() @ self.out.g
        self.b.g = self.out.g.sum(0)


class Relu:
    def __call__(self, inp):
        self.inp = inp
        self.out = inp.clamp_min(0.)
        return self.out

    def backward(self):
        self.inp.g = (self.inp > 0).float() * self.out.g


class Mse:
    def __call__(self, inp, targ):
        self.inp, self.targ = inp, targ
        self.out = (inp.squeeze(-1) - targ).pow(2).mean()
        return self.out

    def backward(self):
        self.inp.g = 2. * (self.inp.squeeze(-1) - self.targ).unsqueeze(-1) / self.targ.shape[0]


def _tensors(seed=0):
    g = torch.Generator().manual_seed(seed)
    return dict(x=torch.randn(4, 3, generator=g), y=torch.randn(4, generator=g),
                w1=torch.randn(3, 5, generator=g), b1=torch.zeros(5),
                w2=torch.randn(5, 1, generator=g), b2=torch.zeros(1))


def _run():
    """Lin -> Mse: the smallest chain with a loss."""
    t = _tensors()
    lin, mse = Lin(t["w2"][:3], t["b2"]), Mse()
    with watch_layers(Lin, Mse) as events:
        mse(lin(t["x"]), t["y"])
        mse.backward()
        lin.backward()
    return events, lin, mse, dict(x=t["x"], y=t["y"], w=lin.w, b=lin.b)


def _lesson(t, *, forward_before=False, backward_before=True):
    """Lesson 8's Lin -> Relu -> Lin -> Mse, a forward and a backward pass recorded."""
    lin1, relu, lin2, mse = Lin(t["w1"], t["b1"]), Relu(), Lin(t["w2"], t["b2"]), Mse()

    def forward():
        return mse(lin2(relu(lin1(t["x"]))), t["y"])

    if forward_before:                 # a pass before: its backward leaves .g behind
        forward()
        for layer in (mse, lin2, relu, lin1) if backward_before else ():
            layer.backward()
    with watch_layers(Lin, Relu, Mse) as events:
        forward()
        for layer in (mse, lin2, relu, lin1):
            layer.backward()
    return events


def test_records_calls_and_backwards_in_order_and_restores_the_classes(capsys):
    original = Lin.__call__
    events, lin, mse, _ = _run()
    assert Lin.__call__ is original and "backward" in Lin.__dict__
    assert [(e.kind, type(e.layer).__name__) for e in events] == [
        ("call", "Lin"), ("call", "Mse"), ("backward", "Mse"), ("backward", "Lin")]
    assert events[0].out is lin.out and events[1].args[0] is lin.out
    assert events[0].printed == "out.g dne yet\n" and capsys.readouterr().out == ""
    assert not events[0].had_g and not events[1].had_g          # nothing had a .g yet
    assert events[0].before is None and events[1].before is None  # first calls: no old out
    assert events[2].wrote == [lin.out] and events[2].read is None   # loss had no .g
    assert events[3].read is lin.out and {id(t) for t in events[3].wrote} == {
        id(lin.inp), id(lin.w), id(lin.b)}


def test_story_has_a_frame_per_event_and_names_what_happened():
    events, *_, names = _run()
    story = layer_story(events, names=names)
    assert len(story) == 1 + len(events) and story.title == "Lin \u2192 Mse: forward, then backward"
    caps = story.captions
    assert caps[0] == "Forward pass. The batch x goes in: one tensor object."
    assert caps[1] == ("lin(x) makes a new T1 as out: reading out.g here would raise "
                       "AttributeError (the print, hidden, says 'out.g dne yet')")  # its print
    assert caps[2] == "mse(T1, y) stores T1 as inp: lin.out and mse.inp name one object. " \
                      "Its out: a new T2"
    assert caps[3] == ("Backward pass. mse.backward() sets inp.g: .g on T1, the object lin "
                       "keeps as out")
    assert caps[4] == "lin.backward() reads out.g, T1's, set by mse. It sets .g on inp (x), " \
                      "w (w), b (b)"
    assert 'data-stepper="5"' in story._repr_html_()
    errors = [i for i, (svg, _) in enumerate(story.frames) if "AttributeError" in svg]
    assert errors == [1]                # the one call whose out the first backward writes


def test_the_lesson_chain_boxes_in_forward_order_then_g_where_the_next_backward_reads():
    t = _tensors()
    story = layer_story(_lesson(t), names=t)
    assert len(story) == 9
    caps = story.captions
    assert [c.removeprefix("Backward pass. ").split("(")[0].split(".")[0]
            for c in caps[1:]] == [
        "lin1", "relu", "lin2", "mse", "mse", "lin2", "relu", "lin1"]
    assert caps[3] == ("lin2(T2) makes a new T3 as out: reading out.g here would raise "
                       "AttributeError (the print, hidden, says 'out.g dne yet')")
    assert caps[5] == ("Backward pass. mse.backward() sets inp.g: .g on T3, the object lin2 "
                       "keeps as out")
    assert caps[6].endswith("It sets .g on inp (T2), w (w2), b (b2)")    # in forward order
    for reader, tensor, writer in [("lin2", "T3", "mse"), ("relu", "T2", "lin2"),
                                   ("lin1", "T1", "relu")]:
        said = f"{reader}.backward() reads out.g, {tensor}'s, set by {writer}."
        assert any(c.startswith(said) for c in caps), said
    # Boxes appear one a call, in forward order; then only .g changes.
    boxes = [len(re.findall(r">(?:x|T\d) [(s]", svg)) for svg, _ in story.frames]
    assert boxes == [1, 2, 3, 4, 5, 5, 5, 5, 5]
    no_g = [svg.count(">no .g<") for svg, _ in story.frames]
    assert no_g == [1, 2, 3, 4, 5, 4, 3, 2, 1]
    assert "left from an earlier pass" not in "".join(svg for svg, _ in story.frames)
    assert "previous forward" not in "".join(svg for svg, _ in story.frames)  # no old out
    # The red dashed arrow (the out.g a backward reads) has its legend line, where drawn.
    arrows = ["red dashed" in svg for svg, _ in story.frames]
    legend = ["red dashed arrow: the out.g this backward reads" in svg for svg, _ in story.frames]
    assert arrows == legend == [False] * 6 + [True] * 3


def test_arrow_labels_sit_clear_of_their_arrows_in_full_size_text():
    t = _tensors()
    svg = layer_story(_lesson(t), names=t).frames[-1][0]
    lines = [tuple(map(float, m)) for m in re.findall(
        r'<line class="edge[^"]*" x1="([\d.]+)" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"',
        svg)]
    labels = re.findall(r'<text class="label ([^"]*)" x="([\d.]+)" y="([\d.]+)"'
                        r'(?: text-anchor="(\w+)")?>(inp|out)</text>', svg)
    assert len(labels) == 8 and not any("small" in cls for cls, *_ in labels)
    for _, x, y, anchor, word in labels:
        x, y = float(x), float(y)
        left = {"end": x - 22, "middle": x - 11}.get(anchor, x)   # 13-unit text: ~22 wide
        for x1, y1, x2, y2 in lines:                # no arrow crosses the label's box
            for k in range(101):
                px, py = x1 + (x2 - x1) * k / 100, y1 + (y2 - y1) * k / 100
                inside = left - 1 < px < left + 23 and y - 11 < py < y + 4
                assert not inside, f"{word} at ({x}, {y}) crosses the line to ({x2}, {y2})"


def test_a_g_left_from_an_earlier_pass_is_drawn_as_such_until_replaced():
    t = _tensors()
    story = layer_story(_lesson(t, forward_before=True), names=t)
    first = story.frames[0][0]
    assert ">old .g<" in first and "dashed box: a .g left from an earlier pass" in first
    assert story.frames[1][0].count("w1 .g") == 1       # w1 shown with its old .g
    last = story.frames[-1][0]
    assert last.count(">old .g<") == 1                  # only the old out keeps its old .g
    assert ">old lin2.out (4, 1)<" in last and "w1 .g" in last


def test_the_old_out_of_the_asked_call_is_drawn_from_that_call_on_without_an_arrow():
    t = _tensors()
    events = _lesson(t, forward_before=True)
    asked = [e for e in events if e.kind == "call"][2]           # lin2, the question's call
    old = asked.before
    assert isinstance(old, torch.Tensor) and old is not asked.out and hasattr(old, "g")
    assert id(old) in asked.had_g                                # it had its .g then
    story = layer_story(events, names={**t, "out1": old})
    shown = [">out1 (4, 1)<" in svg for svg, _ in story.frames]
    assert shown == [False] * 3 + [True] * 6                     # from lin2's call on
    for svg, _ in story.frames[3:]:
        assert "lin2.out of the previous forward:" in svg and "no layer names it now" in svg
        box = re.search(r'<rect class="box ([^"]*)" x="236" y="([\d.]+)"[^>]*/><text[^>]*>'
                        r'out1 \(4, 1\)</text><text[^>]*>old \.g<', svg)
        assert box and "grey dashed" in box[1]                   # its .g, from an earlier pass
        arrows = re.findall(r'<line class="edge[^"]*" x1="[\d.]+" y1="[\d.]+" x2="([\d.]+)" '
                            r'y2="([\d.]+)"', svg)
        top = float(box[2])                                      # nothing points to its box
        assert not any(float(x) > 200 and top <= float(y) <= top + 40 for x, y in arrows)


def test_an_old_out_that_no_backward_reached_never_got_a_g():
    t = _tensors()                    # notebook 02: a forward pass, then one recorded
    events = _lesson(t, forward_before=True, backward_before=False)
    old = [e for e in events if e.kind == "call"][2].before
    assert isinstance(old, torch.Tensor) and not hasattr(old, "g")
    for svg, _ in layer_story(events, names=t).frames[3:]:
        assert re.search(r">old lin2\.out \(4, 1\)</text><text[^>]*>never got a \.g<", svg)
        assert "lin2.out of the previous forward:" in svg
    assert ">never got a .g<" not in layer_story(_lesson(t), names=t).frames[-1][0]


def test_legend_and_attribute_labels_are_full_size():
    t = _tensors()
    frames = [svg for svg, _ in layer_story(_lesson(t, forward_before=True), names=t).frames]
    for svg in frames:              # every label, headers and layer boxes too: 13 units
        assert "label" in svg and not re.search(r'class="label[^"]*small', svg)
    svg = frames[-1]
    for word in ("w", "b", "targ", "dashed box: a .g left from an earlier pass",
                 "red dashed arrow: the out.g this backward reads"):
        found = re.findall(rf'<text class="label ([^"]*)"[^>]*>{re.escape(word)}</text>', svg)
        assert found and not any("small" in cls for cls in found), word


def test_same_record_same_bytes():
    pages = []
    for _ in range(2):
        t = _tensors()
        pages.append(layer_story(_lesson(t), names=t)._repr_html_())
    assert pages[0] == pages[1]
    assert len(pages[0].encode()) < 100_000


def test_bad_input_gets_a_sentence():
    with pytest.raises(TypeError, match="layer classes.*got str"):
        with watch_layers("Lin"):
            pass
    with pytest.raises(TypeError, match="int needs a __call__ and a backward"):
        with watch_layers(int):
            pass
    with pytest.raises(ValueError, match="list that watch_layers recorded"):
        layer_story([])
    with pytest.raises(ValueError, match="list that watch_layers recorded"):
        layer_story(["call"])
    events, *_ = _run()
    with pytest.raises(TypeError, match=r"names\['x'\] is a list, not a tensor"):
        layer_story(events, names={"x": [1]})
    with pytest.raises(ValueError, match="needs a recorded forward pass"):
        layer_story([e for e in events if e.kind == "backward"])
    assert isinstance(events[0], Event)


def test_a_forward_and_its_backward_recorded_in_two_blocks_draw_as_one_record():
    pages = []
    for split in (False, True):
        t = _tensors()
        lin1, relu, lin2, mse = Lin(t["w1"], t["b1"]), Relu(), Lin(t["w2"], t["b2"]), Mse()
        with watch_layers(Lin, Relu, Mse) as events:
            mse(lin2(relu(lin1(t["x"]))), t["y"])
            if not split:
                for layer in (mse, lin2, relu, lin1):
                    layer.backward()
        with watch_layers(Lin, Relu, Mse) as more:
            if split:
                for layer in (mse, lin2, relu, lin1):
                    layer.backward()
        pages.append(layer_story(events + more, names=t)._repr_html_())
    assert pages[0] == pages[1]
