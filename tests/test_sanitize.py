"""The nbval sanitizers in tests/nbval_sanitize.cfg, run on real outputs.

Every rule hides part of an output from strict nbval, so each must do exactly
what its comment says: mask what changes from run to run, and nothing that the
notebooks teach.
"""

import configparser
import pathlib
import re

import torch

from helpers import compare

CFG = pathlib.Path(__file__).with_name("nbval_sanitize.cfg")


def _rules() -> list[tuple[str, str]]:
    parser = configparser.ConfigParser()
    parser.read(CFG)
    return [(parser[s]["regex"], parser[s]["replace"]) for s in parser.sections()]


def sanitize(text: str) -> str:
    for regex, replace in _rules():
        text = re.sub(regex, replace, text)
    return text


def _comparison(wrong: bool):
    g = torch.Generator().manual_seed(0)
    ours = {"w1": torch.randn(8, 16, generator=g), "b1": torch.randn(16, generator=g)}
    ref = {k: v * (1 + 1e-7) for k, v in ours.items()}
    if wrong:
        ref["b1"] = ref["b1"] * 1.5
    return compare(ours, ref)


def test_every_rule_is_documented_and_valid():
    rules = _rules()
    assert rules, "no sanitizer rules: drop --nbval-sanitize-with from pyproject.toml instead"
    lines = CFG.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("["):
            assert lines[i - 1].startswith("#"), f"{line}: say above it which outputs need it"
    for regex, _ in rules:
        re.compile(regex)


def test_comparison_tables_pass_through_unchanged():
    """The gradient tables are compared as they stand, text and HTML alike."""
    for wrong in (False, True):
        cmp = _comparison(wrong)
        for shown in (str(cmp), cmp._repr_html_()):
            assert sanitize(shown) == shown


def test_addresses_are_masked():
    assert sanitize("<function f at 0x7f3a1c2b4d60>") == "<function f at 0xADDRESS>"


def test_cell_labels_are_masked_but_not_their_line():
    shown = "  Cell In[12], line 5\n    h = torch.tanh(x_t + h @ W)"
    assert sanitize(shown) == "  Cell In[N], line 5\n    h = torch.tanh(x_t + h @ W)"


def test_numbers_that_teach_are_not_masked():
    for shown in ("loss 1.3916", "max|a-b| 3.1e-02", "used 0x in the graph", "id=12345678",
                  "In[3]: x"):
        assert sanitize(shown) == shown


def test_the_in_place_refusal_reads_the_same_on_every_release():
    """06 §2 shows torch's refusal; 2.9 and 2.13 word two parts of it differently."""
    head = ("one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.FloatTensor [3]], which is output 0 of ")
    tail = (", is at version 1; expected version 0 instead. Hint: enable anomaly detection "
            "to find the operation that failed to compute its gradient, with "
            "torch.autograd.set_detect_anomaly(True")
    old = head + "SigmoidBackward0" + tail + ")."                      # torch 2.9
    new = head + "Sigmoid" + tail + ", check_nan=False)."              # torch 2.13
    assert sanitize(old) == sanitize(new)
    assert sanitize(new.replace("[3]]", "[4]]")) != sanitize(new)     # the rest compared
    assert sanitize(new.replace("Sigmoid,", "Tanh,")) != sanitize(new)
