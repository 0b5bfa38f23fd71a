"""Function schemas: parameters, descriptions, defaults, Context, and errors."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Annotated, Literal

import attrs
import pytest

from describedtypes import (
    OPENAI_TOOLS,
    STANDARD,
    Annotation,
    Context,
    SchemaError,
    annotate,
    schema,
)
from describedtypes.inspect import ObjectNode, type_info

if TYPE_CHECKING:  # imported for type checking only: not resolvable at run time
    from collections import OrderedDict as Session


@attrs.define
class Address:
    """A postal address."""

    street: str
    city: str = attrs.field(metadata={"description": "City name"})


def get_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get current weather for a location.

    Args:
        location: City and country, e.g. 'London, UK'.
        unit: Temperature unit.
    """
    return f"{location} {unit}"


async def aget_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get current weather for a location.

    Args:
        location: City and country, e.g. 'London, UK'.
        unit: Temperature unit.
    """
    return f"{location} {unit}"


def numpy_doc(query: str, limit: int = 10) -> list[str]:
    """Search the knowledge base.

    Parameters
    ----------
    query : str
        Search query.
    limit : int
        Max results.
    """
    return [query] * limit


def rest_doc(prices: list[float], tax_rate: float = 0.0) -> float:
    """Calculate order total with tax.

    :param prices: Item prices.
    :param tax_rate: Tax rate as decimal.
    """
    return sum(prices) * (1 + tax_rate)


def update_profile(
    user_id: Annotated[str, Annotation(description="User ID")],
    name: Annotated[str | None, Annotation(description="New name, if changing")] = None,
) -> bool:
    """Update user profile."""
    return bool(user_id and name)


def ship(to: Address, express: bool = False) -> str:
    """Ship a parcel.

    Args:
        to: Where it goes.
        express: Next-day delivery.
    """
    return to.city


def with_context(city: str, ctx: Context[dict[str, str]]) -> str:
    """Look something up for the signed-in user."""
    return city


def with_optional_context(city: str, ctx: Context[dict[str, str]] | None = None) -> str:
    """Optional context."""
    return city


def with_annotated_context(
    city: str, ctx: Annotated[Context[int], Annotation(description="ignored")]
) -> str:
    """Annotated context."""
    return city


def with_type_checking_context(city: str, session: Context[Session]) -> str:
    """A context type imported under TYPE_CHECKING."""
    return city


def compose(greeting: str, name: str, punctuation: str = "!") -> str:
    """Greet someone.

    Args:
        greeting: The greeting word.
        name: Who to greet.
        punctuation: How to end.
    """
    return f"{greeting}, {name}{punctuation}"


class Service:
    """A service with tools as methods."""

    def register(self, username: str, email: str) -> str:
        """Register a new user.

        Args:
            username: Username for the new account.
            email: Email address.
        """
        return username

    @classmethod
    def create(cls, host: str, port: int = 5432) -> str:
        """Create a connection.

        Args:
            host: Database host.
            port: Database port.
        """
        return f"{host}:{port}"

    @staticmethod
    def load(path: str) -> str:
        """Load configuration from a file.

        Args:
            path: Configuration file path.
        """
        return path


class Searcher:
    """Search the web."""

    def __call__(self, query: str, limit: int = 5) -> list[str]:
        """Run a search.

        Args:
            query: What to look for.
            limit: How many results.
        """
        return [query] * limit


def params(tool_schema: dict[str, object]) -> dict[str, object]:
    """The parameters body of an OPENAI_TOOLS definition."""
    body = tool_schema["parameters"]
    assert isinstance(body, dict)
    return body


class TestPlainFunctions:
    def test_openai_tools_golden(self) -> None:
        """A documented function becomes the exact Responses tool from the kt-schema guide."""
        assert schema(get_weather, OPENAI_TOOLS) == {
            "type": "function",
            "name": "get_weather",
            "description": "Get current weather for a location.",
            "strict": True,
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {
                        "type": "string",
                        "description": "City and country, e.g. 'London, UK'.",
                    },
                    "unit": {
                        "type": "string",
                        "enum": ["celsius", "fahrenheit"],
                        "description": "Temperature unit.",
                    },
                },
                "required": ["location", "unit"],
                "additionalProperties": False,
            },
        }

    def test_standard_leaves_defaults_optional(self) -> None:
        """STANDARD leaves a defaulted parameter out of required and emits its default."""
        assert schema(get_weather, STANDARD) == {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "City and country, e.g. 'London, UK'.",
                },
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "Temperature unit.",
                    "default": "celsius",
                },
            },
            "required": ["location"],
            "description": "Get current weather for a location.",
        }

    def test_strict_requires_defaulted_and_emits_no_default(self) -> None:
        """Strict adapters list defaulted parameters in required and carry no default."""
        body = params(schema(numpy_doc, OPENAI_TOOLS))
        assert body["required"] == ["query", "limit"]
        assert "default" not in str(body)

    def test_async_function_described_like_sync(self) -> None:
        """An async function gets the same schema as its sync twin."""
        sync = schema(get_weather, OPENAI_TOOLS)
        asynchronous = schema(aget_weather, OPENAI_TOOLS)
        assert asynchronous == {**sync, "name": "aget_weather"}

    def test_optional_parameter_strict_is_nullable(self) -> None:
        """An Optional parameter is a required ["string", "null"] under strict adapters."""
        body = params(schema(update_profile, OPENAI_TOOLS))
        assert body["properties"] == {
            "user_id": {"type": "string", "description": "User ID"},
            "name": {"type": ["string", "null"], "description": "New name, if changing"},
        }
        assert body["required"] == ["user_id", "name"]

    def test_attrs_class_parameter(self) -> None:
        """An attrs class parameter is a nested object with its own fields and descriptions."""
        body = params(schema(ship, OPENAI_TOOLS))
        to = body["properties"]["to"]  # type: ignore[index]
        assert to == {
            "type": "object",
            "properties": {
                "street": {"type": "string"},
                "city": {"type": "string", "description": "City name"},
            },
            "required": ["street", "city"],
            "additionalProperties": False,
            "description": "Where it goes.",
        }

    def test_node_is_a_function_object(self) -> None:
        """type_info of a function is an ObjectNode flagged as a function."""
        node = type_info(get_weather)
        assert isinstance(node, ObjectNode)
        assert node.is_function
        assert [f.key for f in node.fields] == ["location", "unit"]


class TestDocstrings:
    @pytest.mark.parametrize(
        ("func", "expected"),
        [
            (numpy_doc, {"query": "Search query.", "limit": "Max results."}),
            (rest_doc, {"prices": "Item prices.", "tax_rate": "Tax rate as decimal."}),
            (get_weather, {"location": "City and country, e.g. 'London, UK'.",
                           "unit": "Temperature unit."}),
        ],
        ids=["numpy", "rest", "google"],
    )
    def test_parameter_descriptions(self, func: object, expected: dict[str, str]) -> None:
        """Google, NumPy and reST parameter sections all describe the parameters."""
        body = schema(func, STANDARD)
        found = {k: v.get("description") for k, v in body["properties"].items()}
        assert found == expected

    def test_summary_is_the_description(self) -> None:
        """The docstring's summary (not its parameter section) is the tool description."""
        assert schema(rest_doc, OPENAI_TOOLS)["description"] == "Calculate order total with tax."

    def test_annotated_parameter_description(self) -> None:
        """Annotated[T, Annotation(description=...)] describes a parameter."""
        body = schema(update_profile, STANDARD)
        assert body["properties"]["user_id"]["description"] == "User ID"

    def test_registered_override_wins(self) -> None:
        """annotate.register(func, ...) overrides the name and descriptions field by field."""

        def lookup(city: str, days: int = 1) -> str:
            """Docstring summary.

            Args:
                city: From the docstring.
                days: Days ahead.
            """
            return city

        annotate.register(
            lookup,
            Annotation(
                name="forecast",
                description="Weather forecast.",
                parameters={"city": Annotation(description="The city, from the override")},
            ),
        )
        out = schema(lookup, OPENAI_TOOLS)
        assert out["name"] == "forecast"
        assert out["description"] == "Weather forecast."
        assert out["parameters"]["properties"]["city"]["description"] == (
            "The city, from the override"
        )
        assert out["parameters"]["properties"]["days"]["description"] == "Days ahead."

    def test_override_renames_parameter_key(self) -> None:
        """A parameter annotation's name becomes the property key the model sees."""

        def find(q: str) -> str:
            return q

        annotate.register(find, Annotation(parameters={"q": Annotation(name="query")}))
        assert list(schema(find, STANDARD)["properties"]) == ["query"]
        assert type_info(find).fields[0].init_name == "q"  # type: ignore[attr-defined]

    def test_override_of_unknown_parameter(self) -> None:
        """An override naming a parameter the function lacks is a SchemaError with a hint."""

        def find(query: str) -> str:
            return query

        annotate.register(find, Annotation(parameters={"querry": Annotation(description="x")}))
        with pytest.raises(SchemaError, match="did you mean 'query'"):
            schema(find, STANDARD)


