"""``diff_definitions``: every difference between two tool lists that breaks a provider's
prompt cache (the cache keys on the exact bytes of the request prefix, tools first)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import attrs
import orjson

from .._base.files import FileRefused, read_small
from .._schema import adapters as _adapters
from .requests import tool_name
from .toolbox import Toolbox

__all__ = ["DefinitionChange", "diff_definitions", "load_definitions"]

ChangeKind = Literal["added", "removed", "moved", "changed", "reordered"]

#: The most changes listed; past it, the list ends with one that says how many more.
MAX_CHANGES = 1000
#: A definitions file larger than this is refused (a hundred tools take well under 1 MiB).
MAX_FILE = 64 << 20


@attrs.frozen
class DefinitionChange:
    """One difference between two tool lists.

    Attributes:
        kind: ``"added"`` / ``"removed"`` (a tool), ``"moved"`` (a tool at another place
            in the list), ``"changed"`` (a value: added, removed or replaced at ``path``)
            or ``"reordered"`` (the same keys of an object in another order: other
            bytes for the cache).
        tool: The tool's name.
        path: Where in the tool's definition, as a JSON path (``$`` for the whole
            definition, ``$.input_schema.properties.city.description``).
        old: The old value (the old position for ``"moved"``, the old key order for
            ``"reordered"``); None when there was none.
        new: The new value likewise; None when there is none.

    .. versionadded:: 0.4.0
    """

    kind: ChangeKind
    tool: str
    path: str = "$"
    old: Any = None
    new: Any = None

    def __str__(self) -> str:
        if self.kind == "added":
            return f"+ {self.tool}: added at position {self.new}"
        if self.kind == "removed":
            return f"- {self.tool}: removed (was at position {self.old})"
        if self.kind == "moved":
            return f"~ {self.tool}: moved from position {self.old} to {self.new}"
        if self.kind == "reordered":
            return f"~ {self.tool} {self.path}: keys reordered {self.old} -> {self.new}"
        return f"~ {self.tool} {self.path}: {_shown(self.old)} -> {_shown(self.new)}"


def _shown(value: Any) -> str:
    if value is None:
        return "(absent)"
    text = orjson.dumps(value, default=repr).decode()
    return text if len(text) <= 120 else text[:117] + "..."


def load_definitions(source: Any, llm_adapter: Any, label: str) -> list[Any]:
    """A list of definitions from a ``Toolbox`` (built for ``llm_adapter``), a list, or
    the path of a JSON file holding one (or an object with a ``tools`` list)."""
    if isinstance(source, Toolbox):
        if llm_adapter is None:
            msg = (
                f"diff_definitions(): {label} is a Toolbox; pass llm_adapter=... (such as "
                "ANTHROPIC_TOOLS) to say which definitions to compare"
            )
            raise TypeError(msg)
        return source.definitions(_adapters.check_adapter(llm_adapter))
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            data = orjson.loads(read_small(path, MAX_FILE, "a list of tool definitions"))
        except FileRefused as exc:
            msg = f"diff_definitions(): {label}: {exc}"
            raise ValueError(msg) from None
        except OSError as exc:
            msg = f"diff_definitions(): cannot read {label} {str(path)!r}: {exc.strerror or exc}"
            raise ValueError(msg) from None
        except orjson.JSONDecodeError as exc:
            msg = f"diff_definitions(): {label} {str(path)!r} is not JSON: {exc}"
            raise ValueError(msg) from None
        if isinstance(data, dict) and isinstance(data.get("tools"), list):
            data = data["tools"]
        source = data
    if not isinstance(source, Sequence) or isinstance(source, (str, bytes)):
        msg = (
            f"diff_definitions(): {label} must be a Toolbox, a list of tool definitions or "
            f"the path of a JSON file of one, got {type(source).__name__}"
        )
        raise TypeError(msg)
    for i, item in enumerate(source):
        if tool_name(item) is None:
            msg = (
                f"diff_definitions(): {label}[{i}] is not a tool definition with a name "
                f"(got {type(item).__name__})"
            )
            raise TypeError(msg)
    return list(source)


def diff_definitions(
    old: Toolbox | Sequence[Any] | str | os.PathLike[str],
    new: Toolbox | Sequence[Any] | str | os.PathLike[str],
    *,
    llm_adapter: _adapters.Adapter | None = None,
) -> list[DefinitionChange]:
    """Every difference between two tool lists that changes the bytes sent, in order.

    Tools added and removed, tools moved to another place in the list, and every value
    changed inside a tool (with its JSON path, old and new), including an object's keys
    in another order. An empty list means the same bytes: the provider's prompt cache
    still holds.

    Args:
        old: A ``Toolbox``, a list of definitions, or the path of a saved JSON file of
            one (as ``describedtypes tools`` prints it).
        new: Likewise.
        llm_adapter: The tool form a ``Toolbox`` is built for.

    Raises:
        TypeError: An argument is none of those, or a Toolbox comes without
            ``llm_adapter``.
        ValueError: A file cannot be read or is not JSON.

    .. versionadded:: 0.4.0
    """
    before = load_definitions(old, llm_adapter, "old")
    after = load_definitions(new, llm_adapter, "new")
    changes: list[DefinitionChange] = []
    old_names = [str(tool_name(d)) for d in before]
    new_names = [str(tool_name(d)) for d in after]
    old_at = {n: i for i, n in enumerate(old_names)}
    new_at = {n: i for i, n in enumerate(new_names)}
    for i, name in enumerate(old_names):
        if name not in new_at:
            changes.append(DefinitionChange("removed", name, "$", i, None))
    for i, name in enumerate(new_names):
        if name not in old_at:
            changes.append(DefinitionChange("added", name, "$", None, i))
    common_old = [n for n in old_names if n in new_at]
    common_new = [n for n in new_names if n in old_at]
    kept: set[str] = set()
    matcher = difflib.SequenceMatcher(a=common_old, b=common_new, autojunk=False)
    for block in matcher.get_matching_blocks():
        kept.update(common_old[block.a:block.a + block.size])
    for name in common_new:
        if name not in kept:
            changes.append(DefinitionChange("moved", name, "$", old_at[name], new_at[name]))
    for name in common_new:
        _compare(name, "$", before[old_at[name]], after[new_at[name]], changes)
        if len(changes) > MAX_CHANGES:
            break
    if len(changes) > MAX_CHANGES:
        more = len(changes) - MAX_CHANGES
        changes = changes[:MAX_CHANGES]
        changes.append(DefinitionChange("changed", "...", "$", None, f"{more} more changes"))
    return changes


def _step(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    text = str(key)
    if text.isidentifier():
        return f"{path}.{text}"
    return f"{path}[{orjson.dumps(text).decode()}]"


def _compare(tool: str, path: str, old: Any, new: Any, out: list[DefinitionChange]) -> None:
    """Append the differences between ``old`` and ``new`` (a walk with an explicit stack:
    a deep definition cannot exhaust the recursion limit)."""
    stack = [(path, old, new)]
    while stack and len(out) <= MAX_CHANGES:
        where, a, b = stack.pop()
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            pending = []
            for key in a:
                if key not in b:
                    out.append(DefinitionChange("changed", tool, _step(where, key), a[key], None))
                else:
                    pending.append((_step(where, key), a[key], b[key]))
            for key in b:
                if key not in a:
                    out.append(DefinitionChange("changed", tool, _step(where, key), None, b[key]))
            shared_a = [k for k in a if k in b]
            shared_b = [k for k in b if k in a]
            if shared_a != shared_b:
                out.append(DefinitionChange("reordered", tool, where, shared_a, shared_b))
            stack.extend(reversed(pending))
        elif isinstance(a, list) and isinstance(b, list):
            pending = [(_step(where, i), x, y) for i, (x, y) in enumerate(zip(a, b, strict=False))]
            if len(a) != len(b):
                shorter = min(len(a), len(b))
                out.append(DefinitionChange(
                    "changed", tool, _step(where, shorter),
                    a[shorter:] or None, b[shorter:] or None,
                ))
            stack.extend(reversed(pending))
        elif type(a) is not type(b) or a != b:
            out.append(DefinitionChange("changed", tool, where, a, b))
