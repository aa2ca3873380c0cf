"""Compare our gradients with reference ones, one row per tensor, and assert.

    cmp = compare(grads_of(params, "g"), grads_of(params_t, "grad"))
    cmp.check()        # raises AssertionError naming every tensor that differs

A `GradComparison` shows as a text table (``print``) and as an HTML table
(the last line of a notebook cell). Both show only what any CPU reproduces:
whether each tensor matches, its tolerance, and the size of a real difference;
the rounding-level digits of a match stay in the rows (`cmp["w1"].max_abs_diff`).

Two tensors `a` (ours) and `b` (the reference) match when every entry has
``|a - b| <= atol + rtol * |b|``. By default `rtol` comes from the less precise
dtype of the pair and ``atol = rtol * max|b|`` (at least a small floor): the
tolerance follows the tensor's own scale, so a gradient whose entries are all
around 1e-4 is not waved through by an absolute 1e-5.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

import torch

# (rtol, atol floor) by the less precise dtype of a pair.
TOLERANCES = {
    torch.float64: (1e-7, 1e-9),
    torch.float32: (1e-5, 1e-8),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1e-2, 1e-5),
}


def grads_of(tensors: Mapping[str, torch.Tensor], attr: str = "g") -> dict[str, torch.Tensor]:
    """Collect ``tensor.<attr>`` for every named tensor: ``{"w1": w1.g, ...}``.

    `attr` is ``"g"`` for our hand-written gradients, ``"grad"`` for autograd's.
    Raises a clear error naming the tensor when it is not a tensor, has no such
    attribute yet, or the attribute is ``None``.
    """
    if not isinstance(tensors, Mapping) or not tensors:
        raise ValueError("grads_of needs a non-empty dict of named tensors, e.g. {'w1': w1}")
    out = {}
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} is a {type(t).__name__}, not a tensor")
        if attr == "grad" and not t.requires_grad:
            raise ValueError(
                f"{name} does not require grad, so autograd gives it no .grad; "
                f"call {name}.requires_grad_() before the forward pass"
            )
        if attr == "grad" and not t.is_leaf and not t.retains_grad:
            raise ValueError(
                f"{name} is not a leaf tensor, so autograd keeps no {name}.grad; "
                f"call {name}.retain_grad() before backward"
            )
        if not hasattr(t, attr):
            raise AttributeError(
                f"{name} has no .{attr} yet: nothing has set it (has backward run?)"
            )
        g = getattr(t, attr)
        if g is None:
            raise ValueError(f"{name}.{attr} is None (has backward run on it?)")
        if not isinstance(g, torch.Tensor):
            raise TypeError(f"{name}.{attr} is a {type(g).__name__}, not a tensor")
        out[name] = g
    return out


@dataclass(frozen=True)
class Row:
    """One tensor's comparison.

    `atol` and `rtol` are the tolerances this row was judged with. `rel_error`
    is ``max|a-b| / max(1e-8, max(|a|+|b|))``: the largest difference relative
    to the tensor's scale, so that entries near zero do not make it blow up
    (cs231n's check, taken over the whole tensor).
    """

    name: str
    shape: tuple[int, ...]
    close: bool
    max_abs_diff: float
    rel_error: float
    rtol: float
    atol: float


class GradComparison:
    """The result of `compare`: rows per tensor, printable, and assertable."""

    def __init__(self, rows: list[Row]):
        self.rows = rows
        self.exact = False      # set by check(exact=True): every row bit for bit

    @property
    def ok(self) -> bool:
        """True when every tensor is allclose."""
        return all(r.close for r in self.rows)

    @property
    def failures(self) -> list[str]:
        """Names of the tensors that are not allclose."""
        return [r.name for r in self.rows if not r.close]

    def __getitem__(self, name: str) -> Row:
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(f"no tensor named {name!r}; have {[r.name for r in self.rows]}")

    def check(self, exact: bool = False) -> GradComparison:
        """Raise `AssertionError` naming every tensor that differs; else return self.

        With ``exact=True`` every tensor must equal its reference bit for bit
        (max|a-b| is 0); the table then prints that 0, which only an asserted
        equality may show (a coincidental 0 on one CPU is rounding noise on another),
        and no tolerance column.
        """
        if not self.ok:
            raise AssertionError(f"gradients differ for {', '.join(self.failures)}:\n{self}")
        if exact:
            unequal = [r.name for r in self.rows if r.max_abs_diff != 0]
            if unequal:
                raise AssertionError(
                    f"gradients match but not bit for bit for {', '.join(unequal)}:\n{self}"
                )
            self.exact = True
        return self

    # -- display -----------------------------------------------------------
    # Only what every CPU and torch release reproduces is shown. For a matching
    # row, max|a-b| is rounding noise whose digits change with the CPU's kernels,
    # so the table says only that it is within tolerance; the number is still in
    # `row.max_abs_diff` for code that wants it. A real difference is shown with
    # two significant digits, which rounding noise cannot change.
    _HEADER = ("tensor", "shape", "allclose", "max|a-b|", "atol")
    WITHIN = "within tol"

    def _header(self) -> tuple[str, ...]:
        # An exact table has no tolerance to show: every difference is 0.
        return self._HEADER[:-1] if self.exact else self._HEADER

    def _cells(self) -> list[tuple[str, ...]]:
        return [
            (
                r.name,
                str(tuple(r.shape)),
                "yes" if r.close else "NO",
                ("0" if self.exact else self.WITHIN) if r.close else _num(r.max_abs_diff),
                _num(r.atol),
            )[: len(self._header())]
            for r in self.rows
        ]

    def _summary(self) -> str:
        n = len(self.rows)
        verdict = f"all {n} match" if self.ok else f"{len(self.failures)} of {n} differ"
        if self.exact:
            return f"all {n} equal, bit for bit"
        rtols = sorted({r.rtol for r in self.rows})
        rtol = ", ".join(f"{r:g}" for r in rtols)
        return f"{verdict} (|a-b| <= atol + rtol*|b|, rtol={rtol})"

    def __str__(self) -> str:
        cells = [self._header(), *self._cells()]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self._header()))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
        return "\n".join([*lines, self._summary()])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self._header())
        body = "".join(
            ("<tr>" if r.close else '<tr style="color: #b00020; font-weight: bold">')
            + "".join(f"<td>{html.escape(c)}</td>" for c in row)
            + "</tr>"
            for r, row in zip(self.rows, self._cells())
        )
        return (
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            f"<p>{html.escape(self._summary())}</p>"
        )


def _num(x: float) -> str:
    return f"{x:.1e}"


def _checked(name: str, label: str, t: object) -> torch.Tensor:
    if t is None:
        raise ValueError(f"{name}: the {label} gradient is None (has backward run?)")
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name}: the {label} gradient is a {type(t).__name__}, not a tensor")
    if not t.is_floating_point():
        raise TypeError(
            f"{name}: the {label} gradient is {t.dtype}; gradients must be real floating point"
        )
    return t


def compare(
    ours: Mapping[str, torch.Tensor],
    ref: Mapping[str, torch.Tensor],
    *,
    rtol: float | None = None,
    atol: float | None = None,
) -> GradComparison:
    """Compare two dicts of gradients with the same names, tensor by tensor.

    `ours` and `ref` map names to real floating-point gradient tensors of equal
    shapes. Dtypes may differ: both are compared in float64, with the `rtol` of
    the less precise one (float32: 1e-5, float64: 1e-7) and, unless `atol` is
    given, ``atol = rtol * max|ref|`` with a floor (float32: 1e-8, float64:
    1e-9). Raises a clear error naming the tensor for a missing or extra name, a
    non-tensor, ``None`` or non-float value, a shape mismatch, or a tensor
    compared with itself (a check that cannot fail).
    """
    for label, d in (("ours", ours), ("ref", ref)):
        if not isinstance(d, Mapping):
            raise TypeError(f"{label} must be a dict of name -> tensor, got {type(d).__name__}")
    if not ours or not ref:
        raise ValueError("nothing to compare: both dicts need at least one tensor")
    missing, extra = [k for k in ours if k not in ref], [k for k in ref if k not in ours]
    if missing or extra:
        raise ValueError(f"names differ: only in ours {missing}, only in ref {extra}")

    rows = []
    for name in ours:
        a, b = _checked(name, "ours", ours[name]), _checked(name, "ref", ref[name])
        if a.shape != b.shape:
            raise ValueError(
                f"{name}: shapes differ, ours {tuple(a.shape)} vs ref {tuple(b.shape)}"
            )
        if a is b or (a.numel() and a.data_ptr() == b.data_ptr() and a.stride() == b.stride()):
            raise ValueError(f"{name}: ours and ref are the same tensor; that check cannot fail")
        r_def, floor = max(
            (TOLERANCES.get(t.dtype, TOLERANCES[torch.float32]) for t in (a, b)),
            key=lambda tol: tol[0],
        )
        a64, b64 = a.detach().double(), b.detach().double()
        r = r_def if rtol is None else rtol
        scale_b = float(b64.abs().max()) if b64.numel() else 0.0
        at = max(floor, r * scale_b) if atol is None else atol
        diff = (a64 - b64).abs()
        scale = float((a64.abs() + b64.abs()).max()) if diff.numel() else 0.0
        rows.append(
            Row(
                name=name,
                shape=tuple(a.shape),
                close=bool(torch.allclose(a64, b64, rtol=r, atol=at)),
                max_abs_diff=float(diff.max()) if diff.numel() else 0.0,
                rel_error=(float(diff.max()) / max(1e-8, scale)) if diff.numel() else 0.0,
                rtol=r,
                atol=at,
            )
        )
    return GradComparison(rows)
