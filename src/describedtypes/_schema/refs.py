"""``use_references="auto"``: per class, the smaller of inline and ``$defs``.

The choice starts from the inline body (only recursive classes under ``$defs``) and tries
each class written out more than once, the one with the largest estimated saving first;
a move is kept when the compact JSON gets shorter (bytes, so no tokenizer is needed) and
drops nothing the inline body keeps. Every candidate is a real build checked by the
adapter's rules, so nothing its provider would reject can be chosen, and the decoder is
the same for every body (it reads the type, not the schema): whatever a body says in a
description instead of a keyword is enforced all the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import orjson

from .._types import inspector as ni
from .._types.nodes import children_of, object_graph
from ..errors import SchemaError
from .render import Json, Rewrite

#: Builds a wrapped, checked body with the given classes under ``$defs`` (raising
#: ``SchemaError`` when the adapter's rules reject it).
Build = Callable[[frozenset[ni.ObjectNode]], tuple[Json, list[Rewrite]]]


#: The most field copies a body written out in full may hold (a class written out twice
#: counts its fields twice): past it, ``use_references=False`` is a SchemaError naming
#: ``use_references=True``, since shared classes can double the body per level.
MAX_INLINE_COPIES = 100_000
#: Up to this many field copies in full, ``"auto"`` tries each shared class by a real
#: build (the exact, smallest choice); past it, it decides per class in one pass.
EXACT_COPIES = 4_000
#: What a ``$defs`` entry and its ``$ref``s cost, in field copies: a class written out
#: more often than this saves by moving.
_DEF_COST = 2


def inline_copies(root: ni.Node) -> tuple[int, ni.ObjectNode | None]:
    """How many field copies the body written out in full holds, and the class written
    out most often (counted, not built: linear in the classes)."""
    objects, recursive = object_graph(root)
    uses = written_out(root, recursive)
    root_object = ni.object_of(root)
    total = 1 + (len(root_object.fields) if root_object is not None else 0)
    most: ni.ObjectNode | None = None
    for o in objects:
        if o is root_object:
            continue
        total += uses[o] * (len(o.fields) + 1)
        if most is None or uses[o] > uses[most]:
            most = o
    return total, most


def too_large(copies: int, most: ni.ObjectNode | None, obj: object) -> SchemaError:
    shared = f" ({most.name} alone is written out many times)" if most is not None else ""
    return SchemaError(
        f"written out in full, the schema would hold {copies:,} field copies{shared}, more "
        f"than {MAX_INLINE_COPIES:,}: classes used in several places are written out at "
        "each, doubling the body per level; pass use_references=True (each class once "
        "under $defs) or use_references='auto'",
        type_=obj,
    )


def smallest(root: ni.Node, build: Build) -> tuple[Json, list[Rewrite]]:
    """The smallest body ``build`` makes from ``root`` that drops nothing inline keeps."""
    objects, recursive = object_graph(root)
    root_object = ni.object_of(root)
    uses = written_out(root, recursive)
    candidates = [
        o for o in objects if o is not root_object and o not in recursive and uses[o] > 1
    ]
    copies, _ = inline_copies(root)
    if candidates and copies > EXACT_COPIES:
        # Too large to write out in full and try class by class: one pass, each shared
        # class moved when its copies outweigh a $defs entry (linear in the classes).
        moved = frozenset(
            o for o in candidates if (uses[o] - 1) * (len(o.fields) + 1) > _DEF_COST
        )
        return build(moved)
    best, best_rewrites = build(frozenset())  # inline: its errors are the caller's
    if not candidates:
        return best, best_rewrites
    allowed = _dropped(best_rewrites)
    best_size = len(orjson.dumps(best))
    chosen: frozenset[ni.ObjectNode] = frozenset()
    # (uses - 1) x fields: a cheap stand-in for the bytes a move saves, largest first.
    for o in sorted(candidates, key=lambda o: (uses[o] - 1) * _weight(o), reverse=True):
        trial = chosen | {o}
        try:
            wrapped, rewrites = build(trial)
        except SchemaError:
            continue  # the provider would reject this body: not a candidate
        if not _dropped(rewrites) <= allowed:
            continue
        size = len(orjson.dumps(wrapped))
        if size < best_size:
            best, best_rewrites, best_size, chosen = wrapped, rewrites, size, trial
    return best, best_rewrites


def _dropped(rewrites: list[Rewrite]) -> set[str]:
    return {r.detail for r in rewrites if r.action == "dropped"}


def _weight(obj: ni.ObjectNode) -> int:
    """How much one written-out copy of ``obj`` holds: its fields, nested ones included."""
    total = 0
    stack: list[ni.Node] = [f.node for f in obj.fields]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, ni.ObjectNode):
            if id(node) in seen:
                continue
            seen.add(id(node))
            total += len(node.fields)
        total += 1
        stack.extend(children_of(node))
    return total


def written_out(root: ni.Node, recursive: set[ni.ObjectNode]) -> Counter[ni.ObjectNode]:
    """How many times each class is written out when every non-recursive one is inlined.

    Counted without building the body (which can be exponentially larger than the type):
    the classes inside one copy of a class are counted once per class and multiplied.
    """
    root_object = ni.object_of(root)
    inside: dict[ni.ObjectNode, Counter[ni.ObjectNode]] = {}

    def in_node(node: ni.Node) -> Counter[ni.ObjectNode]:
        if isinstance(node, ni.ObjectNode):
            if node in recursive or node is root_object:
                return Counter()  # a $ref
            out = Counter({node: 1})
            out.update(in_body(node))
            return out
        out = Counter[ni.ObjectNode]()
        for child in children_of(node):
            out.update(in_node(child))
        return out

    def in_body(obj: ni.ObjectNode) -> Counter[ni.ObjectNode]:
        found = inside.get(obj)
        if found is None:
            found = Counter()
            for f in obj.fields:
                found.update(in_node(f.node))
            inside[obj] = found
        return found

    total = Counter(in_body(root_object)) if root_object is not None else in_node(root)
    for r in recursive:
        if r is not root_object:
            total.update(in_body(r))  # written once, under $defs
    return total
