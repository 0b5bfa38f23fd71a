"""The decoder compiler: one generated Python function per class of a node tree."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

from .._base.generated import run_source
from .._types import inspector as ni
from .._types.nodes import closed_keys_as_object, hook_type
from ..errors import SchemaError
from .codegen import (
    Compiled,
    HookSource,
    ctor_errors,
    dict_entry,
    expected_kinds,
    hook_errors,
    list_problems,
    model_errors,
    node_kind_names,
    object_chooser,
    repeated_key,
    safe_name,
    same_key,
    try_remembered,
    unknown,
)
from .mistakes import is_model_mistake
from .objectsource import fused_lines, object_source
from .problems import (
    ABSENT,
    JSON_CLASSES,
    MORE,
    Invalid,
    Members,
    Structure,
    add_missing,
    classify,
    fail,
    full,
    merge,
    not_one_of,
    show,
    value_kinds,
)
from .scalar_decoders import compile_scalar
from .unions import union_failure
from .values import (
    among,
    as_array,
    as_object,
    enum_value_check,
    length_checks,
    plain_json,
    wrapped_hint,
)


class Compiler:
    """Strictly private: turns one node tree into structure functions."""

    def __init__(self, hooks: HookSource | None = None, *, exact: bool = False) -> None:
        #: The reply is parsed with exact numbers (a Decimal in the tree): values under
        #: ``Any`` are given back as plain JSON values, never the parser's exact ones.
        self.exact = exact
        self.ns: dict[str, Any] = {
            "Invalid": Invalid,
            "merge": merge,
            "add_missing": add_missing,
            "ABSENT": ABSENT,
            "as_object": as_object,
            "as_array": as_array,
            "unknown": unknown,
            "ctor_errors": ctor_errors,
            "model_errors": model_errors,
            "is_model_mistake": is_model_mistake,
            "list_problems": list_problems,
        }
        self.hooks = hooks
        self.hooked_types: list[Any] = []
        self._names = 0
        self._objects: dict[ni.ObjectNode, str] = {}
        self._done: dict[ni.ObjectNode, Compiled] = {}

    def name(self, prefix: str, value: Any) -> str:
        self._names += 1
        key = f"{prefix}{self._names}"
        self.ns[key] = value
        return key

    # -- dispatch ----------------------------------------------------------------

    def compile(self, node: ni.Node) -> Compiled:
        if isinstance(node, ni.UseNode):
            node = node.target
        hooked = self._hooked(node)
        if hooked is not None:
            return hooked
        if isinstance(node, ni.ObjectNode):
            return self.object(node)
        if isinstance(node, ni.ScalarNode):
            return self.scalar(node)
        if isinstance(node, ni.NullNode):
            return self.null()
        if isinstance(node, ni.AnyNode):
            return self.anything(node)
        if isinstance(node, ni.EnumNode):
            return self.enumeration(node)
        if isinstance(node, ni.LiteralNode):
            return self.literal(node)
        if isinstance(node, ni.ArrayNode):
            return self.array(node)
        if isinstance(node, ni.TupleNode):
            return self.fixed_tuple(node)
        if isinstance(node, ni.DictNode):
            return self.mapping(node)
        if isinstance(node, ni.UnionNode):
            return self.union(node)
        msg = f"unknown node {node!r}"
        raise AssertionError(msg)

    def _hooked(self, node: ni.Node) -> Compiled | None:
        """The user's hook for the node's type, if the user's converter has its own."""
        if self.hooks is None:
            return None
        if isinstance(node, ni.ObjectNode) and (node in self._done or node in self._objects):
            return self._done.get(node)  # decided already (or being compiled)
        tp = hook_type(node)
        if tp is None:
            return None
        hook = self.hooks.hook_for(tp)
        self.hooked_types.append(tp)
        if hook is None:
            return None

        def call_hook(value: Any) -> Any:
            try:
                return hook(value, tp)
            except RecursionError:
                raise
            except Exception as exc:
                if not is_model_mistake(exc):
                    raise  # not the model's doing: the caller's to see, never the model's
                raise Invalid(hook_errors(exc)) from None

        everything = frozenset(JSON_CLASSES)
        compiled = Compiled(call_hook, None, everything)
        if isinstance(node, ni.ObjectNode):
            self._done[node] = compiled
        return compiled

    def scalar(self, node: ni.ScalarNode) -> Compiled:
        return compile_scalar(node, self.name)

    def null(self) -> Compiled:
        def fn(v: Any) -> Any:
            if v is not None:
                raise Invalid([[f"expected null, got {show(v)}"]])

        return Compiled(fn, "{v} is None", frozenset({type(None)}))

    def anything(self, node: ni.AnyNode) -> Compiled:
        if node.enum is None and not self.exact:
            return Compiled(lambda v: v, "True", frozenset(JSON_CLASSES))
        check = enum_value_check(node.enum) if node.enum is not None else None
        plain = plain_json if self.exact else None

        def fn(v: Any) -> Any:
            if plain is not None:
                v = plain(v)
            found = check(v) if check is not None else None
            if found is not None:
                fail(found)
            return v

        return Compiled(fn, None, frozenset(JSON_CLASSES))

    def enumeration(self, node: ni.EnumNode) -> Compiled:
        members = Members([(m.value, m) for m in node.cls])
        allowed = node.enum
        values = node.values
        if allowed is not None:
            values = tuple(v for v in values if among(v, allowed))
            members = Members(
                [
                    (v, m)
                    for v, m in zip(members.values, node.cls, strict=True)
                    if among(v, allowed)
                ]
            )

        cls = node.cls
        own = frozenset(m for m in cls if m.value in values)

        def fn(v: Any) -> Any:
            found = members.get(v, ABSENT)
            if found is ABSENT:
                if isinstance(v, cls) and v in own:  # parsed input holding the member
                    return v
                fail(not_one_of(v, values))
            return found

        convert = None
        for kind in (str, int):
            if values and all(type(v) is kind for v in values):
                table = self.name("_em", dict(members.others))
                convert = (
                    f"({table}.get({{v}}, ABSENT) "
                    f"if {{v}}.__class__ is {kind.__name__} else ABSENT)"
                )
        return Compiled(fn, None, *value_kinds(values), convert=convert)

    def literal(self, node: ni.LiteralNode) -> Compiled:
        pairs = list(zip(node.values, node.python_values, strict=True))
        if node.enum is not None:
            pairs = [(v, p) for v, p in pairs if among(v, node.enum)]
        members = Members(pairs)
        values = members.values

        def fn(v: Any) -> Any:
            found = members.get(v, ABSENT)
            if found is ABSENT:
                fail(not_one_of(v, values))
            return found

        fast = None
        if all(type(v) is str for v in values) and all(type(p) is str for _, p in pairs):
            fast = f"({{v}}.__class__ is str and {{v}} in {self.name('_l', frozenset(values))})"
        return Compiled(fn, fast, *value_kinds(values))

    # -- containers --------------------------------------------------------------

    def array(self, node: ni.ArrayNode) -> Compiled:
        item = self.compile(node.items)
        checks = length_checks(node.constraints, "items")
        container = node.container
        unique = node.unique or container in (set, frozenset)
        item_fn = item.fn
        flag = issubclass(container, enum.Flag)

        def length(v: list[Any]) -> None:
            problems = [m for m in (check(v) for check in checks) if m is not None]
            if problems:
                raise Invalid([[p] for p in problems])

        def collect(v: list[Any]) -> list[Any]:
            out: list[Any] = []
            errs: list[list[Any]] | None = None
            for i, x in enumerate(v):
                try:
                    out.append(item_fn(x))
                except Invalid as e:
                    errs = merge(errs, e, i)
                    if full(errs):
                        break
            if errs is not None:
                raise Invalid(errs)
            return out

        def finish(out: list[Any]) -> Any:
            if container is list:
                return out
            if flag:  # the names of a Flag's members: their combination
                if len(set(out)) != len(out):
                    fail("the items must be unique")
                combined = container(0)
                for member in out:
                    combined |= member
                return combined
            if not unique:
                return container(out)
            try:
                made = container(out)
            except TypeError as exc:
                fail(f"the items cannot be kept in a set ({exc}); decode into a list instead")
            if len(made) != len(out):
                fail("the items must be unique")
            return made

        if item.fast is not None and container is list and not checks:
            check = item.fast.format(v="x")
            name = f"_array{self._names}"
            src = (
                f"def {name}(v):\n"
                "    if v.__class__ is not list:\n"
                "        v = as_array(v)\n"
                "    for x in v:\n"
                f"        if not {check}:\n"
                "            return _collect(v)\n"
                "    return v[:]\n"
            )
            fn = self._exec(name, src, "array", {"_collect": collect})
            return Compiled(fn, None, frozenset({list}), items=item)

        def general(v: Any) -> Any:
            if v.__class__ is not list:
                if flag and isinstance(v, container):  # parsed input holding the value
                    return v
                v = as_array(v)
            if checks:
                length(v)
            out: list[Any] = []
            append = out.append
            try:
                for x in v:
                    append(item_fn(x))
            except Invalid as e:
                list_problems(item_fn, v, len(out), e)
            return finish(out)

        inline = item if container is list and not checks else None
        return Compiled(general, None, frozenset({list}), items=inline)

    def fixed_tuple(self, node: ni.TupleNode) -> Compiled:
        items = [self.compile(i).fn for i in node.items]
        n = len(items)

        def fn(v: Any) -> Any:
            if v.__class__ is not list:
                v = as_array(v)
            if len(v) != n:
                fail(f"expected an array of exactly {n} items, got {len(v)}")
            out: list[Any] = []
            errs: list[list[Any]] | None = None
            for i, (f, x) in enumerate(zip(items, v, strict=True)):
                try:
                    out.append(f(x))
                except Invalid as e:
                    errs = merge(errs, e, i)
            if errs is not None:
                raise Invalid(errs)
            return tuple(out)

        return Compiled(fn, None, frozenset({list}))

    def mapping(self, node: ni.DictNode) -> Compiled:
        key = self.compile(node.keys)
        value = self.compile(node.values)
        key_fn, value_fn = key.fn, value.fn
        plain_keys = key.fast == "{v}.__class__ is str"
        container = node.container
        # Strict adapters send a dict of closed keys as an object with every key, null for
        # a key not in the dict (its values cannot be null): such a null is no entry.
        null_is_absent = closed_keys_as_object(node)

        def from_object(v: dict[Any, Any]) -> Any:
            out: dict[Any, Any] = {}
            sent: dict[Any, Any] | None = None  # decoded key -> the text that sent it
            errs: list[list[Any]] | None = None
            for k, x in v.items():
                if x is None and null_is_absent:
                    continue
                if not plain_keys or k.__class__ is not str:
                    try:
                        k2 = key_fn(k)
                    except Invalid as e:
                        for item in e.errors:
                            if item[0] is not MORE:
                                item[0] = "invalid key: " + item[0]
                        errs = merge(errs, e, k)
                        if full(errs):
                            break
                        continue
                    # Two different texts for one key ("1.5" and "1.50" for a Decimal): the
                    # second value would silently replace the first, as in the entries form.
                    if sent is None:
                        sent = {}
                    first = sent.setdefault(k2, k)
                    if first is not k:
                        errs = merge(errs, Invalid([[same_key(k, first)]]), k)
                        if full(errs):
                            break
                        continue
                else:
                    k2 = k
                try:
                    out[k2] = value_fn(x)
                except Invalid as e:
                    errs = merge(errs, e, k)
                    if full(errs):
                        break
            if errs is not None:
                raise Invalid(errs)
            return out if container is dict else container(out)

        def from_entries(v: list[Any]) -> Any:
            out: dict[Any, Any] = {}
            first: dict[Any, int] = {}  # key -> index of the entry that sent it
            texts: dict[int, Any] = {}  # that entry's key as sent
            errs: list[list[Any]] | None = None
            for i, entry in enumerate(v):
                if errs is not None and full(errs):
                    break
                try:
                    k, x = dict_entry(entry)
                except Invalid as e:
                    errs = merge(errs, e, i)
                    continue
                problems: list[list[Any]] | None = None
                raw = k
                try:
                    k = key_fn(k)
                except Invalid as e:
                    problems = merge(problems, e, "key")
                else:
                    seen = first.get(k)
                    if seen is None:
                        first[k] = i
                        texts[i] = raw
                    else:
                        # A second value for a key would silently replace the first.
                        problems = add_missing(
                            problems, "key", repeated_key(raw, seen, texts[seen])
                        )
                try:
                    x = value_fn(x)
                except Invalid as e:
                    problems = merge(problems, e, "value")
                if problems is not None:
                    errs = merge(errs, Invalid(problems), i)
                    continue
                out[k] = x
            if errs is not None:
                raise Invalid(errs)
            return out if container is dict else container(out)

        def fn(v: Any) -> Any:
            if v.__class__ is dict:
                return from_object(v)
            if isinstance(v, Mapping):
                return from_object(dict(v))
            if isinstance(v, (list, tuple)):
                return from_entries(list(v))
            raise Invalid([[f"expected object, got {show(v)}{wrapped_hint(v, '{')}"]])

        return Compiled(fn, None, frozenset({dict}), frozenset({list}))

    # -- unions ------------------------------------------------------------------

    def union(self, node: ni.UnionNode) -> Compiled:
        options = [(o, self.compile(o)) for o in node.options]
        if node.nullable and len(options) == 2:
            inner = next(c for o, c in options if not isinstance(o, ni.NullNode))
            inner_fn = inner.fn
            fast = None if inner.fast is None else f"({{v}} is None or {inner.fast})"
            convert = None
            if inner.convert is not None:
                convert = f"(None if {{v}} is None else {inner.convert})"

            def nullable(v: Any) -> Any:
                return None if v is None else inner_fn(v)

            return self._with_enum(
                node,
                Compiled(
                    nullable, fast, inner.kinds | {type(None)}, inner.lenient, convert=convert
                ),
            )
        exact: dict[type, list[tuple[ni.Node, Structure]]] = {c: [] for c in JSON_CLASSES}
        loose: dict[type, list[tuple[ni.Node, Structure]]] = {c: [] for c in JSON_CLASSES}
        for option, compiled in options:
            for cls in JSON_CLASSES:
                if cls in compiled.kinds:
                    exact[cls].append((option, compiled.fn))
                elif cls in compiled.lenient:
                    loose[cls].append((option, compiled.fn))
        table: dict[type, tuple[Structure, ...]] = {}
        choosers: dict[type, Callable[[Any], list[Structure]]] = {}
        for cls in JSON_CLASSES:
            pairs = exact[cls] + loose[cls]
            table[cls] = tuple(fn for _, fn in pairs)
            if cls is dict:
                chooser = object_chooser(pairs)
                if chooser is not None:
                    choosers[cls] = chooser
        expected = expected_kinds(node)
        # For each JSON kind, the options that do not read it: named when all that do fail.
        untried: dict[type, list[str]] = {}
        for cls in JSON_CLASSES:
            taking = {id(o) for o, _ in exact[cls] + loose[cls]}
            names: list[str] = []
            for o, _ in options:
                if id(o) not in taking:
                    names += [n for n in node_kind_names(o) if n not in names]
            untried[cls] = names

        def refused(cls: Any, failures: list[list[list[Any]]]) -> Invalid:
            return union_failure(failures, untried.get(cls, ()), expected)

        def fn(v: Any) -> Any:
            cls = classify(v)
            candidates: Any = table.get(cls, ()) if cls is not None else ()
            if not candidates:
                fail(f"expected {expected}, got {show(v)}")
            if cls is dict and choosers:
                candidates = choosers[dict](v)
            if len(candidates) == 1:
                if not untried.get(cls):  # type: ignore[arg-type]  # cls: set, not None
                    return candidates[0](v)
                try:
                    return candidates[0](v)
                except Invalid as e:
                    raise refused(cls, [e.errors]) from None
            if cls is dict or cls is list:
                return try_remembered(candidates, v, lambda f: refused(cls, f))
            failures: list[list[list[Any]]] = []
            for candidate in candidates:
                try:
                    return candidate(v)
                except Invalid as e:
                    failures.append(e.errors)
            raise refused(cls, failures)

        kinds = frozenset(c for c in JSON_CLASSES if exact[c])
        lenient = frozenset(c for c in JSON_CLASSES if loose[c] and not exact[c])
        return self._with_enum(node, Compiled(fn, None, kinds, lenient))

    def _with_enum(self, node: ni.Node, compiled: Compiled) -> Compiled:
        if node.enum is None:
            return compiled
        check = enum_value_check(node.enum)
        inner = compiled.fn
        nullable = isinstance(node, ni.UnionNode) and node.nullable

        def fn(v: Any) -> Any:
            if v is None and nullable:
                return None
            found = check(v)
            if found is not None:
                fail(found)
            return inner(v)

        return Compiled(fn, None, compiled.kinds, compiled.lenient)

    # -- objects -----------------------------------------------------------------

    def object(self, node: ni.ObjectNode) -> Compiled:
        done = self._done.get(node)
        if done is not None:
            return done
        if node.is_function:
            msg = (
                f"{node.name} is a function; decode() builds types. A function's arguments "
                "are decoded by Toolbox (or decode_arguments(func, data))"
            )
            raise SchemaError(msg, type_=node.python_type)
        if node in self._objects:  # a cycle: call through the namespace
            ns, fname = self.ns, self._objects[node]

            def later(v: Any) -> Any:
                return ns[fname](v)

            return Compiled(later, None, frozenset({dict}), ref=fname)
        fname = f"_o{len(self._objects)}_{safe_name(node.name)}"
        self._objects[node] = fname
        src = object_source(
            node, fname, arguments=False, compile_node=self.compile, name=self.name
        )
        fn = self._exec(fname, src, node.name)
        self.ns[fname] = fn
        compiled = Compiled(fn, None, frozenset({dict}), ref=fname)
        self._done[node] = compiled
        return compiled

    def arguments(self, node: ni.ObjectNode) -> Structure:
        fname = f"_args_{safe_name(node.name)}"
        src = object_source(
            node, fname, arguments=True, compile_node=self.compile, name=self.name
        )
        return self._exec(fname, src, node.name)

    def fused(self, node: ni.ObjectNode, slow: str) -> tuple[list[str], list[str]] | None:
        """A function's argument check fused with its call (``fused_lines``); the lines
        run in ``self.ns``."""
        return fused_lines(node, compile_node=self.compile, name=self.name, slow=slow)

    def _exec(
        self, name: str, src: str, label: str, extra: dict[str, Any] | None = None
    ) -> Structure:
        self._names += 1
        ns = self.ns if extra is None else {**self.ns, **extra}
        fn: Structure = run_source(src, ns, f"decode {label}", name)
        return fn
