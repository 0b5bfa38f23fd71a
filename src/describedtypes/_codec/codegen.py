"""Pieces of generated decoder source and the helpers it calls at run time."""

from __future__ import annotations

import contextlib
import difflib
import enum
import functools
import keyword
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import attrs

from .._base.text import escape
from .._types import inspector as ni
from .._types import pydantic_models as pyd
from .problems import (
    ABSENT,
    MAX_KEY_FOR_SUGGESTION,
    MAX_SUGGESTIONS,
    Invalid,
    Members,
    RawPath,
    Structure,
    add_missing,
    brief,
    cut,
    fail,
    full,
    listing,
    merge,
    not_one_of,
    quote,
    show,
)
from .values import among


@attrs.frozen
class Compiled:
    """Strictly private: how to decode one node.

    ``fn`` decodes (raising ``Invalid``); ``fast`` is a Python expression over ``{v}``
    that is true when the value is valid *and* already its decoded self, so generated
    code skips the call; None when there is no such shortcut.
    """

    fn: Structure
    fast: str | None = None
    kinds: frozenset[type] = frozenset()
    lenient: frozenset[type] = frozenset()
    #: For a plain ``list[X]``: how to decode X, so object code can loop inline (one
    #: Python frame per level of a recursive type instead of three, and faster).
    items: Compiled | None = None
    #: The name generated code calls it by (objects: resolves even inside a cycle).
    ref: str | None = None
    #: An expression over ``{v}`` giving the decoded value, or ``ABSENT`` (or raising
    #: ValueError) to fall back to ``fn``: lets generated code skip the call for
    #: enums and dates.
    convert: str | None = None


class HookSource:
    """Strictly private: the user's converter hooks that replace the built-in rules."""

    def __init__(self, converter: Any) -> None:
        self.converter = converter
        self._baseline = baseline_of(converter)

    def hook_for(self, tp: Any) -> Callable[[Any, Any], Any] | None:
        try:
            hook = self.converter.get_structure_hook(tp)
        except Exception:  # no hook at all: the built-in rules apply
            return None
        if getattr(hook, "_describedtypes_hook", False):  # make_converter's own hooks
            return None
        try:
            base = self._baseline.get_structure_hook(tp)
        except Exception:
            return hook  # type: ignore[no-any-return]
        if hook_identity(hook) == hook_identity(base):
            return None
        return hook  # type: ignore[no-any-return]


def baseline_of(converter: Any) -> Any:
    import cattrs

    try:
        return type(converter)()
    except Exception:
        return cattrs.Converter()


def hook_identity(hook: Any) -> Any:
    while isinstance(hook, functools.partial):
        hook = hook.func
    func = getattr(hook, "__func__", hook)
    code = getattr(func, "__code__", None)
    if code is None:
        return type(hook)
    if code.co_filename.startswith("<cattrs generated"):
        return "cattrs generated"
    return code



def check_lines(var: str, key: str, fn: str, fast: str | None) -> list[str]:
    body = [
        "try:",
        f"    {var} = {fn}({var})",
        "except Invalid as e:",
        f"    errs = merge(errs, e, {key})",
    ]
    if fast is None or fast == "True":
        return [] if fast == "True" else body
    return [f"if not {fast.format(v=var)}:", *indent(body, 4)]


_ATTEMPTS = threading.local()


def try_remembered(
    candidates: Any, v: Any, refused: Callable[[list[list[list[Any]]]], Invalid] | None = None
) -> Any:
    """Try a union's options on a container, remembering each outcome for this decode.

    A union nested in a union re-decodes the same value once per outer option, which
    is exponential in the nesting depth (a recursive type with an untagged union). Each
    (value, option) outcome is kept while the outermost such union runs, so every
    value is decoded at most once per option.
    """
    memo: dict[tuple[int, int], tuple[Any, Any, list[list[Any]] | None]] | None = getattr(
        _ATTEMPTS, "memo", None
    )
    owner = memo is None
    if memo is None:
        memo = _ATTEMPTS.memo = {}
    try:
        failures: list[list[list[Any]]] = []
        for candidate in candidates:
            key = (id(v), id(candidate))
            seen = memo.get(key)
            if seen is not None:
                if seen[2] is None:
                    return seen[1]
                failures.append(seen[2])
                continue
            try:
                result = candidate(v)
            except Invalid as e:
                # Copied: the caller appends path segments to the items in place.
                problems = [list(item) for item in e.errors]
                memo[key] = (v, None, problems)  # v kept alive so its id stays unique
                failures.append(problems)
                continue
            memo[key] = (v, result, None)
            return result
        if refused is not None:  # the union says what every option found
            raise refused([[list(item) for item in f] for f in failures])
        best = min(failures, key=len)
        raise Invalid([list(item) for item in best])
    finally:
        if owner:
            _ATTEMPTS.memo = None