class TestMethodsAndWrappers:
    def test_bound_method_skips_self(self) -> None:
        """A bound method is described without self."""
        out = schema(Service().register, OPENAI_TOOLS)
        assert out["name"] == "register"
        assert out["description"] == "Register a new user."
        assert out["parameters"]["properties"] == {
            "username": {"type": "string", "description": "Username for the new account."},
            "email": {"type": "string", "description": "Email address."},
        }

    def test_classmethod_skips_cls(self) -> None:
        """A classmethod is described without cls, with its default under STANDARD."""
        body = schema(Service.create, STANDARD)
        assert body["properties"] == {
            "host": {"type": "string", "description": "Database host."},
            "port": {"type": "integer", "description": "Database port.", "default": 5432},
        }
        assert body["required"] == ["host"]

    def test_staticmethod(self) -> None:
        """A staticmethod is described like a function, from the class or an instance."""
        expected = schema(Service.load, OPENAI_TOOLS)
        assert expected["parameters"]["properties"] == {
            "path": {"type": "string", "description": "Configuration file path."}
        }
        assert schema(Service().load, OPENAI_TOOLS) == expected

    def test_callable_object(self) -> None:
        """A callable object is named after its class and described by its docstrings."""
        out = schema(Searcher(), OPENAI_TOOLS)
        assert out["name"] == "Searcher"
        assert out["description"] == "Search the web."
        assert out["parameters"]["properties"] == {
            "query": {"type": "string", "description": "What to look for."},
            "limit": {"type": "integer", "description": "How many results."},
        }

    def test_partial_hides_bound_keywords(self) -> None:
        """A partial's keyword-bound parameters are not shown to the model."""
        body = schema(functools.partial(compose, punctuation="?"), STANDARD)
        assert list(body["properties"]) == ["greeting", "name"]
        assert body["description"] == "Greet someone."

    def test_partial_hides_bound_positionals(self) -> None:
        """A partial's positionally bound parameters are not shown to the model."""
        body = schema(functools.partial(compose, "Hello"), STANDARD)
        assert body["properties"] == {
            "name": {"type": "string", "description": "Who to greet."},
            "punctuation": {"type": "string", "description": "How to end.", "default": "!"},
        }

    def test_override_of_function_applies_to_partial(self) -> None:
        """An override registered on a function also describes partials of it."""

        def greet(greeting: str, name: str) -> str:
            return greeting + name

        annotate.register(
            greet,
            Annotation(description="Greets.", parameters={
                "greeting": Annotation(description="Word."),
                "name": Annotation(description="Person."),
            }),
        )
        body = schema(functools.partial(greet, greeting="Hi"), STANDARD)
        assert body == {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Person."}},
            "required": ["name"],
            "description": "Greets.",
        }

    def test_wrapped_function(self) -> None:
        """A functools.wraps decorator is seen through to the original signature."""

        def logged(func):  # type: ignore[no-untyped-def]
            @functools.wraps(func)
            def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
                return func(*args, **kwargs)

            return wrapper

        body = schema(logged(get_weather), STANDARD)
        assert body == schema(get_weather, STANDARD)


