import matplotlib.pyplot as plt

from helpers.plots import log_log_axes


def test_log_log_axes_plain_labels():
    fig, ax = plt.subplots()
    ax.plot([16, 64, 256, 1024], [0.1, 1, 10, 100])
    assert log_log_axes(ax, xticks=[16, 64, 256, 1024], xlabel="N", title="t") is ax
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert ax.get_xlabel() == "N" and ax.get_title() == "t"
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["16", "64", "256", "1024"]
    assert ax.yaxis.get_major_formatter()(0.1, 0) == "0.1"