def call_arguments(constructor: Any, always: dict[str, str]) -> list[str]:
    """Constructor arguments: positional in signature order while possible, then by name."""
    import inspect as pyinspect

    out: list[str] = []
    rest = dict(always)
    try:
        params = list(pyinspect.signature(constructor).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = (pyinspect.Parameter.POSITIONAL_ONLY, pyinspect.Parameter.POSITIONAL_OR_KEYWORD)
    for p in params:
        if p.kind not in positional or p.name not in rest:
            break
        out.append(rest.pop(p.name))
    for name, var in rest.items():
        if name.isidentifier() and not keyword.iskeyword(name):
            out.append(f"{name}={var}")
        else:
            out.append(f"**{{{name!r}: {var}}}")
    return out


def convert_lines(var: str, key: str, fn: str, convert: str) -> list[str]:
    return [
        "try:",
        f"    t = {convert.format(v=var)}",
        "except ValueError:",
        "    t = ABSENT",
        "if t is ABSENT:",
        "    try:",
        f"        {var} = {fn}({var})",
        "    except Invalid as e:",
        f"        errs = merge(errs, e, {key})",
        "else:",
        f"    {var} = t",
    ]


def fast_list_lines(var: str, key: str, fn: str, fast: str) -> list[str]:
    return [
        f"ok = {var}.__class__ is list",
        "if ok:",
        f"    for x in {var}:",
        f"        if not {fast.format(v='x')}:",
        "            ok = False",
        "            break",
        "if ok:",
        f"    {var} = {var}[:]",
        "else:",
        "    try:",
        f"        {var} = {fn}({var})",
        "    except Invalid as e:",
        f"        errs = merge(errs, e, {key})",
    ]


def inline_list_lines(var: str, key: str, fn: str, item: str) -> list[str]:
    # The loop stays in the object's frame. When an item fails, the items after it are
    # checked for their problems too, but no item is decoded twice (see list_problems);
    # a value that is no list goes to the list's own function for its error.
    return [
        f"if {var}.__class__ is list:",
        "    t = []",
        "    try:",
        f"        for x in {var}:",
        f"            t.append({item}(x))",
        f"        {var} = t",
        "    except Invalid as e:",
        "        try:",
        f"            list_problems({item}, {var}, len(t), e)",
        "        except Invalid as e2:",
        f"            errs = merge(errs, e2, {key})",
        "else:",
        "    try:",
        f"        {var} = {fn}({var})",
        "    except Invalid as e:",
        f"        errs = merge(errs, e, {key})",
    ]


def list_problems(item: Structure, v: list[Any], failed: int, exc: Invalid) -> NoReturn:
    """Raise the problems of a list whose item ``failed`` raised ``exc``, with the indexes.

    The items after it are decoded for their own problems; none is decoded twice.
    Decoding a failed item again to collect its problems doubled (tripled, with the
    inline loop) the work per level of a recursive type: a bad leaf 20 levels down took
    minutes.
    """
    errs = merge(None, exc, failed)
    for i in range(failed + 1, len(v)):
        if full(errs):
            break
        try:
            item(v[i])
        except Invalid as e:
            errs = merge(errs, e, i)
    raise Invalid(errs)


def indent(lines: list[str], n: int) -> list[str]:
    pad = " " * n
    return [pad + line for line in lines] if lines else [pad + "pass"]


def safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)[:40]


def expected_kinds(node: ni.UnionNode) -> str:
    names: list[str] = []
    for option in node.options:
        for name in _node_kind_names(option):
            if name not in names:
                names.append(name)
    if len(names) <= 2:
        return " or ".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def node_kind_names(node: ni.Node) -> list[str]:
    """What JSON kinds ``node`` takes, in words (``expected_kinds`` joins them)."""
    return _node_kind_names(node)


def _node_kind_names(node: ni.Node) -> list[str]:
    if isinstance(node, (ni.ObjectNode, ni.UseNode)):
        return ["object"]
    if isinstance(node, ni.ScalarNode):
        return [node.format + " string" if node.format else node.type]
    if isinstance(node, ni.NullNode):
        return ["null"]
    if isinstance(node, (ni.ArrayNode, ni.TupleNode)):
        return ["array"]
    if isinstance(node, ni.DictNode):
        return ["object"]
    if isinstance(node, (ni.EnumNode, ni.LiteralNode)):
        return [f"one of {listing(node.values)}"]
    if isinstance(node, ni.UnionNode):
        return [n for o in node.options for n in _node_kind_names(o)]
    return ["any value"]


def _shown_key(key: Any) -> str:
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, bool):
        return "true" if key else "false"
    return quote(key) if isinstance(key, str) else brief(key)


