import pytest
import torch

from helpers import compare, grads_of


def _grads(dtype=torch.float32):
    g = torch.Generator().manual_seed(0)
    return {
        "w1": torch.randn(3, 4, generator=g, dtype=dtype),
        "b1": torch.randn(4, generator=g, dtype=dtype),
    }


def test_equal_gradients_match_exactly():
    ours = _grads()
    ref = {k: v.clone() for k, v in ours.items()}
    cmp = compare(ours, ref).check()
    assert cmp.ok and cmp.failures == []
    assert all(r.close and r.max_abs_diff == 0 for r in cmp.rows)
    assert cmp["w1"].shape == (3, 4)


def test_rounding_noise_is_close_but_not_exact():
    ours = _grads(torch.float64)
    ref = {k: v * (1 + 1e-9) for k, v in ours.items()}
    cmp = compare(ours, ref).check()
    assert cmp["w1"].max_abs_diff > 0 and cmp["w1"].close


def test_wrong_by_a_little_fails_and_names_only_that_tensor():
    ours = _grads()
    ref = {k: v.clone() for k, v in ours.items()}
    ref["b1"][2] += 1e-3
    cmp = compare(ours, ref)
    assert not cmp.ok and cmp.failures == ["b1"]
    assert cmp["b1"].max_abs_diff == pytest.approx(1e-3, rel=1e-3)
    with pytest.raises(AssertionError, match=r"differ for b1:"):
        cmp.check()


def test_relative_error_is_relative_to_the_tensor_scale():
    cmp = compare({"x": torch.tensor([1.0, 0.0])}, {"x": torch.tensor([3.0, 0.0])})
    # max|a-b| = 2, max(|a|+|b|) = 4; the 0-vs-0 entry gives no 0/0.
    assert cmp["x"].rel_error == pytest.approx(0.5)
    # A tiny entry that differs a little does not blow the relative error up.
    cmp = compare({"x": torch.tensor([100.0, 1e-6])}, {"x": torch.tensor([100.0, 2e-6])})
    assert cmp["x"].rel_error == pytest.approx(1e-6 / 200)
    zeros = compare({"x": torch.zeros(2)}, {"x": torch.zeros(2)})
    assert zeros["x"].rel_error == 0


def test_float32_against_float64_uses_float32_tolerance():
    exact64 = torch.linspace(-1, 1, 50, dtype=torch.float64)
    as32 = exact64.float() + 2e-7  # a float32-sized error
    assert compare({"w": as32}, {"w": exact64}).ok
    # The same error between two float64 tensors is a real difference.
    assert not compare({"w": as32.double()}, {"w": exact64}).ok


def test_explicit_tolerance_overrides_default():
    a, b = torch.zeros(3), torch.full((3,), 0.1)
    assert not compare({"a": a}, {"a": b}).ok
    assert compare({"a": a}, {"a": b}, atol=0.2).ok


def test_wrong_shape_names_the_tensor():
    with pytest.raises(ValueError, match=r"w1: shapes differ, ours \(4, 4\) vs ref \(4,\)"):
        compare({"w1": torch.zeros(4, 4)}, {"w1": torch.zeros(4)})


def test_none_or_non_tensor_gradient_names_the_tensor():
    with pytest.raises(ValueError, match="b2: the ref gradient is None"):
        compare({"b2": torch.zeros(1)}, {"b2": None})
    with pytest.raises(TypeError, match="w2: the ours gradient is a list"):
        compare({"w2": [1.0]}, {"w2": torch.zeros(1)})


def test_mismatched_or_empty_names():
    with pytest.raises(ValueError, match=r"only in ours \['b1'\], only in ref \['b9'\]"):
        compare({"w1": torch.zeros(1), "b1": torch.zeros(1)},
                {"w1": torch.zeros(1), "b9": torch.zeros(1)})
    with pytest.raises(ValueError, match="nothing to compare"):
        compare({}, {})
    with pytest.raises(TypeError, match="ours must be a dict"):
        compare([torch.zeros(1)], {"a": torch.zeros(1)})


def test_text_and_html_tables_list_every_tensor():
    ours = _grads()
    ref = {k: v.clone() for k, v in ours.items()}
    ref["w1"][0, 0] += 1.0
    cmp = compare(ours, ref)
    text, page = str(cmp), cmp._repr_html_()
    assert text.splitlines()[0].split() == ["tensor", "shape", "allclose", "max|a-b|", "atol"]
    assert "w1" in text and "b1" in text and "1 of 2 differ" in text
    assert text.splitlines()[1].split()[-2] == "1.0e+00"  # the real difference, shown
    assert "within tol" in text.splitlines()[2]  # b1 matches: no rounding digits
    assert page.count("<tr") == 3 and "<th>allclose</th>" in page
    assert page.count("color: #b00020") == 1  # the differing row stands out


def test_grads_of_reads_g_and_grad():
    w = torch.ones(2, requires_grad=True)
    (w * 3).sum().backward()
    w.g = torch.full((2,), 3.0)
    assert torch.equal(grads_of({"w": w}, "g")["w"], grads_of({"w": w}, "grad")["w"])


