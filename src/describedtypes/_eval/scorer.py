"""A type's scorer: functions compiled once from its node tree that count, per JSON path,
what a prediction got right, wrong, missed and invented.

Every part of the tree becomes two functions over a (gold, prediction) pair:
``score(g, p)`` adds to the counts and returns the true positives it found, ``agree(g,
p)`` only returns them (how well two list items go together, for the pairing). A side
that does not have a value passes ``EMPTY``.
"""

from __future__ import annotations

import enum
import math
import operator
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._base.generated import run_source
from .._codec.union_options import deep_matcher, matcher, shared_containers
from .._codec.values import constructor_of
from .._types import inspector as ni
from .._types import kinds as mt
from .._types.nodes import scalar_of
from .assign import MAX_ASSIGNED, best_pairs
from .normalize import EMPTY, Normalize, is_empty, leaf_key, same_value

__all__ = ["Counts", "Scorer", "item_paths"]

Fn = Callable[[Any, Any], int]
#: What pairing two lists gives: the pairs, and the items of each side left alone.
Paired = tuple[list[tuple[Any, Any]], list[Any], list[Any]]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def join(path: str, key: str) -> str:
    """``$.name``, or ``$['odd key']`` for a key that is not a plain name."""
    if _NAME.match(key):
        return f"{path}.{key}"
    quoted = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{quoted}']"