def repeated_key(key: Any, first: int, first_sent: Any = ABSENT) -> str:
    """``key`` (as sent) decodes to the key entry ``[first]`` sent (as ``first_sent``)."""
    shown = _shown_key(key)
    if first_sent is ABSENT or _same_text(first_sent, key):
        return (
            f"the key {shown} was already sent in entry [{first}]; a dict holds one value "
            "per key, so send each key once"
        )
    return (
        f"the key {shown} is the same key as {_shown_key(first_sent)}, already sent in "
        f"entry [{first}]; a dict holds one value per key, so send each key once"
    )


def same_key(key: Any, first_sent: Any) -> str:
    """Two different keys of one JSON object decode to one dict key."""
    return (
        f"the key {_shown_key(key)} is the same key as {_shown_key(first_sent)}, sent "
        "before it; a dict holds one value per key, so send each key once"
    )


def _same_text(a: Any, b: Any) -> bool:
    return a.__class__ is b.__class__ and a == b


def dict_entry(entry: Any) -> tuple[Any, Any]:
    if not isinstance(entry, Mapping):
        fail(f'expected object {{"key": ..., "value": ...}}, got {show(entry)}')
    errs: list[list[Any]] | None = None
    for name in ("key", "value"):
        if name not in entry:
            errs = add_missing(errs, name, "missing required field")
    for extra in entry:
        if extra not in ("key", "value"):
            errs = add_missing(errs, extra, 'unknown field; an entry has only "key" and "value"')
    if errs is not None:
        raise Invalid(errs)
    return entry["key"], entry["value"]


def object_chooser(
    pairs: list[tuple[ni.Node, Structure]],
) -> Callable[[Any], list[Structure]] | None:
    """Picks which of a union's object options to try for a JSON object.

    A Literal (or single-valued Enum) field whose values tell the classes apart decides
    alone; otherwise the classes whose required keys are present and which know every
    key are tried in order. When none fits, the closest one is decoded, for its errors.
    """
    objects = [(ni.object_of(option), fn) for option, fn in pairs]
    shaped = [(o, fn) for o, fn in objects if o is not None]
    if len(shaped) < 2:
        return None
    others = [fn for o, fn in objects if o is None]
    tag = _find_tag([o for o, _ in shaped])
    shapes = [
        (
            frozenset(f.key for f in o.fields if not f.has_default and not f.nullable),
            frozenset(f.key for f in o.fields),
            fn,
        )
        for o, fn in shaped
    ]
    order = [fn for _, fn in pairs]
    tag_key: Any = ABSENT
    tags = Members([])
    if tag is not None:
        tag_key, per_option = tag
        tags = Members(
            [
                (value, fn)
                for (_, fn), values in zip(shaped, per_option, strict=True)
                for value in values
            ]
        )

    def choose(v: dict[Any, Any]) -> list[Structure]:
        if tag is not None:
            found = v.get(tag_key, ABSENT)
            if found is not ABSENT:
                fn = tags.get(found, None)
                if fn is None:
                    raise Invalid([[not_one_of(found, tags.values), tag_key]])
                return [fn]
        keys = v.keys()
        fitting = {fn for required, known, fn in shapes if required <= keys and keys <= known}
        chosen = [fn for fn in order if fn in fitting or fn in others]
        if chosen:
            return chosen
        best = min(shapes, key=lambda s: len(s[0] - keys) + len(keys - s[1]))
        return [best[2]]

    return choose


def _find_tag(objects: list[ni.ObjectNode]) -> tuple[str, list[tuple[Any, ...]]] | None:
    common = set.intersection(*({f.key for f in o.fields} for o in objects))
    for key in [f.key for f in objects[0].fields if f.key in common]:
        per_option: list[tuple[Any, ...]] = []
        for o in objects:
            f = o.field(key)
            node = f.node
            if f.has_default or f.nullable:
                break
            if isinstance(node, (ni.LiteralNode, ni.EnumNode)):
                per_option.append(node.values)
            else:
                break
        else:
            seen: list[Any] = []
            clash = False
            for values in per_option:
                for value in values:
                    if among(value, tuple(seen)):
                        clash = True
                    seen.append(value)
            if not clash:
                return key, per_option
    return None


@attrs.frozen
class _Hints:
    """Strictly private: what an object's unknown-key messages draw on."""

    keys: tuple[str, ...]
    by_name: dict[str, str]
    label: str
    accepted: str
    always_list: bool
    wrapper: str


