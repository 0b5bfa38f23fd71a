"""What ``extract(..., details=True)`` and ``Toolbox.run(..., details=True)`` return:
the value with everything the request cost (usage, attempts or turns, time) and the
conversation so far, ready to continue."""

from __future__ import annotations

import html
from typing import Any, Generic, TypeVar

import attrs

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from ..errors import DecodeError

__all__ = ["Attempt", "Extraction", "ToolRun", "Turn"]

T = TypeVar("T")


#: At most this many characters of a value's own repr in the short reprs below.
_VALUE_REPR = 200


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _VALUE_REPR else text[: _VALUE_REPR - 3] + "..."


@attrs.frozen(repr=False)
class Attempt(Generic[T]):
    """One request of ``extract()`` and what came of it.

    Attributes:
        response: The provider's response, as the SDK returned it.
        outcome: The decoded value, or the ``DecodeError`` (``RefusalError``,
            ``IncompleteReplyError``) the reply gave.
        usage: What this request cost.
        seconds: How long the request took.

    .. versionadded:: 0.3.0
    """

    response: object
    outcome: Any
    usage: Usage
    seconds: float

    @property
    def ok(self) -> bool:
        return not isinstance(self.outcome, DecodeError)

    def __repr__(self) -> str:
        # The SDK's response is a field away (``attempt.response``), never in the repr.
        return (f"Attempt(ok={self.ok}, outcome={_short(self.outcome)}, usage={self.usage!r}, "
                f"seconds={self.seconds:.3f})")


@attrs.frozen(repr=False)
class Extraction(Generic[T]):
    """The decoded value of ``extract(..., details=True)`` and what it cost.

    Attributes:
        value: The decoded instance.
        usage: The sum over every attempt.
        attempts: Every request, in order; the last one holds ``value``.
        messages: The conversation in the provider's shape: the caller's messages, every
            reply and retry message, and the final reply, so that appending a user message
            asks the next question in the same conversation.
        seconds: The whole call.

    .. versionadded:: 0.3.0
    """

    value: T
    usage: Usage
    attempts: tuple[Attempt[T], ...]
    messages: tuple[Any, ...]
    seconds: float

    def __repr__(self) -> str:
        # Short: the responses and the conversation are a field away (``attempts``,
        # ``messages``), not thousands of characters on one line.
        return (f"Extraction(value={_short(self.value)}, attempts={len(self.attempts)}, "
                f"usage={self.usage!r}, seconds={self.seconds:.3f})")

    def _repr_html_(self) -> str:
        return _summary(
            f"Extraction of {type(self.value).__name__}",
            self.usage, self.seconds, f"{len(self.attempts)} attempt(s)",
        )


@attrs.frozen(repr=False)
class Turn:
    """One model turn of ``Toolbox.run()``.

    Attributes:
        response: The provider's response.
        usage: What the request cost.
        seconds: How long the request took.
        calls: The tool calls the model made, each with its result, in order (empty on
            the turn that answered).
        tool_seconds: How long running those calls took, together.
        phase: ``"combined"`` (the tools, and the format of a typed answer, in one
            request), ``"tools"`` (a tool turn of a two-phase run: no format) or
            ``"closing"`` (its closing request: the format, no tool to call).

    .. versionadded:: 0.3.0
    .. versionchanged:: 0.4.0 ``phase``.
    """

    response: object
    usage: Usage
    seconds: float
    calls: tuple[tuple[ToolCall, ToolResult], ...] = ()
    tool_seconds: float = 0.0
    phase: str = "combined"

    def __repr__(self) -> str:
        names = [call.name for call, _ in self.calls]
        return (f"Turn(calls={_short(names)}, usage={self.usage!r}, "
                f"seconds={self.seconds:.3f}, tool_seconds={self.tool_seconds:.3f})")


@attrs.frozen(repr=False)
class ToolRun(Generic[T]):
    """The final answer of ``Toolbox.run(..., details=True)`` and what it cost.

    Attributes:
        output: The final answer: its text, or the decoded ``output_type`` instance.
        usage: The sum over every turn.
        turns: Every model turn, in order.
        messages: The conversation in the provider's shape, the final reply included.
        seconds: The whole run.
        plan: The ``RequestPlan`` the run sent: the tools (which strict, which
            downgraded and why), the output format, the phases, the fingerprint.

    .. versionadded:: 0.3.0
    .. versionchanged:: 0.4.0 ``plan``.
    """

    output: T
    usage: Usage
    turns: tuple[Turn, ...]
    messages: tuple[Any, ...]
    seconds: float
    plan: Any = None

    def __repr__(self) -> str:
        calls = sum(len(t.calls) for t in self.turns)
        return (f"ToolRun(output={_short(self.output)}, turns={len(self.turns)}, "
                f"calls={calls}, usage={self.usage!r}, seconds={self.seconds:.3f})")

    def _repr_html_(self) -> str:
        calls = sum(len(t.calls) for t in self.turns)
        return _summary(
            "Tool run", self.usage, self.seconds, f"{len(self.turns)} turn(s), {calls} call(s)"
        )


def _summary(title: str, usage: Usage, seconds: float, what: str) -> str:
    return (
        f"<div><b>{html.escape(title)}</b>: {html.escape(what)}, {seconds:.2f} s, "
        f"{usage.requests:,} request(s), {usage.input_tokens:,} input and "
        f"{usage.output_tokens:,} output tokens</div>"
    )
