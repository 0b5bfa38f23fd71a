"""What counts as the model's mistake when user code runs during a decode.

A validator, ``__post_init__``, constructor or cattrs hook that refuses the model's value
raises ``ValueError`` or ``TypeError`` (what attrs' own validators raise), a cattrs
validation error, or the library's own ``Invalid``: the decode reports it and the model
may be asked again. Anything else (a ``ConnectionError`` from a validator that looks the
value up, a ``KeyError`` from a bug) is not the model's doing: it propagates to the caller
unchanged, and its text is never put in a message to the model.
"""

from __future__ import annotations

from .problems import Invalid

__all__ = ["is_model_mistake"]


def is_model_mistake(exc: BaseException) -> bool:
    """Whether ``exc``, raised by user code on the model's value, is the model's mistake."""
    if isinstance(exc, (ValueError, TypeError, Invalid)):
        return True
    import cattrs  # cattrs is imported already whenever a hook or converter is in play

    return isinstance(exc, cattrs.BaseValidationError)
