"""helpers.stories.objects: lesson 8's layers recorded and drawn, object by object."""

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


class Mse:
    def __call__(self, inp, targ):
        self.inp, self.targ = inp, targ
        self.out = (inp.squeeze(-1) - targ).pow(2).mean()
        return self.out

    def backward(self):
        self.inp.g = 2. * (self.inp.squeeze(-1) - self.targ).unsqueeze(-1) / self.targ.shape[0]


def _run():
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(4, 3, generator=g), torch.randn(4, generator=g)
    w, b = torch.randn(3, 1, generator=g), torch.zeros(1)
    lin, mse = Lin(w, b), Mse()
    with watch_layers(Lin, Mse) as events:
        mse(lin(x), y)
        mse.backward()
        lin.backward()
    return events, lin, mse, dict(x=x, y=y, w=w, b=b)


def test_records_calls_and_backwards_in_order_and_restores_the_classes(capsys):
    original = Lin.__call__
    events, lin, mse, _ = _run()
    assert Lin.__call__ is original and "backward" in Lin.__dict__
    assert [(e.kind, type(e.layer).__name__) for e in events] == [
        ("call", "Lin"), ("call", "Mse"), ("backward", "Mse"), ("backward", "Lin")]
    assert events[0].out is lin.out and events[1].args[0] is lin.out
    assert events[0].printed == "out.g dne yet\n" and capsys.readouterr().out == ""
    assert events[2].wrote == [lin.out] and events[2].read is None   # loss had no .g
    assert events[3].read is lin.out and {id(t) for t in events[3].wrote} == {
        id(lin.inp), id(lin.w), id(lin.b)}


def test_story_has_a_frame_per_event_and_names_what_happened():
    events, *_, names = _run()
    story = layer_story(events, names=names)
    assert len(story) == 1 + len(events)
    caps = story.captions
    assert caps[1].startswith("lin(x) stores x as inp, makes a new T1 as out")
    assert 'prints "out.g dne yet"' in caps[1] and "T1 has no .g yet" in caps[1]
    assert caps[3] == "mse.backward() sets .g on inp (T1)"
    assert caps[4].startswith("lin.backward() reads out.g, on T1; sets .g on inp (x)")
    assert 'data-stepper="5"' in story._repr_html_()
    assert "out.g: AttributeError" in story.frames[1][0]


def test_bad_input_gets_a_sentence():
    with pytest.raises(TypeError, match="layer classes"):
        with watch_layers("Lin"):
            pass
    with pytest.raises(ValueError, match="list that watch_layers recorded"):
        layer_story([])
    events, *_ = _run()
    with pytest.raises(TypeError, match=r"names\['x'\] is a list"):
        layer_story(events, names={"x": [1]})
    assert isinstance(events[0], Event)
