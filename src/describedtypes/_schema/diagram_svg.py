"""A class diagram drawn as SVG, with no JavaScript and no network.

Mermaid is drawn in the browser by a script most notebook pages load from a CDN; where that
script cannot load (offline, a strict content policy), nbconvert's page hides the
diagram. This draws the same boxes and arrows as plain SVG, laid out in layers: the root
class first, then the classes its fields lead to, and so on. It is the fallback a notebook
front end shows when it cannot draw Mermaid itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape as _escape_markup

import attrs

__all__ = ["Box", "Edge", "draw"]

_CHAR = 7.2  # px per character of the 12 px monospace font, a little generous
_LINE = 16  # px per text line
_PAD = 8  # px inside a box
_GAP_ACROSS = 24  # px between boxes of one layer
_GAP_ALONG = 120  # px between layers: room for an arrow's labels


# Characters XML 1.0 cannot hold at all, even escaped: written as their \\uXXXX code.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def escape(text: str) -> str:
    """``text`` as XML character data: markup escaped, impossible characters spelled."""
    return _escape_markup(_NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


@attrs.frozen
class Box:
    """One class, enum or function: its title, an optional stereotype, its lines."""

    id: str
    title: str
    stereotype: str | None
    lines: tuple[str, ...]

    @property
    def width(self) -> float:
        texts = [self.title, *self.lines]
        if self.stereotype:
            texts.append(f"«{self.stereotype}»")
        return max(len(t) for t in texts) * _CHAR + 2 * _PAD

    @property
    def height(self) -> float:
        head = 2 if self.stereotype else 1
        return (head + len(self.lines)) * _LINE + 2 * _PAD + (4 if self.lines else 0)


@attrs.frozen
class Edge:
    """An arrow from one box to another, labelled with the field and its multiplicity."""

    source: str
    target: str
    label: str
    end: str


def _layers(boxes: Sequence[Box], edges: Sequence[Edge]) -> list[list[Box]]:
    """Boxes by their distance from the first along the arrows; the unreached last."""
    by_id = {b.id: b for b in boxes}
    depth: dict[str, int] = {}
    if boxes:
        depth[boxes[0].id] = 0
        frontier = [boxes[0].id]
        while frontier:
            following = []
            for source in frontier:
                for e in edges:
                    if e.source == source and e.target not in depth and e.target in by_id:
                        depth[e.target] = depth[source] + 1
                        following.append(e.target)
            frontier = following
    last = max(depth.values(), default=-1) + 1
    layers: list[list[Box]] = [[] for _ in range(last + 1)]
    for b in boxes:
        layers[depth.get(b.id, last)].append(b)
    return [layer for layer in layers if layer]


def draw(boxes: Sequence[Box], edges: Sequence[Edge], direction: str) -> str:
    """The SVG document of the diagram; every text is escaped."""
    layers = _layers(boxes, edges)
    across = direction in ("LR", "RL")  # layers are columns, boxes stacked in each
    place: dict[str, tuple[float, float, Box]] = {}
    along = 10.0
    extent = 0.0
    for layer in layers:
        pos = 10.0
        thick = max((b.width if across else b.height) for b in layer)
        for b in layer:
            x, y = (along, pos) if across else (pos, along)
            place[b.id] = (x, y, b)
            pos += (b.height if across else b.width) + _GAP_ACROSS
        extent = max(extent, pos)
        along += thick + _GAP_ALONG
    size_along = along - _GAP_ALONG + 10
    width, height = (size_along, extent) if across else (extent, size_along)
    if direction in ("RL", "BT"):  # mirror along the layers
        flip = {}
        for key, (x, y, b) in place.items():
            if across:
                flip[key] = (width - x - b.width, y, b)
            else:
                flip[key] = (x, height - y - b.height, b)
        place = flip

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="monospace" font-size="12">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
        'markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
        'fill="#555"/></marker></defs>',
    ]
    for e in edges:
        if e.source in place and e.target in place:
            out.append(_arrow(place[e.source], place[e.target], e))
    for x, y, b in place.values():
        out.append(_box(x, y, b))
    out.append("</svg>")
    return "".join(out)


def _box(x: float, y: float, b: Box) -> str:
    parts = [
        f'<g><rect x="{x:.1f}" y="{y:.1f}" width="{b.width:.1f}" height="{b.height:.1f}" '
        'fill="#f4f4fb" stroke="#555" rx="3"/>'
    ]
    cx = x + b.width / 2
    line_y = y + _PAD + 12
    if b.stereotype:
        parts.append(f'<text x="{cx:.1f}" y="{line_y:.1f}" text-anchor="middle" '
                     f'font-style="italic">«{escape(b.stereotype)}»</text>')
        line_y += _LINE
    parts.append(f'<text x="{cx:.1f}" y="{line_y:.1f}" text-anchor="middle" '
                 f'font-weight="bold">{escape(b.title)}</text>')
    if b.lines:
        rule = line_y + 6
        parts.append(f'<line x1="{x:.1f}" y1="{rule:.1f}" x2="{x + b.width:.1f}" '
                     f'y2="{rule:.1f}" stroke="#555"/>')
        line_y += 4
        for text in b.lines:
            line_y += _LINE
            parts.append(f'<text x="{x + _PAD:.1f}" y="{line_y:.1f}">{escape(text)}</text>')
    parts.append("</g>")
    return "".join(parts)


def _arrow(
    source: tuple[float, float, Box], target: tuple[float, float, Box], e: Edge
) -> str:
    sx, sy, sb = source
    tx, ty, tb = target
    label = escape(f"{e.label} [{e.end}]")
    if sb is tb:  # a class that refers to itself: a loop over its top right corner
        x0, y0 = sx + sb.width - 20, sy
        x1, y1 = sx + sb.width, sy + 20
        return (f'<path d="M {x0:.1f} {y0:.1f} C {x0 + 10:.1f} {y0 - 40:.1f} '
                f'{x1 + 40:.1f} {y1 - 10:.1f} {x1:.1f} {y1:.1f}" fill="none" stroke="#555" '
                f'marker-end="url(#arrow)"/><text x="{x1 + 14:.1f}" y="{y0 - 8:.1f}" '
                f'fill="#333">{label}</text>')
    a = (sx + sb.width / 2, sy + sb.height / 2)
    b = (tx + tb.width / 2, ty + tb.height / 2)
    start = _border(a, b, sb, sx, sy)
    end = _border(b, a, tb, tx, ty)
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    return (f'<line x1="{start[0]:.1f}" y1="{start[1]:.1f}" x2="{end[0]:.1f}" '
            f'y2="{end[1]:.1f}" stroke="#555" marker-end="url(#arrow)"/>'
            f'<text x="{mx:.1f}" y="{my - 4:.1f}" text-anchor="middle" fill="#333">'
            f"{label}</text>")


def _border(
    center: tuple[float, float], toward: tuple[float, float], b: Box, x: float, y: float
) -> tuple[float, float]:
    """Where the line from the box's centre toward a point leaves the box."""
    dx, dy = toward[0] - center[0], toward[1] - center[1]
    if dx == 0 and dy == 0:
        return center
    scale = min(
        (b.width / 2) / abs(dx) if dx else float("inf"),
        (b.height / 2) / abs(dy) if dy else float("inf"),
    )
    return center[0] + dx * scale, center[1] + dy * scale
