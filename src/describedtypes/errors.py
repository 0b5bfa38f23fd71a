"""The exceptions *describedtypes* raises; each names the path, the reason and the fix."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._base.display import ROWS, html_table, markdown_table

__all__ = [
    "ArgumentError",
    "DecodeError",
    "DescribedTypesError",
    "IncompleteReplyError",
    "MalformedLineError",
    "MaxTurnsError",
    "RefusalError",
    "RequestError",
    "SchemaError",
]


class DescribedTypesError(Exception):
    """Base class of every error *describedtypes* raises on purpose.

    Every one pickles with its attributes (for process pools, Dask and Ray).
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self.args), self.__dict__)


def _restore(cls: type[BaseException], args: tuple[Any, ...]) -> BaseException:
    """Rebuild an error without calling ``__init__`` (its signature differs per class)."""
    error = cls.__new__(cls)
    error.args = args
    return error


class SchemaError(DescribedTypesError, TypeError):
    """A type, function or annotation cannot be described for the chosen adapter.

    Attributes:
        path: Where the problem is, as a dotted path from the root type
            (``Person.address.city``); empty at the root.
        reason: What is wrong, without the path.
        type_: The Python object (type or function) being described, if known.
    """

    def __init__(self, reason: str, *, path: str = "", type_: object = None) -> None:
        self.reason = reason
        self.path = path
        self.type_ = type_
        msg = f"{path}: {reason}" if path else reason
        super().__init__(msg)


def render_errors(errors: Sequence[tuple[str, str]]) -> str:
    lines = [f"{path}: {message}" for path, message in errors]
    if len(lines) == 1:
        return f"The reply does not match the schema: {lines[0]}"
    return "The reply does not match the schema:\n" + "\n".join(f"- {line}" for line in lines)


class DecodeError(DescribedTypesError, ValueError):
    """A model reply could not be turned into the requested type.

    ``str(error)`` is a compact report meant to be sent back to the model so it can
    correct itself; ``errors`` holds the same problems as data.

    Attributes:
        errors: The problems found, as ``(json_path, message)`` pairs such as
            ``("$.address.city", "missing required field")``: every one, up to a
            bound (100 for ``decode()``), so that a hostile reply costs bounded time
            and memory.
        truncated: True when decoding stopped at that bound: there were more problems
            than ``errors`` lists.
        attempts: Set by ``extract()`` and ``Toolbox.run()`` on the error they raise:
            one ``(response, error)`` pair per reply that failed, in order, the raised
            error's own reply last. Empty otherwise.
        usage: Set by ``extract()`` and ``Toolbox.run()`` on the error they raise: the
            ``Usage`` of every request they sent (None otherwise).
    """

    attempts: Sequence[tuple[object, DecodeError]] = ()
    usage: Any = None
    #: The problems are a mismatch with the schema (not a refusal or a cut-off reply).
    _mismatch = True

    def __init__(
        self,
        errors: Iterable[tuple[str, str]],
        *,
        message: str | None = None,
        truncated: bool = False,
    ) -> None:
        self.errors: list[tuple[str, str]] = list(errors)
        self.truncated = truncated
        super().__init__(message if message is not None else render_errors(self.errors))

    def _display(self) -> tuple[str, list[tuple[str, str]], int]:
        """The title, rows and hidden row count of the notebook table."""
        name = type(self).__name__
        if not self.errors or not self._mismatch:  # a refusal, a cut-off reply
            return name, self.errors[:ROWS] or [("$", str(self))], 0
        count = len(self.errors)
        more = "+" if self.truncated else ""
        title = f"{name}: the reply does not match the schema ({count}{more} problem"
        title += "s)" if count != 1 or more else ")"
        return title, self.errors[:ROWS], max(0, count - ROWS)

    def _repr_html_(self) -> str:
        """The problems as an HTML table (Jupyter); all model text escaped.

        .. versionadded:: 0.3.0
        """
        title, rows, more = self._display()
        return html_table(title, ("path", "problem"), rows, more)

    def _repr_markdown_(self) -> str:
        """The problems as a Markdown table (Jupyter); all model text escaped.

        .. versionadded:: 0.3.0
        """
        title, rows, more = self._display()
        return markdown_table(title, ("path", "problem"), rows, more)


class RefusalError(DecodeError):
    """The model declined to answer (an OpenAI refusal or an Anthropic ``refusal`` stop).

    Attributes:
        refusal: The model's refusal text, as it sent it.
    """

    _mismatch = False

    def __init__(self, refusal: str) -> None:
        self.refusal = refusal
        super().__init__([("$", f"the model refused: {refusal}")],
                         message=f"The model refused to answer: {refusal}")


class IncompleteReplyError(DecodeError):
    """The reply was cut off (token limit or content filter) before it was complete.

    Attributes:
        reason: The provider's stop or incomplete reason (``"length"``,
            ``"max_output_tokens"``, ``"max_tokens"``, ...).
    """

    _mismatch = False

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(
            [("$", f"the reply is incomplete ({reason})")],
            message=(
                f"The reply was cut off before it was complete ({reason}); "
                "raise the output token limit or ask for a shorter answer."
            ),
        )


class ArgumentError(DescribedTypesError, ValueError):
    """A tool call's arguments were rejected; the message goes to the model unchanged."""


class RequestError(DescribedTypesError):
    """The request itself failed: there is no reply to decode.

    A batch line that reports a failed request raises it; so does a request of
    ``extract()`` or ``Toolbox.run()`` that a provider refused for going over one of its
    strict-schema budgets (Anthropic: strict tools, optional and union-typed parameters,
    the compiled grammar), with the budget and the fix in ``reason`` and ``message`` and
    the provider's error chained.

    Attributes:
        reason: The provider's word for it: an OpenAI error ``code`` or ``"status 429"``
            for a non-200 response, Anthropic's ``"errored"``, ``"canceled"`` or
            ``"expired"`` (with the error type when there is one).
        message: The provider's message, if it sent one.
    """

    def __init__(self, reason: str, message: str = "") -> None:
        self.reason = reason
        self.message = message
        text = f"the request failed ({reason})"
        super().__init__(f"{text}: {message}" if message else text)


class MalformedLineError(DescribedTypesError, ValueError):
    """A batch line could not be read: not JSON, cut off, too long, or of no known shape.

    Attributes:
        reason: What is wrong with the line and what was expected.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
class MaxTurnsError(DescribedTypesError, RuntimeError):
    """``Toolbox.run()`` reached ``max_turns`` model turns without a final answer.

    Attributes:
        turns: How many requests were sent.
        transcript: The conversation so far, in the provider's shape: the caller's
            messages, every reply of the model and every tool result sent back.
        usage: The ``Usage`` of every request sent (set by ``Toolbox.run()``).
        turn_records: Every ``Turn`` (the response, its usage and time, the calls and
            their results), set by ``Toolbox.run()``.

    .. versionadded:: 0.2.0
    """

    usage: Any = None
    turn_records: Sequence[Any] = ()

    def __init__(self, turns: int, transcript: Sequence[object]) -> None:
        self.turns = turns
        self.transcript = list(transcript)
        super().__init__(
            f"the model was still calling tools after {turns} turns; raise max_turns=, "
            "or look at .transcript to see which calls it kept making"
        )
