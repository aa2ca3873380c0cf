import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from helpers.plots import draw_layer_flow, log_log_axes


def _texts(ax):
    return [t.get_text() for t in ax.texts]


def test_draw_layer_flow_returns_one_axes_figure():
    fig = draw_layer_flow()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 1
    assert "which tensor each layer stores" in fig.axes[0].get_title()


def test_draw_layer_flow_draws_every_tensor_layer_and_g():
    texts = "\n".join(_texts(draw_layer_flow().axes[0]))
    for k in range(5):
        assert f"T{k}  " in texts                  # the five tensors T0..T4
    for k in range(4):
        assert f"T{k}.g" in texts                  # a .g box for all but the loss
    assert "T4.g" not in texts
    for name in ["Lin(w1, b1)", "Relu()", "Lin(w2, b2)", "Mse()"]:
        assert name in texts
    for step in range(1, 5):
        assert f"{step}: writes" in texts


def test_draw_layer_flow_patch_counts():
    patches = draw_layer_flow().axes[0].patches
    boxes = [p for p in patches if isinstance(p, FancyBboxPatch)]
    arrows = [p for p in patches if isinstance(p, FancyArrowPatch)]
    # boxes: 5 tensors + 4 .g + 4 layers + 3 parameter boxes (Relu has none)
    assert len(boxes) == 16
    # arrows: 2 forward per layer + 3 from parameters + 4 writes + 3 reads (Mse reads none)
    assert len(arrows) == 18
    assert len(patches) == len(boxes) + len(arrows)


def test_log_log_axes_plain_labels():
    fig, ax = plt.subplots()
    ax.plot([16, 64, 256, 1024], [0.1, 1, 10, 100])
    assert log_log_axes(ax, xticks=[16, 64, 256, 1024], xlabel="N", title="t") is ax
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert ax.get_xlabel() == "N" and ax.get_title() == "t"
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["16", "64", "256", "1024"]
    assert ax.yaxis.get_major_formatter()(0.1, 0) == "0.1"
