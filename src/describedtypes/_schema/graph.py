"""``graph(obj)``: a Mermaid class diagram of a type or function.

Mermaid (https://mermaid.js.org/syntax/classDiagram.html) is drawn by GitHub, GitLab,
mkdocs-material and most Markdown viewers from a ```` ```mermaid ```` fence, so the
diagram needs no image tooling.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from .._types import inspector as ni
from .._types.annotate import Registry, annotate
from .._types.nodes import children_of, object_graph
from .diagram_svg import Box, Edge, draw
from .naming import defs_keys

__all__ = ["Diagram", "graph"]

Direction = Literal["LR", "RL", "TB", "BT"]

# Characters Mermaid reads as syntax inside a class body or a label (braces close the
# body, parentheses make a method, tildes a generic, angle brackets are dropped as HTML).
# They are written as Mermaid entity codes (#NNN;), which it draws as the character.
# Double quotes end a box title, so titles escape them too.
# Control characters and line separators go the same way, so each member stays one line.
_UNSAFE = re.compile(r"[{}()<>~#`\\\x00-\x1f\x7f-\x9f\u2028\u2029]")
_UNSAFE_TITLE = re.compile(r'[{}()<>~#"`\\\x00-\x1f\x7f-\x9f\u2028\u2029]')
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def _text(value: str, pattern: re.Pattern[str] = _UNSAFE) -> str:
    return pattern.sub(lambda m: f"#{ord(m.group())};", value)


def _box(box_id: str, title: str) -> str:
    """A class line's opening: the id, and the title where it differs from the id."""
    if title == box_id:
        return f"    class {box_id} {{"
    return f'    class {box_id}["{_text(title, _UNSAFE_TITLE)}"] {{'


