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


def _build(make: Any) -> Any:
    made: dict[int, Any] = {}
    for i in reversed(range(N_CLASSES)):
        pair = _kids(i)
        kids = [made[pair[0]], made[pair[1]]] if pair else []
        made[i] = make(f"Level{i}", _field_specs(i, kids))
    return made[0]


def build_attrs() -> type:
    """The attrs variant; returns the root class."""
    return _build(  # type: ignore[no-any-return]
        lambda name, specs: attrs.make_class(
            name, {fname: attrs.field(type=tp) for fname, tp in specs}
        )
    )


def build_pydantic() -> type[pydantic.BaseModel]:
    return _build(  # type: ignore[no-any-return]
        lambda name, specs: pydantic.create_model(name, **{f: (tp, ...) for f, tp in specs})
    )


def build_msgspec() -> type:
    return _build(msgspec.defstruct)  # type: ignore[no-any-return]


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
