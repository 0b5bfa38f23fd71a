"""Running a coroutine's first step right away: ``start_eagerly`` steps it once, and hands
it to a task only if it really waits for something."""

from __future__ import annotations

import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any


@types.coroutine
def _continue(coro: Coroutine[Any, Any, Any], first: Any) -> Generator[Any, Any, Any]:
    """Go on with ``coro`` after its first step yielded ``first`` (``yield from`` the middle)."""
    pending = first
    while True:
        try:
            sent = yield pending
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:
            try:
                pending = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                pending = coro.send(sent)
            except StopIteration as stop:
                return stop.value


async def _rest(coro: Coroutine[Any, Any, Any], first: Any) -> Any:
    return await _continue(coro, first)


def start_eagerly(
    coro: Coroutine[Any, Any, Any], create_task: Callable[[Any], Any]
) -> tuple[bool, Any]:
    """Run ``coro`` until it first waits: ``(True, result)``, or ``(False, task)`` with a task
    (made by ``create_task``) that goes on with it. Exceptions from the first step raise."""
    try:
        first = coro.send(None)
    except StopIteration as stop:
        return True, stop.value
    return False, create_task(_rest(coro, first))
