"""The exceptions *describedtypes* raises; each names the path, the reason and the fix."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "ArgumentError",
    "DecodeError",
    "DescribedTypesError",
    "IncompleteReplyError",
    "RefusalError",
    "SchemaError",
]


class DescribedTypesError(Exception):
    """Base class of every error *describedtypes* raises on purpose."""


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
        errors: Every problem found, as ``(json_path, message)`` pairs such as
            ``("$.address.city", "missing required field")``.
    """

    def __init__(self, errors: Iterable[tuple[str, str]], *, message: str | None = None) -> None:
        self.errors: list[tuple[str, str]] = list(errors)
        super().__init__(message if message is not None else render_errors(self.errors))


class RefusalError(DecodeError):
    """The model declined to answer (an OpenAI refusal or an Anthropic ``refusal`` stop).

    Attributes:
        refusal: The model's refusal text, as it sent it.
    """

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
