"""A 15-class nested model, made the same way for attrs, pydantic and msgspec."""

from __future__ import annotations

import enum
from typing import Any, Optional

import attrs
import msgspec
import pydantic


class Status(enum.Enum):
    ACTIVE = "active"
    PAUSED = "paused"
    CLOSED = "closed"


N_CLASSES = 15


def _field_specs(i: int, kids: list[Any]) -> list[tuple[str, Any]]:
    specs: list[tuple[str, Any]] = [
        ("name", str),
        ("count", int),
        ("ratio", float),
        ("status", Status),
        ("note", Optional[str]),  # noqa: UP045 - runtime type object
        ("tags", list[str]),
    ]
    # 15 classes as a binary tree four levels deep, each class used once, so the inline
    # schema stays linear in size and within OpenAI's nesting limit.
    if kids:
        specs.append(("left", kids[0]))
        specs.append(("right", list[kids[1]]))
    return specs


def _kids(i: int) -> tuple[int, int] | None:
    left, right = 2 * i + 1, 2 * i + 2
    return (left, right) if right < N_CLASSES else None


_FIELD_DOCS = {
    "name": "What the item is called.",
    "count": "How many of it there are.",
    "ratio": "Its share of the whole, from 0 to 1.",
    "status": "Whether it is active.",
    "note": "Anything else worth saying, if anything.",
    "tags": "Labels for finding it.",
    "left": "The first item below this one.",
    "right": "The other items below this one.",
}


def docstring(name: str, specs: list[tuple[str, Any]]) -> str:
    """A Google-style class docstring: a summary and one line per field."""
    lines = [f"{name}: one level of the benchmark's tree of items.", "", "Attributes:"]
    lines += [f"    {fname}: {_FIELD_DOCS[fname]}" for fname, _ in specs]
    return "\n".join(lines)


def _build(make: Any, documented: bool = False) -> Any:
    made: dict[int, Any] = {}
    for i in reversed(range(N_CLASSES)):
        pair = _kids(i)
        kids = [made[pair[0]], made[pair[1]]] if pair else []
        specs = _field_specs(i, kids)
        made[i] = make(f"Level{i}", specs)
        if documented:
            made[i].__doc__ = docstring(f"Level{i}", specs)
    return made[0]


def build_attrs(documented: bool = False) -> type:
    """The attrs variant; returns the root class (with docstrings: ``documented``)."""
    return _build(  # type: ignore[no-any-return]
        lambda name, specs: attrs.make_class(
            name, {fname: attrs.field(type=tp) for fname, tp in specs}
        ),
        documented,
    )


def build_pydantic(documented: bool = False) -> type[pydantic.BaseModel]:
    return _build(  # type: ignore[no-any-return]
        lambda name, specs: pydantic.create_model(
            name,
            __doc__=docstring(name, specs) if documented else None,
            **{f: (tp, ...) for f, tp in specs},
        ),
    )


def build_msgspec(documented: bool = False) -> type:
    return _build(msgspec.defstruct, documented)  # type: ignore[no-any-return]


def sample(i: int = 0) -> dict[str, Any]:
    """A JSON-ready instance of Level{i} and everything below it."""
    out: dict[str, Any] = {
        "name": f"item {i}",
        "count": i * 7,
        "ratio": i / 3,
        "status": "active",
        "note": None if i % 2 else "a note",
        "tags": ["alpha", "beta"],
    }
    pair = _kids(i)
    if pair:
        out["left"] = sample(pair[0])
        out["right"] = [sample(pair[1])]
    return out
