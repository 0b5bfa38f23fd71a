"""Griffe extension for the API reference: render ``.. versionadded::`` lines in Markdown.

The docstrings use the Sphinx directive (the project's docstring style); mkdocstrings
would show it as literal text, so it becomes an italic "Added in version X." line.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_DIRECTIVE = re.compile(r"^([ \t]*)\.\. versionadded:: *(\S+)[ \t]*$", re.MULTILINE)


class VersionAdded(griffe.Extension):
    """Rewrites ``.. versionadded:: X`` in every docstring."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the directive once the object tree is complete."""
        if obj.docstring is not None:
            obj.docstring.value = _DIRECTIVE.sub(r"\1*Added in version \2.*", obj.docstring.value)
