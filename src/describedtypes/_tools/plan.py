"""What a tool's function looks like to the model, worked out once and shared safely.

A ``Plan`` holds a tool's parameters (names, types, defaults), its name and description,
its compiled argument checker and its built definitions. It never refers to the callable
itself, so it can be shared by every tool over the same function without keeping a bound
object or a partial's arguments alive: one ``Toolbox`` per request over
``functools.partial(lookup, session=s)`` or ``service.lookup`` leaves nothing behind when
the toolbox is dropped.

Plans are cached in a ``WeakKeyDictionary`` keyed by the plain function under the partials
and bound methods (plus the shape of that wrapping: which arguments the partials bind),
so the entry goes when the function goes (a closure made per request included). A
callable the key cannot describe (a callable object, a builtin, a partial with an
annotation registered on it) gets a plan of its own, owned by its ``Tool``.
"""

from __future__ import annotations

import functools
import inspect as _pyinspect
import threading
import weakref
from collections.abc import Callable
from typing import Any

from .._codec.compiler import Compiler
from .._codec.values import needs_exact
from .._schema import adapters as _adapters
from .._schema.schema import References, build_definition, freeze, thaw
from .._types.annotate import Registry, current_stamp
from .._types.inspector import Field, ObjectNode, type_info


class Plan:
    """Strictly private: one function's parameters as the model sees them."""

    __slots__ = (
        "accepted",
        "bodies",
        "compiler",
        "context_params",
        "decode",
        "description",
        "exact",
        "fields",
        "fill_none",
        "generation",
        "invoke",
        "name",
        "required",
    )

    def __init__(self, node: ObjectNode, generation: int) -> None:
        self.name: str = node.name
        self.description: str | None = node.description
        self.fields: tuple[Field, ...] = node.fields
        self.context_params: tuple[str, ...] = node.context_params
        self.generation = generation
        # ``x: T | None`` without a default may be left out by the model (it is not
        # required), but Python needs a value for it: None.
        self.fill_none = tuple(f.init_name for f in node.fields if f.nullable and not f.has_default)
        self.required = [f.key for f in node.fields if f.required and not f.nullable]
        self.accepted = [f.key for f in node.fields]
        # Compiled from a copy that does not name the function (see the module docstring).
        # A Decimal among the parameters: JSON text is read with exact numbers.
        self.exact: bool = needs_exact(node)
        compiler = Compiler(exact=self.exact)
        self.decode: Callable[[Any], dict[str, Any]] = compiler.arguments(self.node(None))
        #: What compiled ``decode``: a tool's common call is compiled with it, in its
        #: namespace, at the first call of a tool over this plan (``tool.invoker``);
        #: dropped then.
        self.compiler: Compiler | None = compiler
        #: That common call, once made (shared by every tool over this plan).
        self.invoke: Any = None
        # Keyed by plain values only (no user object): the plan outlives no function.
        self.bodies: dict[tuple[_adapters.Adapter, str, str | None, References], Any] = {}

    def node(self, func: Any) -> ObjectNode:
        return ObjectNode(
            python_type=func,
            name=self.name,
            description=self.description,
            fields=self.fields,
            is_function=True,
            context_params=self.context_params,
        )

    def definition(
        self,
        func: Any,
        adapter: _adapters.Adapter,
        name: str,
        description: str | None,
        use_references: References = False,
    ) -> Any:
        """The tool's definition for ``adapter`` (a fresh, mutable copy).

        Built and checked once per adapter, name, description and ``use_references``
        (already checked: ``True``, ``False`` or ``"auto"``, never ``1``, which would
        share ``True``'s entry), by the same path as ``schema()``.
        """
        key = (adapter, name, description, use_references)
        frozen = self.bodies.get(key)
        if frozen is None:
            wrapped, _ = build_definition(
                self.node(func), func, adapter, use_references, name=name,
                description=description,
            )
            frozen = self.bodies[key] = freeze(wrapped)
        return thaw(frozen, dict)


_PLANS: weakref.WeakKeyDictionary[Any, dict[Any, Plan]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def shared_key(func: Any, registry: Registry) -> tuple[Any, tuple[Any, ...]] | None:
    """``(plain function, shape of the partials and binding around it)``, or None."""
    shape: list[Any] = [weakref.ref(registry)]  # equal while the registry lives
    while isinstance(func, functools.partial):
        if registry.override(func) is not None:  # an annotation for this very partial
            return None
        shape.append((len(func.args), tuple(sorted(func.keywords))))
        func = func.func
    if _pyinspect.ismethod(func):
        shape.append("bound")
        func = func.__func__
    if not _pyinspect.isfunction(func):
        return None
    return func, tuple(shape)


def plan_for(func: Any, registry: Registry) -> Plan:
    """The plan of ``func`` under ``registry``'s current annotations (shared when safe)."""
    generation = current_stamp()  # the stamp of the latest registration anywhere
    key = shared_key(func, registry)
    if key is not None:
        core, shape = key
        with _LOCK:
            known = _PLANS.get(core)
            found = known.get(shape) if known is not None else None
        if found is not None and found.generation == generation:
            return found
    node = type_info(func, registry)
    assert isinstance(node, ObjectNode)  # a function's parameters
    made = Plan(node, generation)
    if key is not None:
        with _LOCK:
            known = _PLANS.setdefault(core, {})
            for stale in [k for k in known if k[0]() is None]:  # a dropped registry's plans
                del known[stale]
            known[shape] = made
    return made