def test_grads_of_missing_g_names_the_tensor():
    with pytest.raises(AttributeError, match="w1 has no .g yet"):
        grads_of({"w1": torch.zeros(2)}, "g")


def test_grads_of_grad_none_before_backward():
    with pytest.raises(ValueError, match=r"w1.grad is None"):
        grads_of({"w1": torch.zeros(2, requires_grad=True)}, "grad")


def test_grads_of_grad_without_requires_grad():
    with pytest.raises(ValueError, match=r"w1 does not require grad.*requires_grad_\(\)"):
        grads_of({"w1": torch.zeros(2)}, "grad")


def test_grads_of_non_leaf_without_retain_grad():
    w = torch.ones(2, requires_grad=True)
    h = w * 2
    with pytest.raises(ValueError, match="h is not a leaf tensor.*retain_grad"):
        grads_of({"h": h}, "grad")


def test_grads_of_bad_containers():
    with pytest.raises(TypeError, match="x is a float, not a tensor"):
        grads_of({"x": 1.0})
    with pytest.raises(ValueError, match="non-empty dict"):
        grads_of({})


def test_tolerance_follows_the_tensor_scale():
    # Gradients around 1e-4: an absolute 1e-5 would accept a 10% error.
    small = torch.linspace(1e-4, 2e-4, 20)
    cmp = compare({"inp": small * 1.002}, {"inp": small})
    assert not cmp.ok
    assert cmp["inp"].atol == pytest.approx(1e-8)  # the float32 floor; 1e-5 * max|b| is less
    assert compare({"inp": small * (1 + 1e-7)}, {"inp": small}).ok


def test_atol_floor_for_all_zero_gradients():
    cmp = compare({"b": torch.full((3,), 1e-9)}, {"b": torch.zeros(3)})
    assert cmp.ok and cmp["b"].atol == pytest.approx(1e-8)


def test_comparing_a_tensor_with_itself_is_refused():
    w = torch.ones(3)
    with pytest.raises(ValueError, match="w1: ours and ref are the same tensor"):
        compare({"w1": w}, {"w1": w})
    with pytest.raises(ValueError, match="same tensor"):
        compare({"w1": w}, {"w1": w[:]})  # a view of the same memory


def test_non_float_gradients_are_refused():
    for bad in (torch.tensor([1 + 1j]), torch.tensor([True]), torch.tensor([1])):
        with pytest.raises(TypeError, match=f"z: the ref gradient is {bad.dtype}"):
            compare({"z": torch.zeros(1)}, {"z": bad})


def test_nan_never_matches():
    cmp = compare({"w": torch.tensor([float("nan")])}, {"w": torch.tensor([0.0])})
    assert not cmp.ok and cmp.failures == ["w"]


def test_requires_grad_and_non_contiguous_inputs():
    a = torch.arange(6.0).reshape(2, 3).t().requires_grad_()
    b = torch.arange(6.0).reshape(2, 3).t().contiguous()
    assert not a.is_contiguous()
    cmp = compare({"w": a}, {"w": b}).check()
    assert cmp["w"].max_abs_diff == 0


def test_per_row_tolerance_with_mixed_dtypes():
    cmp = compare(
        {"a": torch.ones(2), "b": torch.ones(2, dtype=torch.float64)},
        {"a": torch.ones(2, dtype=torch.float64), "b": torch.ones(2, dtype=torch.float64) * 2},
    )
    assert cmp["a"].rtol == 1e-5 and cmp["b"].rtol == 1e-7
    assert cmp.failures == ["b"]


def test_tables_do_not_show_rounding_noise():
    """Another CPU's kernels change the last bits of a gradient, never the table."""
    ours = _grads()
    ref = {k: v.clone() for k, v in ours.items()}
    for noise in (0.0, 1e-7, -3e-7):  # exact, and two float32-sized perturbations
        shaken = {k: v * (1 + noise) for k, v in ref.items()}
        cmp = compare(ours, shaken).check()
        if noise == 0.0:
            text, page = str(cmp), cmp._repr_html_()
        assert (str(cmp), cmp._repr_html_()) == (text, page)
    assert "exact" not in text and "within tol" in text.splitlines()[1]


def test_check_exact_prints_zero_only_when_asserted():
    ours = _grads()
    same = {k: v.clone() for k, v in ours.items()}
    plain = compare(ours, same)
    assert "within tol" in str(plain) and " 0 " not in str(plain)  # not asserted yet
    cmp = compare(ours, same).check(exact=True)
    lines = str(cmp).splitlines()
    assert lines[0].split() == ["tensor", "shape", "allclose", "max|a-b|"]   # no atol
    assert all(line.split()[-1] == "0" for line in lines[1:-1])
    assert lines[-1] == f"all {len(ours)} equal, bit for bit"
    assert "<td>0</td>" in cmp._repr_html_()
    near = {k: v.clone() for k, v in ours.items()}
    near["b1"][0] = torch.nextafter(near["b1"][0], torch.tensor(9.0))  # 1 ulp
    with pytest.raises(AssertionError, match="not bit for bit for b1"):
        compare(ours, near).check(exact=True)
    assert compare(ours, near).check().ok      # the tolerant check still passes
