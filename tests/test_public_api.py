"""The public surface: every exported name exists, and nothing private leaks."""

from __future__ import annotations

import importlib.metadata

import describedtypes


def test_all_is_sorted_and_resolves() -> None:
    """__all__ is sorted case-sensitively and every name in it exists."""
    assert describedtypes.__all__ == sorted(describedtypes.__all__)
    for name in describedtypes.__all__:
        assert getattr(describedtypes, name) is not None


def test_spec_names_are_exported() -> None:
    """The names the public API promises are importable from the top level."""
    promised = {
        "Annotation", "annotate", "schema", "decode", "encode", "STANDARD", "OPENAI",
        "OPENAI_TOOLS", "OPENAI_CHAT_TOOLS", "ANTHROPIC_TOOLS", "ANTHROPIC", "GEMINI",
        "MCP_TOOLS", "Context", "Tool", "Toolbox", "ToolResult", "DescribedTypesError",
        "SchemaError", "DecodeError", "ArgumentError",
    }
    assert promised <= set(describedtypes.__all__)


def test_version_comes_from_the_installed_metadata() -> None:
    """__version__ is the installed distribution's version."""
    assert describedtypes.__version__ == importlib.metadata.version("describedtypes")


def test_errors_subclass_the_builtins_callers_catch() -> None:
    """SchemaError is a TypeError, DecodeError and ArgumentError are ValueErrors."""
    assert issubclass(describedtypes.SchemaError, TypeError)
    assert issubclass(describedtypes.DecodeError, ValueError)
    assert issubclass(describedtypes.ArgumentError, ValueError)
    for name in ("SchemaError", "DecodeError", "ArgumentError"):
        assert issubclass(getattr(describedtypes, name), describedtypes.DescribedTypesError)


def test_public_names_are_shown_under_the_package() -> None:
    """Public classes and functions say describedtypes, not the private module defining them."""
    import types
    import typing

    for name in describedtypes.__all__:
        obj = getattr(describedtypes, name)
        if isinstance(obj, types.GenericAlias):  # a type alias such as ParseArgs
            continue
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__code__")):
            assert obj.__module__ in ("describedtypes", "describedtypes.errors"), name
        if isinstance(obj, type):
            typing.get_type_hints(obj)  # annotations still resolve after the move


def test_public_names_pickle_by_their_public_path() -> None:
    """A record made by the library pickles and unpickles through describedtypes.X."""
    import pickle

    call = describedtypes.ToolCall("weather", '{"city": "Bern"}', "c1")
    assert pickle.loads(pickle.dumps(call)) == call
    result = describedtypes.ToolResult(content="ok", call_id="c1", name="weather")
    assert pickle.loads(pickle.dumps(result)) == result


def test_lazy_table_matches_the_type_checking_imports() -> None:
    """Each public name is read, on first use, from the module the type checkers are shown
    (the ``if TYPE_CHECKING:`` imports in __init__.py), and __all__ lists exactly those names."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(describedtypes.__file__).read_text(encoding="utf-8"))
    guarded = next(
        node for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    )
    shown = {
        alias.name: "." + node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    assert shown == describedtypes._WHERE
    assert sorted(shown) == describedtypes.__all__


def test_names_loaded_by_another_name_are_shown_under_the_package() -> None:
    """A public class that a first-read name brought in with it (Usage, with extract) is
    shown under describedtypes before it is read from the package itself."""
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(describedtypes.__file__).resolve().parents[1])
    code = (
        f"import sys; sys.path.insert(0, {src!r})\n"
        "import describedtypes\n"
        "describedtypes.extract\n"
        "from describedtypes._base.usage import Usage\n"
        "print(Usage.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "describedtypes"


def test_dir_lists_every_public_name_before_it_is_read() -> None:
    """dir(describedtypes) shows every public name, loaded or not."""
    assert set(describedtypes.__all__) <= set(dir(describedtypes))
