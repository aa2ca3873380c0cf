"""Automatic mutants of a solution: the small mistakes a learner makes, one at a time.

`mutants(code)` parses a solution and yields `(label, mutated_code)` for every
place where one of the operators below applies. A label names the operator, the
line, and the code before and after ("line 3, `+=` -> `=`: x.g += g -> x.g = g"),
so that a mutant listed as equivalent keeps its name while the solution stays;
the same change at a second place of one line gets " (#2)".

Operators: `op=` -> `=` (and `+=` <-> `-=`); drop a term or a factor of a binary
operation; swap the operands of `-`, `/`, `//`, `@`, `**`; `+` <-> `-`, `*` <-> `/`;
drop a unary minus or a `not`; `is` <-> `==`, `is not` <-> `!=`, `<` <-> `<=`,
`>` <-> `>=`, `in` <-> `not in`; drop a transpose (`.t()`, `.T`, `.mT`,
`.transpose(...)`, `.permute(...)`); `sum` <->
`mean`; a method's in-place twin (`x.mul(y)` -> `x.mul_(y)`) and back; drop a
`.clone()`/`.detach()`/`.copy()`; drop a call's arguments (`sum(0)` -> `sum()`);
swap a call's first two arguments; `range(n)` -> `range(n - 1)`/`range(n + 1)`;
a number changed (`n` -> `n + 1`, `n - 1`; `x` -> `2 x`); a statement dropped.

Nothing is mutated in the calls of the checks themselves, in `print`, or in
strings.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

INPLACE = {"add", "sub", "mul", "div", "clamp", "clamp_min", "clamp_max", "sigmoid", "exp",
           "neg", "relu", "pow", "sign", "abs", "tanh", "t", "transpose", "squeeze",
           "unsqueeze", "copy", "zero", "fill", "masked_fill", "addmm", "mm"}
TRANSPOSES = {"t", "transpose", "permute"}
DROPPED_CALLS = {"clone", "detach", "copy", "contiguous"}


class _Skip(ast.NodeVisitor):
    """Collects the ids of nodes that must not be mutated."""

    def __init__(self):
        self.skip: set[int] = set()

    def _all(self, node):
        self.skip.update(id(n) for n in ast.walk(node))

    def visit_Call(self, node):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name.startswith("check_") or name == "print":
            self._all(node)
        self.generic_visit(node)

    def visit_JoinedStr(self, node):
        self._all(node)

    def visit_Expr(self, node):  # docstrings, and the statement calling the check
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            self._all(node)
        if isinstance(node.value, ast.Call):
            self.visit_Call(node.value)
            if id(node.value) in self.skip:
                self._all(node)
        self.generic_visit(node)


def _variants(node: ast.AST) -> Iterator[tuple[str, ast.AST | None]]:
    """(operator, replacement) pairs for one node; None replaces a statement by `pass`."""
    if isinstance(node, ast.AugAssign):
        yield "`op=` -> `=`", ast.Assign(targets=[node.target], value=node.value, lineno=0)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            other = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
            yield "`+=` <-> `-=`", ast.AugAssign(target=node.target, op=other, value=node.value)
    if isinstance(node, ast.BinOp):
        yield "drop the right operand", node.left
        yield "drop the left operand", node.right
        if isinstance(node.op, (ast.Sub, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv)):
            yield "swap operands", ast.BinOp(left=node.right, op=node.op, right=node.left)
        swaps = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
        if type(node.op) in swaps:
            yield "change the operator", ast.BinOp(left=node.left, op=swaps[type(node.op)](),
                                                   right=node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
        yield "drop a unary operator", node.operand
    if isinstance(node, ast.Compare):
        swaps = {ast.Is: ast.Eq, ast.Eq: ast.Is, ast.IsNot: ast.NotEq, ast.NotEq: ast.IsNot,
                 ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
                 ast.In: ast.NotIn, ast.NotIn: ast.In}
        for i, op in enumerate(node.ops):
            if type(op) in swaps:
                ops = list(node.ops)
                ops[i] = swaps[type(op)]()
                yield "change a comparison", ast.Compare(left=node.left, ops=ops,
                                                         comparators=node.comparators)
    if isinstance(node, ast.Attribute) and node.attr in {"T", "mT"}:
        yield "drop a transpose", node.value
    if isinstance(node, ast.Call):
        yield from _call_variants(node)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        v = node.value
        if isinstance(v, int):
            yield "change a number", ast.Constant(v + 1)
            yield "change a number", ast.Constant(v - 1)
        else:
            yield "change a number", ast.Constant(2 * v if v else 1.0)
    if isinstance(node, ast.stmt) and not isinstance(
            node, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Pass)):
        yield "drop a statement", None


def _call_variants(node: ast.Call) -> Iterator[tuple[str, ast.AST]]:
    f = node.func
    if isinstance(f, ast.Attribute):
        if f.attr in TRANSPOSES:
            yield "drop a transpose", f.value
        if f.attr in DROPPED_CALLS:
            yield f"drop .{f.attr}()", f.value
        for a, b in (("sum", "mean"), ("mean", "sum")):
            if f.attr == a:
                yield f"`{a}` -> `{b}`", _with_attr(node, b)
        if f.attr in INPLACE:
            yield "in-place twin", _with_attr(node, f.attr + "_")
        if f.attr.endswith("_") and f.attr[:-1] in INPLACE:
            yield "out-of-place twin", _with_attr(node, f.attr[:-1])
    if isinstance(f, ast.Name) and f.id == "range" and node.args:
        for op, label in ((ast.Sub(), "range(n - 1)"), (ast.Add(), "range(n + 1)")):
            args = list(node.args)
            args[-1] = ast.BinOp(left=args[-1], op=op, right=ast.Constant(1))
            yield f"off by one: {label}", ast.Call(func=f, args=args, keywords=node.keywords)
    if node.args or node.keywords:
        yield "drop the arguments", ast.Call(func=f, args=[], keywords=[])
    if len(node.args) >= 2:
        args = [node.args[1], node.args[0], *node.args[2:]]
        yield "swap two arguments", ast.Call(func=f, args=args, keywords=node.keywords)


def _with_attr(node: ast.Call, attr: str) -> ast.Call:
    f = node.func
    return ast.Call(func=ast.Attribute(value=f.value, attr=attr, ctx=ast.Load()),
                    args=node.args, keywords=node.keywords)


class _Replace(ast.NodeTransformer):
    def __init__(self, target: int, replacement):
        self.target, self.replacement, self.index = target, replacement, -1

    def visit(self, node):
        self.index += 1
        if self.index == self.target:
            if self.replacement is None:
                return ast.Pass()
            return self.replacement
        return super().visit(node)


def mutants(code: str) -> Iterator[tuple[str, str]]:
    """(label, code) for every single-point mutant of `code`, in source order."""
    tree = ast.parse(code)
    skipper = _Skip()
    skipper.visit(tree)
    nodes = list(_walk(tree))
    seen = {ast.unparse(tree)}
    labels: dict[str, int] = {}  # the same change at two places of a line: "(#2)"
    for index, node in enumerate(nodes):
        if id(node) in skipper.skip:
            continue
        for operator, replacement in _variants(node):
            fresh = ast.parse(code)
            new = _Replace(index, copy.deepcopy(replacement)).visit(fresh)
            ast.fix_missing_locations(new)
            try:
                text = ast.unparse(new)
                compile(text, "<mutant>", "exec")
            except (SyntaxError, ValueError, TypeError):
                continue
            if text in seen:
                continue
            seen.add(text)
            before = ast.unparse(node).split("\n")[0]
            after = "pass" if replacement is None else ast.unparse(replacement).split("\n")[0]
            label = f"line {node.lineno}, {operator}: {before} -> {after}"
            labels[label] = labels.get(label, 0) + 1
            yield label + (f" (#{labels[label]})" if labels[label] > 1 else ""), text


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """Nodes in the order `_Replace` visits them (depth first, source order)."""
    yield tree
    for child in ast.iter_child_nodes(tree):
        yield from _walk(child)