def unknown_hints(node: ni.ObjectNode, noun: str) -> _Hints:
    keys = tuple(f.key for f in node.fields)
    by_name = {f.name: f.key for f in node.fields if f.name != f.key}
    listed = ", ".join(keys[:20]) + (", …" if len(keys) > 20 else "") if keys else "(none)"
    if noun == "argument":
        return _Hints(
            keys, by_name, "unknown argument", f"accepted parameters: {listed}", True,
            "it wraps the arguments themselves; send them at the top level, unwrapped",
        )
    return _Hints(
        keys, by_name, "unknown field", f"accepted fields: {listed}", False,
        "it wraps this object's own fields; send them here, unwrapped",
    )


def unknown(
    d: dict[Any, Any],
    known: frozenset[str],
    hints: _Hints,
    errs: list[list[Any]] | None,
) -> list[list[Any]] | None:
    suggested = 0
    for k in d:
        with contextlib.suppress(TypeError):  # an unhashable key is simply unknown
            if k in known:
                continue
        message = hints.label
        close: str | None = None
        if isinstance(k, str):
            close = hints.by_name.get(k)
            if (
                close is None
                and len(k) <= MAX_KEY_FOR_SUGGESTION
                and suggested < MAX_SUGGESTIONS
            ):
                suggested += 1
                found = difflib.get_close_matches(k, hints.keys, n=1, cutoff=0.6)
                close = found[0] if found else None
        if close is not None:
            message += f"; did you mean {close!r}?"
        elif _wraps(d[k], known):  # {"properties": {...}}, {"arguments": {...}}
            message += "; " + hints.wrapper
        if hints.always_list or close is None:
            message += f" ({hints.accepted})"
        errs = add_missing(errs, k, message)
        if full(errs):
            cut(errs)
            break
    return errs


def _wraps(value: Any, known: frozenset[str]) -> bool:
    """Whether ``value`` is an object holding only keys of the object it was sent inside."""
    if not isinstance(value, Mapping) or not value or len(value) > len(known):
        return False
    return all(isinstance(k, str) and k in known for k in value)


def _exception_text(exc: BaseException) -> str:
    """What an exception from user code says: on one line, at most 200 characters.

    Never raises (an exception whose ``__str__`` raises is described by its type), and
    line breaks are escaped so the text cannot pose as further lines of an error list.
    """
    try:
        text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    except Exception:
        try:
            text = f"{type(exc).__name__} (its message could not be read)"
        except Exception:
            text = "an exception whose message could not be read"
    # str() may return a str subclass; line breaks escaped.
    text = escape(str.__str__(text)[:201])
    return text[:200] + "…" if len(text) > 200 else text


def ctor_errors(exc: BaseException, fields: dict[str, str]) -> list[list[Any]]:
    """The problem a constructor (attrs validators, ``__post_init__``) reported."""
    validated = model_errors(exc, fields)  # a pydantic dataclass's ValidationError
    if validated is not None:
        return validated
    text = _exception_text(exc)
    key: str | None = None
    for arg in exc.args[1:]:
        if isinstance(arg, attrs.Attribute) and arg.name in fields:
            key = fields[arg.name]
            break
    if key is None:
        m = re.match(r"'([A-Za-z_][A-Za-z0-9_]*)'", text)
        if m and m.group(1) in fields:
            key = fields[m.group(1)]
    item: list[Any] = [f"invalid value: {text}"]
    if key is not None:
        item.append(key)
    return [item]


def model_errors(exc: BaseException, keys: dict[Any, str]) -> list[list[Any]] | None:
    """The problems a pydantic model's own validation (its validators) reported.

    ``keys`` maps what pydantic names a field by in an error's location (the key the
    value was passed by, or the field name) to the JSON key the model sent it as. None
    when ``exc`` is not a ``ValidationError``: the exception propagates.
    """
    found = pyd.validation_problems(exc)
    if found is None:
        return None
    errs: list[list[Any]] = []
    for loc, message in found:
        item: list[Any] = [f"invalid value: {escape(message[:200])}"]
        path = list(loc)
        if path and path[0] in keys:
            path[0] = keys[path[0]]
        item.extend(reversed(path))
        errs.append(item)
    return errs or [["invalid value: the model's validation refused it"]]


def hook_errors(exc: BaseException) -> list[list[Any]]:
    """The problems a user's cattrs hook raised, with cattrs' own paths kept."""
    import cattrs

    if isinstance(exc, Invalid):
        return exc.errors
    if isinstance(exc, cattrs.BaseValidationError):
        out: list[list[Any]] = []
        for line in cattrs.transform_error(exc, path="$"):
            message, _, where = line.rpartition(" @ ")
            if not message:
                message, where = where, "$"
            item: list[Any] = [message[:200]]
            suffix = where[1:]
            if suffix:
                item.append(RawPath(suffix))
            out.append(item)
        return out
    return [[f"invalid value: {_exception_text(exc)}"]]