class Counts:
    """Strictly private: the rows (a path each) and their counts, appended to as the
    scorer is compiled; the compiled functions hold these very lists."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.paths: list[str] = []
        self.kinds: list[str] = []
        self.tp: list[int] = []
        self.fp: list[int] = []
        self.fn: list[int] = []
        self.empty: list[int] = []
        self.filled: list[int] = []

    def add(self, path: str, kind: str) -> int:
        found = self.index.get(path)
        if found is not None:
            if kind == "items":
                self.kinds[found] = kind
            return found
        self.index[path] = len(self.paths)
        self.paths.append(path)
        self.kinds.append(kind)
        for counts in (self.tp, self.fp, self.fn, self.empty, self.filled):
            counts.append(0)
        return self.index[path]


def _zero(g: Any, p: Any) -> int:
    return 0


def _leafy(node: ni.Node) -> bool:
    """A node whose values are compared whole (a scalar, an enum, ``Any``, ...)."""
    if isinstance(node, (ni.ScalarNode, ni.EnumNode, ni.LiteralNode, ni.AnyNode, ni.NullNode)):
        return True
    if isinstance(node, ni.ArrayNode) and issubclass(node.container, enum.Flag):
        return True
    if isinstance(node, ni.UnionNode):
        return all(_leafy(o) for o in node.options)
    return False


def _without_null(node: ni.Node) -> ni.Node:
    if isinstance(node, ni.UnionNode) and node.nullable:
        return node.without_null()
    return node


def item_paths(node: ni.Node, path: str = "$") -> dict[str, ni.Node]:
    """The list-item paths (``$.items[]``) of a type and their item nodes, for messages
    and for checking ``match``; a recursive class is followed once."""
    found: dict[str, ni.Node] = {}
    seen: set[ni.ObjectNode] = set()

    def walk(node: ni.Node, path: str) -> None:
        node = _without_null(node)
        if isinstance(node, ni.UseNode):
            node = node.target
        if isinstance(node, ni.ObjectNode):
            if node in seen:
                return
            seen.add(node)
            for f in node.fields:
                walk(f.node, join(path, f.key))
            seen.discard(node)
        elif isinstance(node, ni.ArrayNode) and not _leafy(node):
            if not _leafy(node.items):
                found[path + "[]"] = node.items
            walk(node.items, path + "[]")
        elif isinstance(node, ni.TupleNode):
            for i, item in enumerate(node.items):
                walk(item, f"{path}[{i}]")
        elif isinstance(node, ni.DictNode):
            walk(node.values, path + ".*")
        elif isinstance(node, ni.UnionNode):
            for option in node.options:
                walk(option, path)

    walk(node, path)
    return found


class Scorer:
    """Strictly private: the compiled scorer of one type under one normalisation.

    Attributes:
        counts: The rows and their counts.
        score: ``score(gold, prediction)`` for one record.
        notes: Per item path, how many lists were too long for the best pairing.
    """

    def __init__(
        self, node: ni.Node, normalize: Normalize, match: Mapping[str, tuple[str, ...]]
    ) -> None:
        self.counts = Counts()
        self.same = same_value(normalize)
        self.text = normalize.text()
        self.key = leaf_key(normalize)
        self.rel_tol = normalize.rel_tol
        self.abs_tol = normalize.abs_tol
        self.match = dict(match)
        self.notes: Counter[str] = Counter()
        self._open: dict[ni.ObjectNode, list[tuple[Fn, Fn]]] = {}
        self._fields_of: dict[Fn, dict[str, tuple[Callable[[Any], Any], Fn, bool]]] = {}
        self._items = item_paths(node)
        self._check_match()
        self.score, self.agree = self.compile(node, "$")

    # -- checking match= ---------------------------------------------------------------

    def _check_match(self) -> None:
        for path, keys in self.match.items():
            item = self._items.get(path)
            if item is None:
                known = ", ".join(self._items) or "none: the type has no list of objects"
                msg = (
                    f"match: {path!r} is not the path of a list of objects in the type; "
                    f"its lists of objects are {known}"
                )
                raise ValueError(msg)
            obj = ni.object_of(_without_null(item))
            if obj is None:
                msg = f"match: the items at {path} are not objects, so they have no key fields"
                raise ValueError(msg)
            for key in keys:
                try:
                    field = obj.field(key)
                except KeyError:
                    have = ", ".join(f.key for f in obj.fields)
                    msg = f"match: {path} items have no field {key!r}; their fields are {have}"
                    raise ValueError(msg) from None
                if not _leafy(field.node) or isinstance(
                    _without_null(field.node), ni.AnyNode
                ):
                    msg = (
                        f"match: {join(path, key)} is not a plain value (a string, number, "
                        "date, enum, ...), so it cannot key the items"
                    )
                    raise ValueError(msg)

    # -- compiling ---------------------------------------------------------------------

    def compile(self, node: ni.Node, path: str) -> tuple[Fn, Fn]:
        node = _without_null(node)
        if isinstance(node, ni.UseNode):
            node = node.target
        if isinstance(node, ni.NullNode):
            return _zero, _zero
        if _leafy(node):
            return self.leaf(
                path, whole=isinstance(node, (ni.AnyNode, ni.UnionNode)), node=node
            )
        if isinstance(node, ni.ObjectNode):
            return self.object(node, path)
        if isinstance(node, ni.ArrayNode):
            if _leafy(node.items):
                return self.values(path + "[]")
            return self.items(node.items, path + "[]")
        if isinstance(node, ni.TupleNode):
            return self.fixed([self.compile(n, f"{path}[{i}]") for i, n in enumerate(node.items)])
        if isinstance(node, ni.DictNode):
            return self.mapping(self.compile(node.values, path + ".*"))
        if isinstance(node, ni.UnionNode):
            return self.union(node, path)
        msg = f"unknown node {node!r}"
        raise AssertionError(msg)

    def leaf(self, path: str, *, whole: bool, node: ni.Node | None = None) -> tuple[Fn, Fn]:
        """A value compared whole; ``whole`` for ``Any`` values and unions, where ``[]``
        and ``{}`` are empty too. A scalar ``node`` picks a comparison for its kind."""
        i = self.counts.add(path, "value")
        tp, fp, fn, empty, filled = (
            self.counts.tp, self.counts.fp, self.counts.fn, self.counts.empty,
            self.counts.filled,
        )
        same = self._comparison(node)
        if whole:
            blank = is_empty

            def score(g: Any, p: Any) -> int:
                if blank(g):
                    empty[i] += 1
                    if not blank(p):
                        fp[i] += 1
                        filled[i] += 1
                    return 0
                if blank(p):
                    fn[i] += 1
                    return 0
                if same(g, p):
                    tp[i] += 1
                    return 1
                fp[i] += 1
                fn[i] += 1
                return 0

            def agree(g: Any, p: Any) -> int:
                if blank(g) or blank(p):
                    return 0
                return 1 if same(g, p) else 0

            return score, agree

        def score_value(g: Any, p: Any) -> int:
            if g is None or g is EMPTY:
                empty[i] += 1
                if not (p is None or p is EMPTY):
                    fp[i] += 1
                    filled[i] += 1
                return 0
            if p is None or p is EMPTY:
                fn[i] += 1
                return 0
            # Most values are right: equal values of one class need no normalising.
            if (g.__class__ is p.__class__ and g == p) or same(g, p):
                tp[i] += 1
                return 1
            fp[i] += 1
            fn[i] += 1
            return 0

        def agree_value(g: Any, p: Any) -> int:
            if g is None or g is EMPTY or p is None or p is EMPTY:
                return 0
            return 1 if (g.__class__ is p.__class__ and g == p) or same(g, p) else 0

        return score_value, agree_value

    def _comparison(self, node: ni.Node | None) -> Callable[[Any, Any], bool]:
        """How a scalar's values compare, told by its row of the scalar table: plain
        text normalised, a JSON number (float) within the tolerance, anything else by
        the general rule."""
        row = None if node is None else scalar_of(node)
        if row is None:
            return self.same
        if row.json_type == "string" and row.read is None and not row.number:
            text = self.text

            def same_text(a: Any, b: Any) -> bool:
                return isinstance(b, str) and text(a) == text(b)

            return same_text
        if row.json_type == "number":
            rel, absolute = self.rel_tol, self.abs_tol

            def same_number(a: Any, b: Any) -> bool:
                if isinstance(a, bool) or isinstance(b, bool):
                    return False
                return isinstance(a, (int, float)) and isinstance(b, (int, float)) and (
                    math.isclose(a, b, rel_tol=rel, abs_tol=absolute)
                )

            return same_number
        return self.same

    def object(self, node: ni.ObjectNode, path: str) -> tuple[Fn, Fn]:
        holder = self._open.get(node)
        if holder is not None:
            return _deeper(holder)  # recursion: counted at the outer occurrence's paths
        holder = []
        self._open[node] = holder
        typed_dict = mt.is_typeddict(constructor_of(node.python_type))
        parts = [(f.name, *self.compile(f.node, join(path, f.key))) for f in node.fields]
        del self._open[node]
        score, agree = _object_functions(parts, typed_dict, node.name)
        holder.append((score, agree))
        # For a union of classes: each field's reader and scorer, by JSON key.
        self._fields_of[score] = {
            f.key: (_item_getter(f.name) if typed_dict else operator.attrgetter(f.name),
                    part[1], _leafy(_without_null(f.node)))
            for f, part in zip(node.fields, parts, strict=True)
        }
        return score, agree

    def values(self, path: str) -> tuple[Fn, Fn]:
        """A list of plain values: items are matched when equal (after normalisation)."""
        i = self.counts.add(path, "value")
        tp, fp, fn, empty, filled = (
            self.counts.tp, self.counts.fp, self.counts.fn, self.counts.empty,
            self.counts.filled,
        )
        matched = self._matched_values(path)

        def score(g: Any, p: Any) -> int:
            gl = _present(g)
            pl = _present(p)
            if not gl:
                empty[i] += 1
                if pl:
                    filled[i] += 1
                    fp[i] += len(pl)
                return 0
            if not pl:
                fn[i] += len(gl)
                return 0
            k = matched(gl, pl)
            tp[i] += k
            fp[i] += len(pl) - k
            fn[i] += len(gl) - k
            return k

        def agree(g: Any, p: Any) -> int:
            gl = _present(g)
            pl = _present(p)
            return matched(gl, pl) if gl and pl else 0

        return score, agree

    def _matched_values(self, path: str) -> Callable[[list[Any], list[Any]], int]:
        key, same = self.key, self.same
        rel, absolute = self.rel_tol, self.abs_tol
        notes = self.notes

        def matched(gl: list[Any], pl: list[Any]) -> int:
            if gl == pl:  # listed right, in the same order: nothing to match
                return len(gl)
            try:
                left = Counter(map(key, gl))
                right = Counter(map(key, pl))
            except TypeError:  # an unhashable value: compared pair by pair
                return _pairwise(gl, pl, same, notes, path)
            k = sum((left & right).values())
            if k == min(len(gl), len(pl)) or (rel == 0 and absolute == 0):
                return k
            # Floats within the tolerance: sorted, the nearest pairs first.
            a = sorted(_numbers(left - right))
            b = sorted(_numbers(right - left))
            x = y = 0
            while x < len(a) and y < len(b):
                if math.isclose(a[x], b[y], rel_tol=rel, abs_tol=absolute):
                    k += 1
                    x += 1
                    y += 1
                elif a[x] < b[y]:
                    x += 1
                else:
                    y += 1
            return k

        return matched

    def items(self, item: ni.Node, path: str) -> tuple[Fn, Fn]:
        """A list of objects (or lists, tuples, dicts): items paired by the best
        assignment, or by their key fields, then compared field by field."""
        i = self.counts.add(path, "items")
        tp, fp, fn, empty, filled = (
            self.counts.tp, self.counts.fp, self.counts.fn, self.counts.empty,
            self.counts.filled,
        )
        item_score, item_agree = self.compile(item, path)
        keys = self.match.get(path)
        pair = self._pairing(item, path, item_agree, keys)

        def score(g: Any, p: Any) -> int:
            gl = _present(g)
            pl = _present(p)
            if not gl:
                empty[i] += 1
                if pl:
                    filled[i] += 1
            pairs, lone_g, lone_p = pair(gl, pl)
            n = 0
            for a, b in pairs:
                n += item_score(a, b)
            for a in lone_g:
                item_score(a, EMPTY)
            for b in lone_p:
                item_score(EMPTY, b)
            tp[i] += len(pairs)
            fn[i] += len(lone_g)
            fp[i] += len(lone_p)
            return n

        def agree(g: Any, p: Any) -> int:
            gl = _present(g)
            pl = _present(p)
            if not gl or not pl:
                return 0
            return sum(item_agree(a, b) for a, b in pair(gl, pl)[0])

        return score, agree

    def _pairing(
        self, item: ni.Node, path: str, agree: Fn, keys: tuple[str, ...] | None
    ) -> Callable[[list[Any], list[Any]], Paired]:
        notes = self.notes

        def best(gl: list[Any], pl: list[Any]) -> Paired:
            if not gl or not pl:
                return [], gl, pl
            pairs: list[tuple[Any, Any]] = []
            rest_g: list[Any] = []
            rest_p: list[Any] = []
            # Items equal where they stand are paired first: the best assignment pairs
            # them too, and most lists a model gets right then cost nothing more.
            for a, b in zip(gl, pl):  # noqa: B905 - the longer list's tail is added below
                if a == b:
                    pairs.append((a, b))
                else:
                    rest_g.append(a)
                    rest_p.append(b)
            rest_g += gl[len(pl):]
            rest_p += pl[len(gl):]
            if not rest_g or not rest_p:
                return pairs, rest_g, rest_p
            if len(rest_g) <= MAX_ASSIGNED and len(rest_p) <= MAX_ASSIGNED:
                # Equal items elsewhere in the list (a reordered list) pair at once too.
                rest_g, rest_p = _pair_equal(rest_g, rest_p, pairs)
                if not rest_g or not rest_p:
                    return pairs, rest_g, rest_p
            used_g = [False] * len(rest_g)
            used_p = [False] * len(rest_p)
            if len(rest_g) <= MAX_ASSIGNED and len(rest_p) <= MAX_ASSIGNED:
                table = [[agree(a, b) for b in rest_p] for a in rest_g]
                chosen = best_pairs(table)
            else:
                notes[path] += 1  # too long for the best pairing: by position
                chosen = [(x, x) for x in range(min(len(rest_g), len(rest_p)))]
                table = None
            for x, y in chosen:
                if (table[x][y] if table is not None else agree(rest_g[x], rest_p[y])) > 0:
                    pairs.append((rest_g[x], rest_p[y]))
                    used_g[x] = used_p[y] = True
            lone_g = [a for a, used in zip(rest_g, used_g, strict=True) if not used]
            lone_p = [b for b, used in zip(rest_p, used_p, strict=True) if not used]
            return pairs, lone_g, lone_p

        if not keys:
            return best
        key_of = self._item_key(item, keys)

        def by_key(gl: list[Any], pl: list[Any]) -> Paired:
            groups: dict[Any, tuple[list[Any], list[Any]]] = {}
            lone_g: list[Any] = []
            lone_p: list[Any] = []
            for a in gl:
                k = key_of(a)
                if k is None:
                    lone_g.append(a)
                else:
                    groups.setdefault(k, ([], []))[0].append(a)
            for b in pl:
                k = key_of(b)
                if k is None:
                    lone_p.append(b)
                else:
                    groups.setdefault(k, ([], []))[1].append(b)
            pairs: list[tuple[Any, Any]] = []
            for left, right in groups.values():
                if len(left) == 1 and len(right) == 1:
                    pairs.append((left[0], right[0]))
                    continue
                # A key repeated on one side: its items paired by the best assignment.
                got, rest_g, rest_p = best(left, right)
                pairs += got
                lone_g += rest_g
                lone_p += rest_p
            return pairs, lone_g, lone_p

        return by_key

    def _item_key(self, item: ni.Node, keys: tuple[str, ...]) -> Callable[[Any], Any]:
        obj = ni.object_of(_without_null(item))
        assert obj is not None  # checked by _check_match
        typed_dict = mt.is_typeddict(constructor_of(obj.python_type))
        names = [obj.field(k).name for k in keys]
        getters = [_item_getter(n) if typed_dict else operator.attrgetter(n) for n in names]
        key = self.key

        def key_of(value: Any) -> Any:
            if value is None:
                return None
            found = []
            for get in getters:
                v = get(value)
                if is_empty(v):
                    return None  # an item without its key is paired with none
                found.append(key(v))
            return tuple(found)

        return key_of

    def fixed(self, parts: Sequence[tuple[Fn, Fn]]) -> tuple[Fn, Fn]:
        def score(g: Any, p: Any) -> int:
            gs = _slots(g, len(parts))
            ps = _slots(p, len(parts))
            n = 0
            for (s, _), a, b in zip(parts, gs, ps, strict=True):
                n += s(a, b)
            return n

        def agree(g: Any, p: Any) -> int:
            if is_empty(g) or is_empty(p):
                return 0
            return sum(a(x, y) for (_, a), x, y in zip(parts, g, p, strict=False))

        return score, agree

    def mapping(self, value: tuple[Fn, Fn]) -> tuple[Fn, Fn]:
        score_v, agree_v = value

        def score(g: Any, p: Any) -> int:
            gd = {} if is_empty(g) else g
            pd = {} if is_empty(p) else p
            n = 0
            for k, v in gd.items():
                n += score_v(v, pd.get(k, EMPTY))
            for k, v in pd.items():
                if k not in gd:
                    score_v(EMPTY, v)
            return n

        def agree(g: Any, p: Any) -> int:
            if is_empty(g) or is_empty(p):
                return 0
            return sum(agree_v(v, p[k]) for k, v in g.items() if k in p)

        return score, agree

    def union(self, node: ni.UnionNode, path: str) -> tuple[Fn, Fn]:
        """Options holding plain values are one value at ``path``; each other option is
        compiled on its own, and a side's value goes to the option that holds it."""
        options = [o for o in node.options if not isinstance(o, ni.NullNode)]
        plain = [o for o in options if _leafy(o)]
        other = [o for o in options if not _leafy(o)]
        deep = shared_containers(options)
        memo: dict[int, Callable[[Any], bool]] = {}
        parts: list[tuple[Callable[[Any], bool], Fn, Fn]] = []
        for o in other:
            test = deep_matcher(o, memo) if deep else matcher(o)
            parts.append((test, *self.compile(o, path)))
        if plain:
            tests = [deep_matcher(o, memo) if deep else matcher(o) for o in plain]
            score_l, agree_l = self.leaf(path, whole=True)
            parts.append((lambda v: any(t(v) for t in tests), score_l, agree_l))
        if not parts:
            return _zero, _zero

        def which(v: Any) -> int:
            for n, (test, _, _) in enumerate(parts):
                if test(v):
                    return n
            return len(parts) - 1

        fields = [self._fields_of.get(s) for _, s, _ in parts]

        def across(g: Any, og: int, p: Any, op: int) -> None:
            """Two classes of one union (``Circle | Square``): a plain field both have
            (``kind``) is one value at its path, compared; the others are each side's."""
            left, right = fields[og], fields[op]
            assert left is not None
            assert right is not None
            for key, (get, s, plain) in left.items():
                other = right.get(key)
                if plain and other is not None and other[2]:
                    s(get(g), other[0](p))
                else:
                    s(get(g), EMPTY)
            for key, (get, s, plain) in right.items():
                mine = left.get(key)
                if not (plain and mine is not None and mine[2]):
                    s(EMPTY, get(p))

        def score(g: Any, p: Any) -> int:
            ge = g is None or g is EMPTY
            pe = p is None or p is EMPTY
            if ge and pe:
                for _, s, _ in parts:
                    s(EMPTY, EMPTY)
                return 0
            og = -1 if ge else which(g)
            op = -1 if pe else which(p)
            if og == op:
                return parts[og][1](g, p)
            if og >= 0 and op >= 0 and fields[og] is not None and fields[op] is not None:
                across(g, og, p, op)
                return 0
            if og >= 0:
                parts[og][1](g, EMPTY)
            if op >= 0:
                parts[op][1](EMPTY, p)
            return 0

        def agree(g: Any, p: Any) -> int:
            if g is None or g is EMPTY or p is None or p is EMPTY:
                return 0
            og = which(g)
            return parts[og][2](g, p) if og == which(p) else 0

        return score, agree


