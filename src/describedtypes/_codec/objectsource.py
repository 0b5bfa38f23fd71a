"""The generated source of one class's structure function (or a function's arguments).

The decoder compiler (``_compile``) compiles each field's type and hands the results to
``object_source``, which writes the Python function that reads a JSON object into the
class: required fields with ``d[key]``, optional ones with ``d.get``, one constructor
call at the end, and every problem collected on the way.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from .._types import declared
from .._types import inspector as ni
from .._types import kinds as mt
from .._types import pydantic_models as pyd
from .codegen import (
    Compiled,
    call_arguments,
    check_lines,
    convert_lines,
    fast_list_lines,
    indent,
    inline_list_lines,
    unknown_hints,
)
from .values import allows_null, constructor_of

__all__ = ["fused_lines", "object_source"]


def object_source(
    node: ni.ObjectNode,
    fname: str,
    *,
    arguments: bool,
    compile_node: Callable[[ni.Node], Compiled],
    name: Callable[[str, Any], str],
) -> str:
    """The source of one object's structure function (or a function's arguments).

    Fields the model must send are read with ``d[key]``; optional ones with
    ``d.get``. In class mode every field whose value is always known (sent, null
    for an absent nullable field, or a plain default) is passed to the constructor,
    positionally where its signature allows (much cheaper than keywords); fields
    with a factory default are passed only when sent, so the class makes its own.
    In argument mode only what the model sent is returned.
    """
    lines = [
        f"def {fname}(d):",
        "    if d.__class__ is not dict:",
        "        d = as_object(d)",
        "    errs = None",
    ]
    required = 0
    always: dict[str, str] = {}  # init_name -> variable, passed on every call
    uses_kw = arguments
    noun = "argument" if arguments else "field"
    missing = name("_msg", f"missing required {noun}")
    for i, f in enumerate(node.fields):
        compiled = compile_node(f.node)
        fn = compiled.ref or name("_f", compiled.fn)
        key = repr(f.key)
        var = f"v{i}"
        items = compiled.items
        if items is not None and items.fast is not None:
            check = fast_list_lines(var, key, fn, items.fast)
        elif items is not None:
            item_name = items.ref or name("_i", items.fn)
            check = inline_list_lines(var, key, fn, item_name)
        elif compiled.convert is not None:
            check = convert_lines(var, key, fn, compiled.convert)
        else:
            check = check_lines(var, key, fn, compiled.fast)
        if not f.has_default and not f.nullable:
            required += 1
            lines += [
                "    try:",
                f"        {var} = d[{key}]",
                "    except KeyError:",
                f"        errs = add_missing(errs, {key}, {missing})",
                "    else:",
                *indent(check, 8),
            ]
            if arguments:
                lines.append(f"        kw[{f.init_name!r}] = {var}")
            else:
                always[f.init_name] = var
            continue
        plain_default = (
            f.default_factory is None
            and f.default is not declared.TAKES_SELF
            and f.default is not declared.ABSENT
            and f.has_default
        )
        # null for a field that only has a default: say how to get the default.
        null_lines = []
        if f.default is declared.ABSENT and not allows_null(f.node):
            # A TypedDict key that may be left out: null leaves it out (the strict
            # adapters, where every key is sent, spell "left out" as null).
            null_lines = [
                f"    elif {var} is None:",
                "        n += 1",
            ]
        elif not allows_null(f.node):
            null_msg = name(
                "_msg", f"null is not allowed; leave the {noun} out to use its default"
            )
            null_lines = [
                f"    elif {var} is None:",
                "        n += 1",
                f"        errs = add_missing(errs, {key}, {null_msg})",
            ]
        if arguments or not (plain_default or not f.has_default):
            # Passed only when sent: the function's or the factory's default applies.
            uses_kw = True
            lines += [
                f"    {var} = d.get({key}, ABSENT)",
                f"    if {var} is ABSENT:",
                "        pass",
                *null_lines,
                "    else:",
                "        n += 1",
                *indent(check, 8),
                f"        kw[{f.init_name!r}] = {var}",
            ]
            continue
        absent = "None" if not f.has_default else name("_d", f.default)
        lines += [
            f"    {var} = d.get({key}, ABSENT)",
            f"    if {var} is ABSENT:",
            f"        {var} = {absent}",
            *null_lines,
            "    else:",
            "        n += 1",
            *indent(check, 8),
        ]
        always[f.init_name] = var
    if uses_kw:
        lines.insert(4, "    kw = {}")
    lines.insert(4, f"    n = {required}")
    known = name("_k", frozenset(f.key for f in node.fields))
    hints = name("_h", unknown_hints(node, noun))
    lines += [
        "    if errs is not None or n != len(d):",
        f"        errs = unknown(d, {known}, {hints}, errs)",
        "        if errs is not None:",
        "            raise Invalid(errs)",
    ]
    if arguments:
        lines.append("    return kw")
        return "\n".join(lines) + "\n"
    constructor = constructor_of(node.python_type)
    build = pyd.model_builder(constructor)
    if build is not None:
        return "\n".join(lines + _model_call(node, build, always, uses_kw, name)) + "\n"
    if mt.is_typeddict(constructor):
        constructor = dict  # what calling the TypedDict makes, without the detour
    cls = name("_cls", constructor)
    fields = name("_fm", {f.name: f.key for f in node.fields})
    # A pydantic dataclass names a field by its position when it was passed by position:
    # by name, its errors say which field.
    by_name = pyd.is_pydantic_dataclass(constructor)
    call_args = call_arguments(None if by_name else constructor, always)
    if uses_kw:
        call_args.append("**kw")
    lines += [
        "    try:",
        f"        return {cls}({', '.join(call_args)})",
        "    except RecursionError:",
        "        raise",
        "    except Exception as exc:",
        "        if not is_model_mistake(exc):",
        "            raise",
        f"        raise Invalid(ctor_errors(exc, {fields})) from None",
    ]
    return "\n".join(lines) + "\n"


def _model_call(
    node: ni.ObjectNode,
    build: Callable[[dict[str, Any]], Any],
    always: dict[str, str],
    uses_kw: bool,
    name: Callable[[str, Any], str],
) -> list[str]:
    """A pydantic model is built by ``model_validate`` from the checked values, so its
    validators run; what its validation refuses is the model's mistake, by field."""
    entries = [f"{init!r}: {var}" for init, var in always.items()]
    if uses_kw:
        entries.append("**kw")
    keys: dict[str, str] = {f.name: f.key for f in node.fields}
    keys.update({f.init_name: f.key for f in node.fields})
    return [
        "    try:",
        f"        return {name('_cls', build)}({{{', '.join(entries)}}})",
        "    except Exception as exc:",
        f"        errs = model_errors(exc, {name('_fm', keys)})",
        "        if errs is None:",
        "            raise",
        "        raise Invalid(errs) from None",
    ]