class Diagram(str):
    """The Mermaid source of a class diagram: a ``str``, which Jupyter draws as the diagram.

    Everything a string does it does (``print``, ``==``, slicing, writing it to a file);
    ``repr`` and ``str`` are those of the text. In JupyterLab (4.1 or later, whose
    ``@jupyterlab/mermaid`` renders the ``text/vnd.mermaid`` MIME type) a cell ending in
    ``graph(X)`` shows the picture Mermaid draws; front ends that prefer SVG to Mermaid
    (nbconvert's HTML, whose Mermaid script comes from a CDN and so is hidden offline,
    and the docs site built from it) show the same boxes and arrows as the ``svg``
    drawing, which needs no script and no network; elsewhere the text.

    Attributes:
        empty: True when the diagram has no box: the type uses no class, enum or
            function (``graph(int)``), so there is nothing to draw.
        svg: The same diagram as a standalone SVG document (boxes laid out in layers
            from the root), for a page or a file that cannot run Mermaid.

    .. versionadded:: 0.3.0
    """

    empty: bool
    svg: str

    def __new__(cls, text: str = "", empty: bool = False, svg: str = "") -> Diagram:
        self = super().__new__(cls, text)
        self.empty = empty
        self.svg = svg
        return self

    def __getnewargs__(self) -> tuple[str, bool, str]:  # type: ignore[override]
        return str(self), self.empty, self.svg

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's plain text: the diagram's lines, not the quoted string with escapes."""
        printer.text(str(self))

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None
    ) -> dict[str, str]:
        """What Jupyter shows: the diagram drawn by Mermaid, or as SVG, or as its text."""
        text = str(self)
        bundle = {"text/vnd.mermaid": text, "text/plain": text}
        if self.svg and not self.empty:
            bundle["image/svg+xml"] = self.svg
        return bundle


class _Diagram:
    """Strictly private: one rendering of a node tree."""

    def __init__(self, root: ni.Node) -> None:
        self.objects, self.recursive = object_graph(root)
        self.keys = defs_keys(self.objects)
        self.root = root
        self.enums: dict[type, ni.EnumNode] = {}
        self.ids: dict[Any, str] = {}
        used: set[str] = set()
        for o in self.objects:
            self.ids[id(o)] = self._unique_id(self.keys[id(o)], used)
        for node in _walk(root):
            if isinstance(node, ni.EnumNode) and node.cls not in self.enums:
                self.enums[node.cls] = node
                self.ids[node.cls] = self._unique_id(node.cls.__name__, used)

    @staticmethod
    def _unique_id(name: str, used: set[str]) -> str:
        base = _ID_UNSAFE.sub("_", name) or "_"
        if base[0].isdigit():
            base = "_" + base
        candidate, n = base, 2
        while candidate in used:
            candidate = f"{base}_{n}"
            n += 1
        used.add(candidate)
        return candidate

    def label(self, obj: ni.ObjectNode) -> str:
        """The box title: the ``$defs`` key (with its type arguments for a generic)."""
        key = self.keys[id(obj)]
        if obj.generic_args:
            args = ", ".join(_type_name(a) for a in obj.generic_args)
            key = f"{obj.name}[{args}]"
        return key

    def spell(self, node: ni.Node) -> str:
        """A field's type as the model sees it, in JSON terms."""
        if node.enum is not None and not isinstance(node, (ni.EnumNode, ni.LiteralNode)):
            # An annotation's or validator's allowed values say more than the type.
            return " | ".join(json.dumps(v, ensure_ascii=False) for v in node.enum)
        if isinstance(node, ni.ObjectNode):
            return self.label(node)
        if isinstance(node, ni.EnumNode):
            return node.cls.__name__
        if isinstance(node, ni.ScalarNode):
            return f"string {node.format}" if node.format else node.type
        if isinstance(node, ni.NullNode):
            return "null"
        if isinstance(node, ni.AnyNode):
            return "any"
        if isinstance(node, ni.LiteralNode):
            return " | ".join(json.dumps(v, ensure_ascii=False) for v in node.values)
        if isinstance(node, ni.ArrayNode):
            inner = self.spell(node.items)
            if isinstance(node.items, ni.UnionNode):
                inner = f"[{inner}]"
            return f"{inner}[]"
        if isinstance(node, ni.TupleNode):
            return "[" + ", ".join(self.spell(n) for n in node.items) + "]"
        if isinstance(node, ni.DictNode):
            return f"map of {self.spell(node.values)}"
        if isinstance(node, ni.UnionNode):
            return " | ".join(self.spell(o) for o in node.options)
        return type(node).__name__  # pragma: no cover - every node kind is listed above

    def boxes(self) -> list[Box]:
        """Every box, in the diagram's order: classes and functions, then enums."""
        out = []
        for o in self.objects:
            stereotype = ("function" if o.is_function
                          else "recursive" if o in self.recursive else None)
            members = tuple(
                f"{f.key}{'' if f.required else '?'}: {self.spell(f.node)}" for f in o.fields
            )
            out.append(Box(self.ids[id(o)], self.label(o), stereotype, members))
        for cls, node in self.enums.items():
            values = tuple(json.dumps(v, ensure_ascii=False) for v in node.values)
            out.append(Box(self.ids[cls], cls.__name__, "enumeration", values))
        return out

    def edges(self) -> list[Edge]:
        """Every arrow: from a class to each class or enum a field refers to."""
        out = []
        for o in self.objects:
            for f in o.fields:
                for target, many in _targets(f.node):
                    if isinstance(target, ni.ObjectNode):
                        target_id = self.ids[id(target)]
                    else:
                        target_id = self.ids[target.cls]
                    end = "*" if many else ("0..1" if not f.required or f.nullable else "1")
                    out.append(Edge(self.ids[id(o)], target_id, f.key, end))
        return out

    def render(self, direction: Direction) -> Diagram:
        boxes, edges = self.boxes(), self.edges()
        lines = ["classDiagram", f"    direction {direction}"]
        for box in boxes:
            lines.append(_box(box.id, box.title))
            if box.stereotype:
                lines.append(f"        <<{box.stereotype}>>")
            # Escaped character by character, so ``key: type`` keeps its ": ".
            lines.extend(f"        {_text(line)}" for line in box.lines)
            lines.append("    }")
        lines.extend(
            f'    {e.source} --> "{e.end}" {e.target} : {_text(e.label)}' for e in edges
        )
        empty = not self.objects and not self.enums
        svg = "" if empty else draw(boxes, edges, direction)
        return Diagram("\n".join(lines) + "\n", empty, svg)