def _object_functions(
    parts: list[tuple[str, Fn, Fn]], typed_dict: bool, label: str
) -> tuple[Fn, Fn]:
    """An object's ``score`` and ``agree``, generated with a line per field (a loop over
    the fields costs twice as much per record)."""
    namespace: dict[str, Any] = {"EMPTY": EMPTY}

    def read(side: str, n: int, name: str) -> str:
        if typed_dict:
            return f"{side}.get(N{n}, EMPTY)"
        return f"{side}.{name}" if name.isidentifier() else f"getattr({side}, N{n})"

    if not parts:
        source = "def score(g, p):\n    return 0\n\ndef agree(g, p):\n    return 0\n"
    else:
        calls = []
        for n, (name, score_f, agree_f) in enumerate(parts):
            namespace[f"S{n}"], namespace[f"A{n}"], namespace[f"N{n}"] = score_f, agree_f, name
            calls.append((n, read("g", n, name), read("p", n, name)))
        lines = [
            "def score(g, p):",
            "    if g is None or g is EMPTY:",
            "        if p is None or p is EMPTY:",
            *[f"            S{n}(EMPTY, EMPTY)" for n, _, _ in calls],
            "            return 0",
            *[f"        S{n}(EMPTY, {p})" for n, _, p in calls],
            "        return 0",
            "    if p is None or p is EMPTY:",
            *[f"        S{n}({g}, EMPTY)" for n, g, _ in calls],
            "        return 0",
            "    return " + " + ".join(f"S{n}({g}, {p})" for n, g, p in calls),
            "",
            "def agree(g, p):",
            "    if g is None or g is EMPTY or p is None or p is EMPTY:",
            "        return 0",
            "    return " + " + ".join(f"A{n}({g}, {p})" for n, g, p in calls),
        ]
        source = "\n".join(lines) + "\n"
    score = run_source(source, namespace, f"evaluate {label}", "score")
    return score, namespace["agree"]