#: The most parameters with a default a fused call branches on (2**n calls in its source);
#: past them, those the model sent are passed through a dict.
MAX_BRANCHED_DEFAULTS = 3


def fused_lines(
    node: ni.ObjectNode,
    *,
    compile_node: Callable[[ni.Node], Compiled],
    name: Callable[[str, Any], str],
    slow: str,
) -> tuple[list[str], list[str]] | None:
    """A function's argument check fused with its call, for arguments that need no
    decoding: ``(checks, call)``, or None when some parameter's type has no such check.

    ``checks`` (lines at no indent) read the parsed JSON object ``d``; when an argument
    is not already its decoded self (some parameter's ``Compiled.fast`` fails), a
    required one is missing or there is another key, they run the statement ``slow``
    (which must leave: the decoder's turn), having run nothing but class checks and
    comparisons. ``call`` (lines at no indent) then sets ``value = func(...)``, the
    arguments passed by keyword: exactly the keywords the decoder's ``kw`` and a tool's
    filling in would give (a parameter that may be None and has no default gets None
    when left out; ``Context`` parameters get ``context``), without building a dict.
    """
    required: list[tuple[str, str, str]] = []  # (key, var, check)
    always: list[tuple[str, str]] = []  # (init_name, var) passed on every call
    optional: list[tuple[str, str]] = []  # (init_name, var) passed only when sent
    body: list[str] = []
    names = [f.init_name for f in node.fields] + list(node.context_params)
    if not all(n.isidentifier() and not keyword.iskeyword(n) for n in names):
        return None
    for i, f in enumerate(node.fields):
        fast = compile_node(f.node).fast
        if fast is None:
            return None
        var = f"v{i}"
        key = repr(f.key)
        check = None if fast == "True" else fast.format(v=var)
        if not f.has_default and not f.nullable:
            required.append((key, var, f"({check})" if check else ""))
            always.append((f.init_name, var))
            continue
        if not allows_null(f.node):  # null is the decoder's to answer (or leave out)
            check = f"{var} is not None" + (f" and {check}" if check else "")
        check = f"({check})" if check else None
        body += [f"{var} = d.get({key}, ABSENT)"]
        if f.has_default:  # passed only when sent: the function's default applies
            body += [f"if {var} is not ABSENT:"]
            if check:
                body += [f"    if not {check}:", f"        {slow}"]
            body += ["    n += 1"]
            optional.append((f.init_name, var))
        else:  # may be None and has no default: None when left out
            body += [f"if {var} is ABSENT:", f"    {var} = None"]
            if check:
                body += [f"elif not {check}:", f"    {slow}"]
            body += ["else:", "    n += 1"]
            always.append((f.init_name, var))
    checks: list[str] = []
    if required:
        checks += ["try:", *[f"    {var} = d[{key}]" for key, var, _ in required]]
        checks += ["except KeyError:", f"    {slow}"]
    checks += [f"n = {len(required)}", *body]
    tests = ["n != len(d)"] + [f"not {check}" for _, _, check in required if check]
    checks += [f"if {' or '.join(tests)}:", f"    {slow}"]
    fixed = [f"{init}={var}" for init, var in always]
    fixed += [f"{param}=context" for param in node.context_params]
    if len(optional) <= MAX_BRANCHED_DEFAULTS:
        return checks, _branched_calls(fixed, optional, 0)
    call = ["kw = {}"]
    for init, var in optional:
        call += [f"if {var} is not ABSENT:", f"    kw[{init!r}] = {var}"]
    return checks, [*call, f"value = func({', '.join([*fixed, '**kw'])})"]


def _branched_calls(fixed: list[str], optional: list[tuple[str, str]], pad: int) -> list[str]:
    """One call per combination of the parameters with a default sent or left out."""
    space = " " * pad
    if not optional:
        return [f"{space}value = func({', '.join(fixed)})"]
    (init, var), rest = optional[0], optional[1:]
    return [
        f"{space}if {var} is ABSENT:",
        *_branched_calls(fixed, rest, pad + 4),
        f"{space}else:",
        *_branched_calls([*fixed, f"{init}={var}"], rest, pad + 4),
    ]