def _type_name(tp: Any) -> str:
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) else repr(tp).replace("typing.", "")


def _walk(node: ni.Node) -> list[ni.Node]:
    """Every node reachable from ``node``, each object node once."""
    found: list[ni.Node] = []
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ni.ObjectNode):
            if id(current) in seen:
                continue
            seen.add(id(current))
        found.append(current)
        stack.extend(reversed(list(children_of(current))))
    return found


def _targets(node: ni.Node, many: bool = False) -> list[tuple[Any, bool]]:
    """The classes and enums a field's type leads to, each with whether it holds many."""
    if isinstance(node, (ni.ObjectNode, ni.EnumNode)):
        return [(node, many)]
    if isinstance(node, ni.ArrayNode):
        return _targets(node.items, True)
    if isinstance(node, ni.DictNode):
        return _targets(node.values, True)
    if isinstance(node, ni.TupleNode):
        return _unique([t for item in node.items for t in _targets(item, many)])
    if isinstance(node, ni.UnionNode):
        return _unique([t for option in node.options for t in _targets(option, many)])
    return []


def _unique(targets: list[tuple[Any, bool]]) -> list[tuple[Any, bool]]:
    out: list[tuple[Any, bool]] = []
    for target, many in targets:
        for i, (seen, seen_many) in enumerate(out):
            if seen is target:
                out[i] = (seen, seen_many or many)
                break
        else:
            out.append((target, many))
    return out


def graph(
    obj: Any, *, direction: Direction = "LR", registry: Registry = annotate
) -> Diagram:
    """A Mermaid class diagram of a type or function and every class it uses.

    Each attrs class or dataclass is a box titled with its key under ``$defs`` (the
    name ``schema(..., use_references=True)`` gives it), listing its fields as the model
    sees them: the JSON key, ``?`` when the field may be left out, and the JSON type.
    Enums are ``<<enumeration>>`` boxes with their values; a function is a
    ``<<function>>`` box of its parameters; classes on a cycle are ``<<recursive>>``
    (they always go under ``$defs``). An arrow leads from a class to each class or
    enum a field refers to, labelled with the field, ``1``, ``0..1`` (optional or
    nullable) or ``*`` (a list or a dict of them) at its end.

    Put the text in a ```` ```mermaid ```` fence to see the picture on GitHub, in
    mkdocs-material or in most Markdown viewers, or run ``describedtypes graph TARGET``.

    Args:
        obj: An attrs class, a dataclass, a function, or a type built from them
            (``list[Post]``, ``Page[Item]``).
        direction: Mermaid's layout direction: ``"LR"`` (left to right, the default),
            ``"RL"``, ``"TB"`` (top to bottom) or ``"BT"``.
        registry: Where registered annotations are looked up (names, allowed values).

    Returns:
        The diagram's Mermaid source, starting with ``classDiagram``: a ``str`` (a
        :class:`Diagram`, which a Jupyter notebook draws as the picture).

    Raises:
        SchemaError: ``obj`` (or something inside it) cannot be described.
        ValueError: ``direction`` is not one of the four Mermaid directions.
        TypeError: ``registry`` is not a ``Registry``.

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0
       Returns a :class:`Diagram`, a ``str`` that Jupyter draws.
    """
    if direction not in ("LR", "RL", "TB", "BT"):
        msg = f"direction must be 'LR', 'RL', 'TB' or 'BT', got {direction!r}"
        raise ValueError(msg)
    return _Diagram(ni.type_info(obj, registry)).render(direction)