class TestContext:
    @pytest.mark.parametrize(
        "func",
        [with_context, with_optional_context, with_annotated_context,
         with_type_checking_context],
        ids=["plain", "optional", "annotated", "type-checking-import"],
    )
    def test_context_parameter_is_hidden(self, func: object) -> None:
        """A Context-typed parameter is left out of the schema and listed as context."""
        out = schema(func, OPENAI_TOOLS)
        assert list(out["parameters"]["properties"]) == ["city"]
        node = type_info(func)
        assert isinstance(node, ObjectNode)
        assert len(node.context_params) == 1

    def test_context_cannot_be_instantiated(self) -> None:
        """Context is a marker only; making one is a TypeError that says so."""
        with pytest.raises(TypeError, match="marker"):
            Context()


def no_annotation(city, days: int) -> str:  # type: ignore[no-untyped-def]
    return str(city)


def star_args(*cities: str) -> str:
    return ",".join(cities)


def star_kwargs(city: str, **options: str) -> str:
    return city


def positional_only(city: str, /, days: int) -> str:
    return city


def unresolvable(city: NotDefinedAnywhere) -> str:  # type: ignore[name-defined]  # noqa: F821
    return str(city)


class TestErrors:
    @pytest.mark.parametrize(
        ("func", "path", "fix"),
        [
            (no_annotation, "no_annotation.city", "annotate it"),
            (star_args, "star_args.cities", "replace it with named parameters"),
            (star_kwargs, "star_kwargs.options", "replace it with named parameters"),
            (positional_only, "positional_only.city", "remove the `/`"),
            (unresolvable, "unresolvable.city", "define or import the missing name"),
        ],
        ids=["no-annotation", "args", "kwargs", "positional-only", "unresolvable"],
    )
    def test_undescribable_parameter(self, func: object, path: str, fix: str) -> None:
        """Each undescribable parameter is a SchemaError naming the parameter and the fix."""
        with pytest.raises(SchemaError) as info:
            schema(func, OPENAI_TOOLS)
        assert info.value.path == path
        assert fix in str(info.value)
        assert info.value.type_ is func

    def test_partial_binding_positional_only_is_fine(self) -> None:
        """A positional-only parameter bound by a partial no longer needs a name."""
        body = schema(functools.partial(positional_only, "Paris"), STANDARD)
        assert list(body["properties"]) == ["days"]

    def test_lambda_name_rejected_by_openai(self) -> None:
        """A lambda's name is not a valid OpenAI tool name, and the error says how to fix it."""
        with pytest.raises(SchemaError, match="Annotation\\(name="):
            schema(lambda: "sunny", OPENAI_TOOLS)