def _deeper(holder: list[tuple[Fn, Fn]]) -> tuple[Fn, Fn]:
    """A class met again inside itself: scored by its outer occurrence's functions (so
    at those paths); two empty sides stop there (a recursive type never ends)."""

    def score(g: Any, p: Any) -> int:
        if (g is None or g is EMPTY) and (p is None or p is EMPTY):
            return 0
        return holder[0][0](g, p)

    def agree(g: Any, p: Any) -> int:
        return holder[0][1](g, p)

    return score, agree


def _pair_equal(
    gl: list[Any], pl: list[Any], pairs: list[tuple[Any, Any]]
) -> tuple[list[Any], list[Any]]:
    """Pair each gold item with an equal prediction left, if any; the rest of each side."""
    left = list(pl)
    lone: list[Any] = []
    for a in gl:
        for n, b in enumerate(left):
            if a == b:
                pairs.append((a, b))
                del left[n]
                break
        else:
            lone.append(a)
    return lone, left


def _absent(value: Any) -> bool:
    return value is None or value is EMPTY


def _item_getter(name: str) -> Callable[[Any], Any]:
    def get(d: Any) -> Any:
        return d.get(name, EMPTY)

    return get


def _present(value: Any) -> list[Any]:
    """A list's items, without the ``None`` ones (an empty value is no item)."""
    if value is None or value is EMPTY:
        return []
    return [v for v in value if v is not None]


def _slots(value: Any, n: int) -> Sequence[Any]:
    if is_empty(value):
        return (EMPTY,) * n
    got = list(value)[:n]
    return got + [EMPTY] * (n - len(got))


def _numbers(counter: Counter[Any]) -> list[float]:
    found: list[float] = []
    for (kind, value), count in counter.items():
        if kind is object and isinstance(value, (int, float)) and not isinstance(value, bool):
            found += [value] * count
    return found


def _pairwise(
    gl: list[Any], pl: list[Any], same: Callable[[Any, Any], bool], notes: Counter[str],
    path: str,
) -> int:
    """Unhashable values: each gold value takes the first equal prediction left (bounded)."""
    if len(gl) > MAX_ASSIGNED or len(pl) > MAX_ASSIGNED:
        notes[path] += 1
        return sum(1 for a, b in zip(gl, pl) if same(a, b))  # noqa: B905 - by position
    left = list(pl)
    k = 0
    for a in gl:
        for n, b in enumerate(left):
            if same(a, b):
                del left[n]
                k += 1
                break
    return k
