"""Standard modules imported on first use, so that ``import describedtypes`` stays quick.

``asyncio`` alone takes longer to import than the rest of the package; a program that
never runs a tool asynchronously should not pay for it.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands in for a module global until first used, then puts the real module there.

    ``asyncio = LazyModule("asyncio", globals())`` in a module: the first attribute read
    (``asyncio.gather``) imports ``asyncio`` and rebinds the module's global ``asyncio``
    to it, so later reads cost nothing and ``monkeypatch`` sees the real module.
    """

    __slots__ = ("_name", "_owner")

    def __init__(self, name: str, owner: dict[str, Any]) -> None:
        self._name = name
        self._owner = owner

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name)
        if self._owner.get(self._name) is self:
            self._owner[self._name] = module
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def install_hint(requirement: str, extra: str) -> str:
    """How to install an optional dependency, in words that work today.

    describedtypes is installed from a clone of its repository, not from a package index,
    so installing it by name with an extra would fail: name the library itself, and
    the extra for a clone.
    """
    return (f"pip install '{requirement}' "
            f"(or, in a clone of describedtypes: pip install -e '.[{extra}]')")