class TestOnePathToADefinition:
    def test_rules_run_once_per_definition(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """definitions() checks each tool once; the request adds only its budgets."""
        from describedtypes import OPENAI_TOOLS, Toolbox
        from describedtypes._schema import adapters as adapters_module

        calls: list[str] = []
        real = adapters_module.run_rules

        def counting(doc: object, adapter: object) -> object:
            calls.append(str(getattr(doc, "name", "")))
            return real(doc, adapter)  # type: ignore[arg-type]

        monkeypatch.setattr(adapters_module, "run_rules", counting)

        def first(city: str) -> str:
            """First tool."""
            return city

        def second(days: int) -> int:
            """Second tool."""
            return days

        toolbox = Toolbox([first, second])
        toolbox.add(first, name="first_again", description="Renamed.")
        defs = toolbox.definitions(OPENAI_TOOLS)
        assert [d["name"] for d in defs] == ["first", "second", "first_again"]
        assert defs[2]["description"] == "Renamed."
        assert sorted(calls) == ["first", "first_again", "second"]
        calls.clear()
        toolbox.definitions(OPENAI_TOOLS)  # built once per adapter, name and description
        assert calls == []

    def test_a_definition_is_a_fresh_mutable_dict(self) -> None:
        """A caller may add provider keys (e.g. cache_control) without touching the cache."""
        from describedtypes import ANTHROPIC_TOOLS, Toolbox

        def lookup(city: str) -> str:
            """Look a city up."""
            return city

        toolbox = Toolbox([lookup])
        first = toolbox.definitions(ANTHROPIC_TOOLS)[0]
        first["cache_control"] = {"type": "ephemeral"}
        assert "cache_control" not in toolbox.definitions(ANTHROPIC_TOOLS)[0]
