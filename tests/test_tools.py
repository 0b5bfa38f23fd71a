"""Tool and Toolbox: registration, definitions, running calls, and model mistakes."""

from __future__ import annotations

import asyncio
import enum
import functools
import json
import threading
import time
from typing import Any, Literal

import attrs
import cattrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    Annotation,
    ArgumentError,
    Context,
    SchemaError,
    Tool,
    Toolbox,
    ToolCall,
    ToolResult,
    annotate,
    schema,
)

from .strategies import classes


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Address:
    street: str
    city: str


@attrs.define
class Parcel:
    to: Address
    weight_kg: float
    tags: list[str] = attrs.Factory(list)


@attrs.define
class Forecast:
    city: str
    temperature: float
    unit: Unit


@attrs.define
class Session:
    user: str


def get_weather(city: str, unit: Unit = Unit.CELSIUS, days: int = 1) -> Forecast:
    """Get the weather forecast.

    Args:
        city: City name.
        unit: Temperature unit.
        days: Days ahead.
    """
    return Forecast(city=city, temperature=21.5, unit=unit)


def ship(parcel: Parcel, express: bool = False) -> str:
    """Ship a parcel."""
    return f"{parcel.to.city}:{parcel.weight_kg}:{express}"


def whoami(greeting: str, session: Context[Session]) -> str:
    """Greet the signed-in user."""
    return f"{greeting}, {session.user}"


def explode(reason: str) -> str:
    """Always fails."""
    raise LookupError(f"no such city: {reason}")


def refuse(city: str) -> str:
    """Rejects in the model's words."""
    raise ArgumentError(f"{city} is not served; choose Paris or Rome")


async def aget_weather(city: str, days: int = 1) -> dict[str, Any]:
    """Async weather."""
    await asyncio.sleep(0)
    return {"city": city, "days": days}


def make_box() -> Toolbox:
    """A toolbox with the module's tools."""
    return Toolbox([get_weather, ship, whoami, explode, refuse, aget_weather])


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class TestRegistration:
    def test_decorator_forms(self) -> None:
        """@toolbox.tool and @toolbox.tool(...) register and return the function unchanged."""
        box = Toolbox()

        @box.tool
        def first(x: int) -> int:
            return x

        @box.tool(name="second_tool", description="The second.", concurrent=False)
        def second(y: str) -> str:
            return y

        assert first(3) == 3
        assert second("a") == "a"
        assert box.names == ["first", "second_tool"]
        assert box["second_tool"].description == "The second."
        assert box["second_tool"].concurrent is False
        assert "first" in box
        assert len(box) == 2

    def test_add_existing_function_and_tool(self) -> None:
        """add() takes a function with options, or a ready Tool."""
        box = Toolbox()
        tool = box.add(get_weather, name="weather")
        box.add(Tool(ship, description="Send it."))
        assert tool.name == "weather"
        assert [t.name for t in box] == ["weather", "ship"]

    def test_duplicate_name_is_an_error(self) -> None:
        """Registering two tools under one name raises SchemaError naming the fix."""
        box = Toolbox([get_weather])
        with pytest.raises(SchemaError, match=r"already registered.*another name"):
            box.add(get_weather)
        box.add(get_weather, name="get_weather_again")
        assert box.names == ["get_weather", "get_weather_again"]

    def test_tool_with_options_cannot_take_more_options(self) -> None:
        """Options cannot be given to add() together with a ready Tool."""
        with pytest.raises(SchemaError, match="already a Tool"):
            Toolbox().add(Tool(ship), name="other")

    def test_undescribable_function_fails_at_registration(self) -> None:
        """A function the model could not call is rejected when it is registered."""

        def bad(*cities: str) -> str:
            return ""

        with pytest.raises(SchemaError, match=r"\*cities"):
            Toolbox().add(bad)

    def test_unbound_method_is_rejected(self) -> None:
        """A method taken from the class (no instance for self) is rejected with the fix."""

        class Service:
            def lookup(self, city: str) -> str:
                return city

        with pytest.raises(SchemaError, match=r"instance\.lookup"):
            Toolbox().add(Service.lookup)
        assert Toolbox().add(Service().lookup).name == "lookup"

    def test_not_callable(self) -> None:
        """A non-callable or a class is not a tool."""
        with pytest.raises(SchemaError, match="function or other callable"):
            Tool(42)  # type: ignore[arg-type]
        with pytest.raises(SchemaError, match="function or other callable"):
            Tool(Address)

    def test_remove(self) -> None:
        """remove() unregisters a tool, which then is unknown to calls."""
        box = make_box()
        box.remove("explode")
        assert "explode" not in box
        assert box.call("explode", {"reason": "x"}).is_error


class TestDefinitions:
    def test_openai_tools_definitions(self) -> None:
        """definitions(OPENAI_TOOLS) lists each tool's Responses schema in registration order."""
        box = Toolbox([get_weather, ship])
        found = box.definitions(OPENAI_TOOLS)
        assert found == [schema(get_weather, OPENAI_TOOLS), schema(ship, OPENAI_TOOLS)]

    @pytest.mark.parametrize(
        "adapter",
        [STANDARD, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, GEMINI, MCP_TOOLS],
        ids=lambda a: a.name,
    )
    def test_every_adapter_matches_schema(self, adapter: Adapter) -> None:
        """For every tool adapter a definition equals schema(func, adapter)."""
        box = Toolbox([get_weather, ship, whoami])
        assert box.definitions(adapter) == [
            schema(get_weather, adapter), schema(ship, adapter), schema(whoami, adapter)
        ]

    @pytest.mark.parametrize(
        ("adapter", "where"),
        [
            (OPENAI_TOOLS, lambda d: (d["name"], d["description"])),
            (OPENAI_CHAT_TOOLS, lambda d: (d["function"]["name"], d["function"]["description"])),
            (ANTHROPIC_TOOLS, lambda d: (d["name"], d["description"])),
            (GEMINI, lambda d: (d["name"], d["description"])),
            (MCP_TOOLS, lambda d: (d["name"], d["description"])),
        ],
        ids=lambda a: getattr(a, "name", ""),
    )
    def test_overrides_in_every_shape(self, adapter: Adapter, where: Any) -> None:
        """name= and description= land where each provider keeps them."""
        box = Toolbox()
        box.add(get_weather, name="weather", description="Forecast.")
        (definition,) = box.definitions(adapter)
        assert where(definition) == ("weather", "Forecast.")

    def test_request_budget_checked(self) -> None:
        """Per-request limits are checked: Anthropic takes at most 20 strict tools."""
        box = Toolbox()
        for i in range(21):
            box.add(functools.partial(get_weather, days=i), name=f"weather_{i}")
        assert len(box.definitions(OPENAI_TOOLS)) == 21
        with pytest.raises(SchemaError, match="21 strict tools"):
            box.definitions(ANTHROPIC_TOOLS, strict="require")
        with pytest.raises(SchemaError, match="21 strict tools"):
            Toolbox(box, strict="require").definitions(ANTHROPIC_TOOLS)
        # The default policy sends the last one non-strict instead.
        sent = box.definitions(ANTHROPIC_TOOLS)
        assert [d["strict"] for d in sent] == [True] * 20 + [False]

    def test_name_and_description_overrides(self) -> None:
        """name= and description= replace the function's own in the definition."""
        box = Toolbox()
        box.add(get_weather, name="weather", description="Forecast for a city.")
        (openai,) = box.definitions(OPENAI_TOOLS)
        assert openai["name"] == "weather"
        assert openai["description"] == "Forecast for a city."
        assert openai["parameters"] == schema(get_weather, OPENAI_TOOLS)["parameters"]
        (standard,) = box.definitions(STANDARD)
        assert standard["description"] == "Forecast for a city."

    def test_context_not_in_definition(self) -> None:
        """A Context parameter is not in the tool's definition."""
        (definition,) = Toolbox([whoami]).definitions(OPENAI_TOOLS)
        assert list(definition["parameters"]["properties"]) == ["greeting"]

    def test_invalid_name_for_provider(self) -> None:
        """A tool name the provider rejects raises SchemaError when definitions are built."""
        box = Toolbox()
        box.add(get_weather, name="weather.today")
        assert box.definitions(STANDARD)
        with pytest.raises(SchemaError, match="name="):
            box.definitions(OPENAI_TOOLS)

    def test_definitions_follow_annotation_changes(self) -> None:
        """A later annotate.register changes the definitions of registered tools."""

        def lookup(city: str) -> str:
            return city

        box = Toolbox([lookup])
        annotate.register(lookup, Annotation(description="Look a city up."))
        assert box.definitions(OPENAI_TOOLS)[0]["description"] == "Look a city up."
        assert box["lookup"].description == "Look a city up."


class TestCalls:
    def test_json_text_arguments(self) -> None:
        """JSON text arguments are decoded into the declared types; the value is kept."""
        result = make_box().call(
            "get_weather", '{"city": "Paris", "unit": "fahrenheit"}', call_id="c1"
        )
        assert not result.is_error
        assert result.value == Forecast("Paris", 21.5, Unit.FAHRENHEIT)
        assert json.loads(result.content) == {
            "city": "Paris", "temperature": 21.5, "unit": "fahrenheit"
        }
        assert (result.call_id, result.name) == ("c1", "get_weather")

    def test_dict_and_bytes_arguments(self) -> None:
        """Arguments may also be a parsed dict or JSON bytes."""
        box = make_box()
        assert box.call("get_weather", {"city": "Rome"}).value.city == "Rome"
        assert box.call("get_weather", b'{"city": "Oslo"}').value.city == "Oslo"

    def test_nested_attrs_argument(self) -> None:
        """A nested attrs parameter arrives as an instance; Python defaults fill the rest."""
        result = make_box().call(
            "ship", {"parcel": {"to": {"street": "Main 1", "city": "Bonn"}, "weight_kg": 2}}
        )
        assert result.content == "Bonn:2.0:False" or result.content == "Bonn:2:False"
        assert not result.is_error

    def test_str_result_is_content_as_is(self) -> None:
        """A str return value is the content unchanged (not JSON-quoted)."""
        result = make_box().call("whoami", {"greeting": "Hi"}, context=Session("ada"))
        assert result.content == "Hi, ada"
        assert result.value == "Hi, ada"

    def test_none_and_list_results(self) -> None:
        """Non-str return values are JSON-encoded."""
        box = Toolbox()

        @box.tool
        def nothing() -> None:
            return None

        @box.tool
        def numbers(n: int) -> list[int]:
            return list(range(n))

        assert box.call("nothing", "").content == "null"
        assert box.call("numbers", '{"n": 3}').content == "[0,1,2]"

    def test_context_reaches_parameter(self) -> None:
        """The context= of a call is passed to the Context parameter unchanged."""
        session = Session("grace")
        seen: list[Any] = []
        box = Toolbox()

        @box.tool
        def probe(ctx: Context[Session]) -> str:
            seen.append(ctx)
            return "ok"

        box.call("probe", {}, context=session)
        assert seen[0] is session

    def test_partial_tool_gets_bound_arguments(self) -> None:
        """A partial's bound arguments are passed to the function, hidden from the model."""

        def convert(amount: float, currency: str, rate_table: str) -> str:
            return f"{amount} {currency} via {rate_table}"

        box = Toolbox()
        box.add(functools.partial(convert, rate_table="ecb"), name="convert")
        result = box.call("convert", {"amount": 2.5, "currency": "EUR"})
        assert result.content == "2.5 EUR via ecb"
        assert box.call("convert", {"amount": 1, "currency": "x", "rate_table": "y"}).is_error

    def test_async_tool_from_sync_call(self) -> None:
        """call() runs an async tool to completion."""
        result = make_box().call("aget_weather", {"city": "Lima"})
        assert result.value == {"city": "Lima", "days": 1}

    def test_async_tool_from_sync_call_inside_loop(self) -> None:
        """call() of an async tool works from inside a running event loop too."""

        async def main() -> ToolResult:
            return make_box().call("aget_weather", {"city": "Lima", "days": 2})

        assert run(main()).value == {"city": "Lima", "days": 2}

    def test_acall_sync_tool_runs_in_worker_thread(self) -> None:
        """acall() runs a sync tool in a worker thread, not on the event loop's thread."""
        box = Toolbox()

        @box.tool
        def where() -> int:
            return threading.get_ident()

        async def main() -> tuple[int, int]:
            result = await box.acall("where", {})
            return threading.get_ident(), result.value

        loop_thread, tool_thread = run(main())
        assert loop_thread != tool_thread

    def test_acall_async_tool(self) -> None:
        """acall() awaits an async tool on the event loop."""
        result = run(make_box().acall("aget_weather", '{"city": "Quito"}', call_id="a"))
        assert result.value == {"city": "Quito", "days": 1}
        assert result.call_id == "a"

    def test_callable_object_and_methods(self) -> None:
        """Bound methods, classmethods, staticmethods and callable objects run as tools."""

        class Calc:
            def __init__(self, base: int) -> None:
                self.base = base

            def add(self, x: int) -> int:
                return self.base + x

            @classmethod
            def double(cls, x: int) -> int:
                return 2 * x

            @staticmethod
            def neg(x: int) -> int:
                return -x

            def __call__(self, x: int) -> int:
                return self.base * x

        calc = Calc(10)
        box = Toolbox([calc.add, Calc.double, Calc.neg])
        box.add(calc, name="times")
        assert [box.call(n, {"x": 3}).value for n in box.names] == [13, 6, -3, 30]

    def test_tool_may_return_a_tool_result(self) -> None:
        """A tool returning a ToolResult controls content and is_error; ids are filled in."""
        box = Toolbox()

        @box.tool
        def search(q: str) -> ToolResult:
            return ToolResult(content="no results", is_error=True, value=[])

        result = box.call("search", {"q": "x"}, call_id="k")
        assert (result.content, result.is_error, result.call_id, result.name) == (
            "no results", True, "k", "search"
        )

    def test_a_tool_result_answers_the_call_that_ran(self) -> None:
        """A ToolResult made for another call (relayed, cached) is re-addressed: the model's
        call must get its result, or the provider refuses the next request."""
        box = Toolbox()

        @box.tool
        def relay(q: str) -> ToolResult:
            """Relays another call's result."""
            return ToolResult(content="from elsewhere", call_id="other-call", name="other")

        expected = ("from elsewhere", "c1", "relay")
        for result in (
            box.call("relay", {"q": "x"}, call_id="c1"),
            asyncio.run(box.acall("relay", {"q": "x"}, call_id="c1")),
            asyncio.run(box.acall_many([ToolCall("relay", {"q": "x"}, "c1")]))[0],
        ):
            assert (result.content, result.call_id, result.name) == expected
        # A call without an id (the application's own) leaves the tool's id alone.
        assert box.call("relay", {"q": "x"}).call_id == "other-call"

    def test_acall_many_keeps_order(self) -> None:
        """acall_many returns results in the calls' order even when they finish out of order."""
        box = Toolbox()
        second_done = asyncio.Event()

        @box.tool
        async def slow(tag: str) -> str:
            await second_done.wait()
            return tag

        @box.tool
        async def fast(tag: str) -> str:
            second_done.set()
            return tag

        calls = [ToolCall("slow", {"tag": "a"}, "1"), ToolCall("fast", '{"tag": "b"}', "2")]
        results = run(box.acall_many(calls))
        assert [(r.content, r.call_id) for r in results] == [("a", "1"), ("b", "2")]

    def test_acall_many_runs_concurrently(self) -> None:
        """Concurrent sync tools overlap: three calls meet at one barrier."""
        box = Toolbox()
        barrier = threading.Barrier(3, timeout=30)

        @box.tool
        def meet(i: int) -> int:
            barrier.wait()
            return i

        results = run(box.acall_many(ToolCall("meet", {"i": i}) for i in range(3)))
        assert [r.value for r in results] == [0, 1, 2]

    def test_acall_many_mixed_with_errors(self) -> None:
        """acall_many returns error results in place, next to successes."""
        calls = [
            ToolCall("get_weather", {"city": "Paris"}, "1"),
            ToolCall("nope", {}, "2"),
            ToolCall("explode", {"reason": "x"}, "3"),
        ]
        results = run(make_box().acall_many(calls))
        assert [r.is_error for r in results] == [False, True, True]
        assert [r.call_id for r in results] == ["1", "2", "3"]

    def test_acall_many_rejects_other_items(self) -> None:
        """acall_many takes ToolCall objects and says so otherwise."""
        with pytest.raises(TypeError, match="ToolCall"):
            run(make_box().acall_many([("get_weather", {})]))  # type: ignore[list-item]


class TestNonConcurrent:
    @staticmethod
    def _tracked(box: Toolbox, *, is_async: bool) -> dict[str, int]:
        state = {"active": 0, "max": 0}
        lock = threading.Lock()

        def enter() -> None:
            with lock:
                state["active"] += 1
                state["max"] = max(state["max"], state["active"])

        def leave() -> None:
            with lock:
                state["active"] -= 1

        if is_async:

            async def work(i: int) -> int:
                enter()
                await asyncio.sleep(0.001)
                leave()
                return i

        else:

            def work(i: int) -> int:
                enter()
                time.sleep(0.001)
                leave()
                return i

        box.add(work, concurrent=False)
        return state

    @pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
    def test_never_overlaps_in_acall_many(self, is_async: bool) -> None:
        """A concurrent=False tool runs one call at a time under acall_many."""
        box = Toolbox()
        state = self._tracked(box, is_async=is_async)
        results = run(box.acall_many(ToolCall("work", {"i": i}) for i in range(12)))
        assert [r.value for r in results] == list(range(12))
        assert state["max"] == 1

    @pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
    def test_never_overlaps_across_threads_and_loops(self, is_async: bool) -> None:
        """Sync calls from threads and async calls from other loops still never overlap."""
        box = Toolbox()
        state = self._tracked(box, is_async=is_async)
        errors: list[ToolResult] = []

        def sync_caller() -> None:
            for i in range(4):
                r = box.call("work", {"i": i})
                if r.is_error:
                    errors.append(r)

        def loop_caller() -> None:
            results = run(box.acall_many(ToolCall("work", {"i": i}) for i in range(4)))
            errors.extend(r for r in results if r.is_error)

        threads = [threading.Thread(target=f) for f in (sync_caller, loop_caller) * 2]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        assert state["max"] == 1


    def test_cancelled_caller_does_not_let_runs_overlap(self) -> None:
        """Cancelling an acall of a concurrent=False sync tool keeps the next run waiting."""
        box = Toolbox()
        started = threading.Event()
        release = threading.Event()
        order: list[str] = []

        @box.tool(concurrent=False)
        def work(i: int) -> int:
            order.append(f"start {i}")
            if i == 1:
                started.set()
                release.wait()
            order.append(f"end {i}")
            return i

        async def main() -> ToolResult:
            first = asyncio.create_task(box.acall("work", {"i": 1}))
            await asyncio.to_thread(started.wait)
            first.cancel()
            second = asyncio.create_task(box.acall("work", {"i": 2}))
            for _ in range(20):  # let the second call get as far as it can
                await asyncio.sleep(0)
            release.set()
            return await second

        assert run(main()).value == 2
        assert order == ["start 1", "end 1", "start 2", "end 2"]


class TestModelMistakes:
    def test_unknown_tool(self) -> None:
        """An unknown tool name gives an error result with did-you-mean and the tool list."""
        result = make_box().call("get_wether", {"city": "Paris"}, call_id="x")
        assert result.is_error
        assert result.call_id == "x"
        assert "Unknown tool 'get_wether'" in result.content
        assert "Did you mean 'get_weather'?" in result.content
        assert "Available tools: get_weather, ship, whoami" in result.content

    def test_unknown_tool_in_empty_toolbox(self) -> None:
        """An empty toolbox answers any call with an error that lists no tools."""
        result = Toolbox().call("anything", {})
        assert result.is_error
        assert "Available tools: (none)" in result.content

    def test_missing_required(self) -> None:
        """A missing argument names the required and the accepted parameters."""
        result = make_box().call("get_weather", {"unit": "celsius"})
        assert result.is_error
        assert "$.city" in result.content
        assert "Required parameters: city." in result.content
        assert "Accepted parameters: city, unit, days." in result.content

    def test_unrecognized_argument(self) -> None:
        """An unknown argument name gets a did-you-mean and the accepted names."""
        result = make_box().call("get_weather", {"city": "Paris", "dayz": 2})
        assert result.is_error
        assert "$.dayz" in result.content
        assert "'days'" in result.content
        assert "Accepted parameters: city, unit, days." in result.content

    def test_wrong_type_with_path(self) -> None:
        """A wrongly typed nested value is reported with its JSON path."""
        result = make_box().call(
            "ship", {"parcel": {"to": {"street": "Main 1", "city": 5}, "weight_kg": 1}}
        )
        assert result.is_error
        assert "$.parcel.to.city" in result.content

    def test_every_problem_at_once(self) -> None:
        """All argument problems are reported in one message."""
        result = make_box().call("get_weather", {"unit": "kelvin", "extra": 1})
        for part in ("$.city", "$.unit", "$.extra"):
            assert part in result.content

    @pytest.mark.parametrize(
        ("arguments", "fragment"),
        [
            ('{"city": ', "not valid JSON"),
            ("[1, 2]", "got an array"),
            ('"Paris"', "got a string"),
            ("42", "got a number"),
            ("null", "got null"),
            (3.5, "must be a JSON object"),
        ],
    )
    def test_malformed_arguments(self, arguments: Any, fragment: str) -> None:
        """Arguments that are not one JSON object give an error saying what to send."""
        result = make_box().call("get_weather", arguments)
        assert result.is_error
        assert fragment in result.content
        assert "Required parameters: city." in result.content

    def test_empty_arguments_mean_no_arguments(self) -> None:
        """Empty text (as some providers send for no arguments) means an empty object."""
        box = Toolbox()

        @box.tool
        def ping() -> str:
            return "pong"

        assert box.call("ping", "").content == "pong"
        assert box.call("ping", None).content == "pong"
        assert box.call("ping", "  ").content == "pong"

    def test_exception_inside_tool(self) -> None:
        """An exception in the tool gives its type and message; the traceback stays local."""
        result = make_box().call("explode", {"reason": "Atlantis"}, call_id="e")
        assert result.is_error
        assert result.content == "Tool 'explode' failed: LookupError: no such city: Atlantis"
        assert isinstance(result.exception, LookupError)
        assert result.traceback is not None
        assert "Traceback" in result.traceback
        assert "explode" in result.traceback
        assert "Traceback" not in result.content
        assert result.value is None

    def test_argument_error_inside_tool_is_sent_unchanged(self) -> None:
        """An ArgumentError raised by the tool reaches the model in its own words."""
        result = make_box().call("refuse", {"city": "Oz"})
        assert result.is_error
        assert result.content == "Oz is not served; choose Paris or Rome"

    def test_async_exception(self) -> None:
        """An exception in an async tool is an error result from acall too."""
        box = Toolbox()

        @box.tool
        async def boom() -> str:
            raise RuntimeError("down")

        result = run(box.acall("boom", {}))
        assert result.is_error
        assert result.content == "Tool 'boom' failed: RuntimeError: down"

    def test_unencodable_result(self) -> None:
        """A return value that JSON cannot hold is an error result; the value is kept."""
        box = Toolbox()
        marker = object()

        @box.tool
        def odd() -> object:
            return marker

        result = box.call("odd", {})
        assert result.is_error
        assert "could not be encoded" in result.content
        assert result.value is marker

    def test_context_parameter_not_accepted_from_model(self) -> None:
        """The model cannot set a Context parameter: it is an unknown argument."""
        result = make_box().call("whoami", {"greeting": "Hi", "session": {"user": "eve"}},
                                 context=Session("ada"))
        assert result.is_error
        assert "$.session" in result.content


class TestParseArgs:
    def test_replaces_builtin_checking(self) -> None:
        """parse_args replaces the built-in checks: its kwargs go to the function as given."""
        box = Toolbox()

        def coerce(raw: dict[str, Any]) -> dict[str, Any]:
            return {"n": int(raw.get("n", raw.get("count", 0)))}

        @box.tool(parse_args=coerce)
        def count(n: int) -> int:
            return n + 1

        assert box.call("count", '{"count": "41"}').value == 42

    def test_rejection_message_unchanged(self) -> None:
        """An ArgumentError from parse_args reaches the model unchanged; the tool doesn't run."""
        ran: list[bool] = []

        def strict(raw: dict[str, Any]) -> dict[str, Any]:
            raise ArgumentError("n must be even, and 'count' is not a parameter")

        box = Toolbox()

        @box.tool(parse_args=strict)
        def count(n: int) -> int:
            ran.append(True)
            return n

        result = box.call("count", {"count": 3})
        assert result.is_error
        assert result.content == "n must be even, and 'count' is not a parameter"
        assert ran == []

    def test_none_means_raw_arguments(self) -> None:
        """parse_args returning None passes the raw arguments through."""
        box = Toolbox()
        box.add(lambda: None, name="noop")

        @box.tool(parse_args=lambda raw: None)
        def echo(text: str) -> str:
            return text

        assert box.call("echo", {"text": "hi"}).content == "hi"

    def test_context_added_after_parse_args(self) -> None:
        """Context parameters are filled after parse_args, from the call's context."""
        box = Toolbox()

        @box.tool(parse_args=lambda raw: {"greeting": raw["g"]})
        def hello(greeting: str, ctx: Context[Session]) -> str:
            return f"{greeting} {ctx.user}"

        assert box.call("hello", {"g": "Hey"}, context=Session("lin")).content == "Hey lin"

    @pytest.mark.parametrize(
        ("parser", "fragment"),
        [
            (lambda raw: 42, "returned int"),
            (lambda raw: 1 / 0, "ZeroDivisionError"),
            (lambda raw: {"wrong": 1}, "TypeError"),
        ],
        ids=["not-a-dict", "raises", "bad-kwargs"],
    )
    def test_broken_parser_is_an_error_result(self, parser: Any, fragment: str) -> None:
        """A parser that fails or returns junk gives an error result, not an exception."""
        box = Toolbox()

        @box.tool(parse_args=parser)
        def echo(text: str) -> str:
            return text

        result = box.call("echo", {"text": "x"})
        assert result.is_error
        assert fragment in result.content


# -- the bad-argument corpus: nothing a model sends may raise -------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
tool_names = st.sampled_from(
    ["get_weather", "ship", "whoami", "explode", "refuse", "aget_weather"]
) | st.text(max_size=12)
arguments = st.one_of(
    json_values,
    json_values.map(json.dumps),
    st.text(),
    st.binary(),
    st.dictionaries(
        st.sampled_from(["city", "unit", "days", "parcel", "to", "greeting", "reason", "x"]),
        json_values,
        max_size=4,
    ),
    st.fixed_dictionaries(
        {"parcel": st.fixed_dictionaries({"to": json_values, "weight_kg": json_values})}
    ),
)

CORPUS: list[tuple[str, Any]] = [
    ("get_wether", {"city": "Paris"}),
    ("", {}),
    ("get_weather", {}),
    ("get_weather", {"city": None}),
    ("get_weather", {"city": 5}),
    ("get_weather", {"city": "Paris", "unit": "kelvin"}),
    ("get_weather", {"city": "Paris", "days": "2"}),
    ("get_weather", {"city": "Paris", "days": 2.5}),
    ("get_weather", {"city": "Paris", "days": True}),
    ("get_weather", {"city": "Paris", "cty": "Rome"}),
    ("get_weather", '{"city": "Paris",}'),
    ("get_weather", "{'city': 'Paris'}"),
    ("get_weather", b"\xff\xfe"),
    ("get_weather", "[]"),
    ("ship", {"parcel": "a parcel"}),
    ("ship", {"parcel": {"to": None, "weight_kg": 1}}),
    ("ship", {"parcel": {"to": {"street": "s"}, "weight_kg": "heavy", "tags": "a"}}),
    ("ship", {"parcel": {"to": {"street": "s", "city": "c"}, "weight_kg": 1, "tags": [1]}}),
    ("whoami", {"greeting": "Hi"}),  # context missing: the tool itself fails
    ("explode", {"reason": "x"}),
    ("refuse", {"city": "x"}),
    ("aget_weather", {"city": ["Lima"]}),
]


@pytest.mark.parametrize(("name", "args"), CORPUS)
def test_corpus_never_raises(name: str, args: Any) -> None:
    """Each known model mistake gives an error ToolResult from call and from acall."""
    box = make_box()
    for result in (box.call(name, args, call_id="c"), run(box.acall(name, args, call_id="c"))):
        assert isinstance(result, ToolResult)
        assert result.is_error
        assert result.call_id == "c"
        assert result.content


@given(tool_names, arguments)
def test_junk_never_raises(name: str, args: Any) -> None:
    """Whatever name and arguments a model sends, call and acall return a ToolResult."""
    box = make_box()
    result = box.call(name, args, context=Session("u"))
    assert isinstance(result, ToolResult)
    assert isinstance(result.content, str)
    again = run(box.acall(name, args, context=Session("u")))
    assert (again.is_error, again.content) == (result.is_error, result.content)


@given(classes(), st.data())
def test_attrs_parameter_round_trip(pair: Any, data: st.DataObject) -> None:
    """An unstructured instance sent as arguments reaches the tool as an equal instance."""
    cls, instances = pair
    received: list[Any] = []

    def take(item: Any) -> str:
        received.append(item)
        return "ok"

    take.__annotations__["item"] = cls
    box = Toolbox()
    box.add(take)
    for _ in range(3):
        instance = data.draw(instances)
        received.clear()
        payload = json.dumps({"item": cattrs.unstructure(instance)}, default=_jsonable)
        result = box.call("take", payload)
        assert not result.is_error, result.content
        assert received == [instance]


def _jsonable(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return list(value)
    if isinstance(value, enum.Enum):
        return value.value
    if hasattr(value, "isoformat"):  # datetime, date, time
        return value.isoformat()
    return str(value)  # UUID


def test_optional_parameter_may_be_left_out() -> None:
    """An Optional parameter without a default may be left out or sent as null."""
    box = Toolbox()

    @box.tool
    def find(query: str, near: str | None) -> str:
        return f"{query}@{near}"

    assert box.call("find", {"query": "tea"}).content == "tea@None"
    assert box.call("find", {"query": "tea", "near": None}).content == "tea@None"
    assert box.call("find", {"query": "tea", "near": "Oslo"}).content == "tea@Oslo"


def test_literal_parameter() -> None:
    """A Literal parameter accepts its values and rejects others with the allowed list."""
    box = Toolbox()

    @box.tool
    def paint(color: Literal["red", "blue"]) -> str:
        return color

    assert box.call("paint", {"color": "red"}).content == "red"
    bad = box.call("paint", {"color": "green"})
    assert bad.is_error
    assert "$.color" in bad.content


@pytest.mark.parametrize("calls", [5, None, "add", {"name": "add"}])
def test_acall_many_names_what_it_takes(calls: Any) -> None:
    """acall_many given something other than a list of calls says what to pass."""
    toolbox = Toolbox()

    @toolbox.tool
    def add(a: int) -> int:
        return a

    with pytest.raises(TypeError, match="takes a list of ToolCall objects"):
        asyncio.run(toolbox.acall_many(calls))


# -- runtime guarantees: never raise, bounded text, timeouts, threads, logging -------------


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ is broken")


def _unprintable(x: int) -> str:
    """Raises an exception that cannot be printed."""
    raise _Unprintable


async def _cancels_itself(x: int) -> str:
    """Raises CancelledError, though nobody cancelled it."""
    raise asyncio.CancelledError


def _cancels_itself_sync(x: int) -> str:
    """A sync tool raising CancelledError."""
    raise asyncio.CancelledError


async def _echo(x: int) -> int:
    """Echo."""
    return x


def _hostile_box(**options: Any) -> Toolbox:
    return Toolbox([_unprintable, _cancels_itself, _cancels_itself_sync, _echo], **options)


class TestNeverRaises:
    @pytest.mark.parametrize("name", ["_unprintable", "_cancels_itself", "_cancels_itself_sync"])
    def test_call_and_acall(self, name: str) -> None:
        box = _hostile_box()
        for result in (box.call(name, {"x": 1}), asyncio.run(box.acall(name, {"x": 1}))):
            assert result.is_error
            assert result.content.startswith(f"Tool {name!r} failed: ")

    def test_unprintable_message_says_so(self) -> None:
        result = _hostile_box().call("_unprintable", {"x": 1})
        assert result.content == (
            "Tool '_unprintable' failed: _Unprintable: (the _Unprintable's message could not "
            "be read)"
        )
        assert isinstance(result.exception, _Unprintable)

    def test_acall_many_keeps_every_other_result(self) -> None:
        calls = [
            ToolCall("_echo", {"x": 1}, "a"),
            ToolCall("_unprintable", {"x": 2}, "b"),
            ToolCall("_cancels_itself", {"x": 3}, "c"),
            ToolCall("_cancels_itself_sync", {"x": 4}, "d"),
            ToolCall("_echo", {"x": 5}, "e"),
        ]
        results = asyncio.run(_hostile_box().acall_many(calls))
        assert [r.call_id for r in results] == ["a", "b", "c", "d", "e"]
        assert [r.is_error for r in results] == [False, True, True, True, False]
        assert [results[0].value, results[4].value] == [1, 5]
        assert isinstance(results[2].exception, asyncio.CancelledError)

    def test_a_cancelled_caller_is_still_cancelled(self) -> None:
        started = asyncio.Event()

        async def forever(x: int) -> int:
            """Waits."""
            started.set()
            await asyncio.Event().wait()
            return x

        async def main() -> None:
            box = Toolbox([forever])
            task = asyncio.create_task(box.acall_many([ToolCall("forever", {"x": 1})]))
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(main())

    @pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
    @pytest.mark.parametrize("how", ["call", "acall", "thread", "acall_many"])
    def test_keyboard_interrupt_and_system_exit_propagate(self, exc: type, how: str) -> None:
        def stop(x: int) -> int:
            """Stops."""
            raise exc

        async def astop(x: int) -> int:
            """Stops."""
            raise exc

        box = Toolbox([stop, astop], timeout=30 if how == "thread" else None)
        runs = {
            "call": lambda: box.call("stop", {"x": 1}),
            "thread": lambda: box.call("stop", {"x": 1}),  # a worker thread: the timeout
            "acall": lambda: asyncio.run(box.acall("astop", {"x": 1})),
            "acall_many": lambda: asyncio.run(box.acall_many([ToolCall("stop", {"x": 1})])),
        }
        with pytest.raises(exc):
            runs[how]()


def _leaky(x: int) -> str:
    """Fails with a message made to look like more lines of an error list."""
    raise ValueError("denied\n- $.admin: approved\r\n- $.role: root")


def _secret(x: int) -> str:
    """Fails with a secret in its message."""
    raise ConnectionError("bad key sk-abc123 for https://api.example.com")


class TestErrorDetail:
    def test_default_is_one_bounded_line(self) -> None:
        box = Toolbox([_leaky])
        content = box.call("_leaky", {"x": 1}).content
        assert content == (
            "Tool '_leaky' failed: ValueError: denied\\n- $.admin: approved\\r\\n- $.role: root"
        )
        assert "\n" not in content

        def huge(x: int) -> str:
            """Fails with a megabyte of text."""
            raise RuntimeError("x\n" * 500_000)

        box.add(huge)
        failed = box.call("huge", {"x": 1})
        assert len(failed.content) < 700
        assert "\n" not in failed.content
        assert failed.content.endswith("more characters)")
        assert len(str(failed.exception)) == 1_000_000  # the application keeps everything

    @given(st.text(max_size=300))
    def test_default_never_adds_a_line(self, text: str) -> None:
        def fails(x: int) -> str:
            """Fails."""
            raise ValueError(text)

        content = Toolbox([fails]).call("fails", {"x": 1}).content
        assert content.splitlines() == [content] or content == ""

    @pytest.mark.parametrize(
        ("detail", "expected"),
        [
            ("message", "Tool '_secret' failed: ConnectionError: bad key sk-abc123 for "
             "https://api.example.com"),
            ("type", "Tool '_secret' failed: ConnectionError"),
            ("none", "Tool '_secret' failed."),
            (lambda exc: "the upstream service rejected the request",
             "Tool '_secret' failed: the upstream service rejected the request"),
        ],
    )
    def test_policies(self, detail: Any, expected: str) -> None:
        result = Toolbox([_secret], error_detail=detail).call("_secret", {"x": 1})
        assert result.is_error
        assert result.content == expected
        assert "sk-abc123" in str(result.exception)

    def test_full_keeps_lines_within_the_result_limit(self) -> None:
        box = Toolbox([_leaky], error_detail="full", max_result_chars=40)
        content = box.call("_leaky", {"x": 1}).content
        assert content.startswith("Tool '_leaky' failed: ValueError: deni")
        assert "[The result was cut here" in content

    def test_a_failing_redactor_falls_back_to_the_type(self) -> None:
        def redact(exc: BaseException) -> str:
            raise RuntimeError("oops")

        box = Toolbox([_secret, _unprintable], error_detail=redact)
        assert box.call("_secret", {"x": 1}).content == "Tool '_secret' failed: ConnectionError"
        not_text = Toolbox([_secret], error_detail=lambda exc: 42)  # type: ignore[arg-type,return-value]
        assert not_text.call("_secret", {"x": 1}).content == (
            "Tool '_secret' failed: ConnectionError"
        )

    @pytest.mark.parametrize("bad", ["everything", 3, None])
    def test_bad_policy(self, bad: Any) -> None:
        with pytest.raises(ValueError, match="error_detail must be one of"):
            Toolbox(error_detail=bad)

    def test_argument_error_keeps_its_words_within_the_limit(self) -> None:
        def picky(x: int) -> str:
            """Picky."""
            raise ArgumentError("x must be even\n" * 10)

        box = Toolbox([picky], max_result_chars=30)
        content = box.call("picky", {"x": 1}).content
        assert content.startswith("x must be even\nx must be even")
        assert "[The result was cut here" in content


class TestResultLimit:
    def test_long_text_is_cut_with_a_note(self) -> None:
        def page(n: int) -> str:
            """A long page."""
            return "a" * n

        box = Toolbox([page])
        whole = box.call("page", {"n": 100_000})
        assert whole.content == "a" * 100_000
        cut = box.call("page", {"n": 50_000_000})
        assert cut.content.startswith("a" * 100_000 + "\n[The result was cut here")
        assert "50,000,000 characters" in cut.content
        assert len(cut.content) < 100_200
        assert len(cut.value) == 50_000_000
        assert not cut.is_error

    def test_json_results_too_and_configurable(self) -> None:
        def rows(n: int) -> list[int]:
            """Many rows."""
            return list(range(n))

        box = Toolbox([rows], max_result_chars=20)
        result = box.call("rows", {"n": 100})
        assert result.content.startswith("[0,1,2,3,4,5,6,7,8,9\n[The result was cut here")
        assert result.value == list(range(100))
        unlimited = Toolbox([rows], max_result_chars=None).call("rows", {"n": 10_000})
        assert json.loads(unlimited.content) == list(range(10_000))
        assert asyncio.run(box.acall("rows", {"n": 100})).content == result.content

    @pytest.mark.parametrize("bad", [0, -1, 1.5, "10", True])
    def test_bad_limit(self, bad: Any) -> None:
        with pytest.raises(ValueError, match="max_result_chars"):
            Toolbox(max_result_chars=bad)


class TestTimeouts:
    def test_async_tool_overrun(self) -> None:
        async def stuck(x: int) -> int:
            """Never finishes."""
            await asyncio.Event().wait()
            return x

        box = Toolbox()
        box.add(stuck, timeout=0.05)
        result = asyncio.run(box.acall("stuck", {"x": 1}))
        assert result.is_error
        assert result.content == (
            "Tool 'stuck' timed out: it did not finish within its time limit of 0.05 seconds."
        )
        assert isinstance(result.exception, TimeoutError)
        assert box.call("stuck", {"x": 1}).content == result.content

    def test_sync_tool_overrun_and_toolbox_default(self) -> None:
        release = threading.Event()

        def waits(x: int) -> int:
            """Waits for the test."""
            release.wait(120)
            return x

        box = Toolbox(timeout=0.05)

        @box.tool
        def quick(x: int) -> int:
            """Quick."""
            return x

        box.add(waits)
        try:
            result = box.call("waits", {"x": 1})
            assert result.is_error
            assert "0.05 seconds" in result.content
            assert [c.name for c in box.running_calls] == ["waits"]
            many = asyncio.run(
                box.acall_many([ToolCall("waits", {"x": 2}), ToolCall("quick", {"x": 3})])
            )
            assert [r.is_error for r in many] == [True, False]
        finally:
            release.set()
        for _ in range(3000):
            if not box.running_calls:
                break
            time.sleep(0.01)
        assert box.running_calls == []
        box.close()

    def test_a_tool_timeout_wins_over_the_toolbox_default(self) -> None:
        async def slowish(x: int) -> int:
            """Sleeps a little."""
            await asyncio.sleep(0.01)
            return x

        box = Toolbox(timeout=0.001)
        box.add(slowish, timeout=30)
        assert Tool(slowish, timeout=2).timeout == 2.0
        assert asyncio.run(box.acall("slowish", {"x": 4})).value == 4

    @pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError),
                                                 (float("inf"), ValueError), ("1", TypeError),
                                                 (True, TypeError)])
    def test_bad_timeout(self, bad: Any, error: type) -> None:
        with pytest.raises(error, match="timeout must be"):
            Tool(_echo, timeout=bad)
        with pytest.raises(error, match="timeout must be"):
            Toolbox(timeout=bad)

    def test_timeout_cannot_be_added_to_a_tool_object(self) -> None:
        with pytest.raises(SchemaError, match="timeout="):
            Toolbox().add(Tool(_echo), timeout=1)


class TestThreads:
    def test_sync_tools_run_on_the_toolboxs_own_threads(self) -> None:
        def where(x: int) -> str:
            """The running thread's name."""
            return threading.current_thread().name

        with Toolbox([where], max_workers=2) as box:
            names = asyncio.run(box.acall_many([ToolCall("where", {"x": i}) for i in range(6)]))
            assert {r.content.rsplit("-", 1)[0] for r in names} == {"describedtypes"}
            assert box._rt.pool().threads <= 2
        assert box._rt._pool is None  # closed; still usable
        assert asyncio.run(box.acall("where", {"x": 1})).content.startswith("describedtypes")
        box.close()

    def test_blocking_false_runs_on_the_loop(self) -> None:
        def where(x: int) -> int:
            """The running thread's id."""
            return threading.get_ident()

        box = Toolbox()
        box.add(where, blocking=False)
        assert asyncio.run(box.acall("where", {"x": 1})).value == threading.get_ident()
        with pytest.raises(SchemaError, match="blocking=False"):
            Tool(where, blocking=False, timeout=1)

    @pytest.mark.parametrize("bad", [0, -2, 2.5, "4"])
    def test_bad_max_workers(self, bad: Any) -> None:
        with pytest.raises(ValueError, match="max_workers"):
            Toolbox(max_workers=bad)


class TestLogging:
    def test_each_call_is_logged(self, caplog: pytest.LogCaptureFixture) -> None:
        box = _hostile_box()
        with caplog.at_level("INFO", logger="describedtypes"):
            box.call("_echo", {"x": 7}, call_id="c1")
            box.call("_unprintable", {"x": 1}, call_id="c2")
            box.call("nope", {})
        text = caplog.text
        assert "tool _echo ran in" in text
        assert "call_id=c1" in text
        assert "tool _unprintable failed (_Unprintable)" in text
        assert "a call of an unknown tool" in text
        assert "nope" not in text  # the model's text: DEBUG only
        assert "arguments" not in text
        caplog.clear()
        with caplog.at_level("DEBUG", logger="describedtypes"):
            asyncio.run(box.acall("_echo", {"x": 7}))
            box.call("nope", {})
        assert "arguments={'x': 7} content='7'" in caplog.text
        assert "the unknown tool's name: 'nope'" in caplog.text


class TestSharedPlans:
    def test_partials_and_bound_methods_share_their_function_s_plan(self) -> None:
        class Service:
            def find(self, query: str, limit: int = 3) -> str:
                """Find things.

                Args:
                    query: What to find.
                """
                return f"{query}:{limit}"

        def lookup(query: str, session: Any) -> str:
            """Look up."""
            return f"{query}@{session}"

        a, b = Tool(Service().find), Tool(Service().find)
        assert a._plan is b._plan
        assert a.definition(OPENAI_TOOLS) == schema(Service().find, OPENAI_TOOLS)
        p1, p2 = Tool(functools.partial(lookup, session=1)), Tool(
            functools.partial(lookup, session=2)
        )
        assert p1._plan is p2._plan
        assert p1.call({"query": "q"}).value == "q@1"
        assert p2.call({"query": "q"}).value == "q@2"
        assert p1.node.python_type is p1.func


class TestRegistry:
    def test_tool_and_toolbox_take_a_registry(self) -> None:
        from describedtypes import Registry

        def lookup(query: str) -> str:
            """Look up."""
            return query

        mine = Registry(name="mine")
        mine.register(lookup, Annotation(name="find", description="Find it."))
        assert Tool(lookup).name == "lookup"
        assert Tool(lookup, registry=mine).name == "find"
        box = Toolbox([lookup], registry=mine)
        assert box.names == ["find"]
        assert box.definitions(OPENAI_TOOLS)[0]["description"] == "Find it."
        assert box.call("find", {"query": "q"}).value == "q"
        with pytest.raises(TypeError, match="registry must be a Registry"):
            Tool(lookup, registry=annotate.register)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="registry must be a Registry"):
            Toolbox(registry="mine")  # type: ignore[arg-type]


def test_no_module_reaches_into_a_tools_underscore_names() -> None:
    """The toolbox and the runner use Tool's package methods (run_call, arun_call, gate)."""
    import pathlib
    import re

    tools = pathlib.Path(__file__).resolve().parents[1] / "src" / "describedtypes" / "_tools"
    for path in tools.glob("*.py"):
        if path.name != "tool.py":
            source = path.read_text(encoding="utf-8")
            assert not re.search(r"\btool\._[a-z]", source), path.name


def test_one_wording_for_a_wrong_registry_or_adapter() -> None:
    """Every function taking registry= or llm_adapter= says the same thing, with the fix."""
    from describedtypes import check, decode, decode_arguments

    registry_wrong = [
        lambda: Tool(_echo, registry="mine"),  # type: ignore[arg-type]
        lambda: Toolbox(registry="mine"),  # type: ignore[arg-type]
        lambda: schema(Address, registry="mine"),  # type: ignore[arg-type]
        lambda: decode(Address, "{}", registry="mine"),  # type: ignore[arg-type]
        lambda: decode_arguments(_echo, "{}", registry="mine"),  # type: ignore[arg-type]
    ]
    for make in registry_wrong:
        with pytest.raises(TypeError) as info:
            make()
        assert str(info.value) == (
            "registry must be a Registry such as describedtypes.annotate (the default) or a "
            "Registry(...) of your own, got str 'mine'"
        )
    adapter_wrong = [
        lambda: Tool(_echo).definition("openai"),  # type: ignore[arg-type]
        lambda: schema(Address, "openai"),  # type: ignore[arg-type]
        lambda: check({}, "openai"),  # type: ignore[arg-type]
        lambda: Toolbox([_echo]).definitions("openai"),  # type: ignore[arg-type]
    ]
    for make in adapter_wrong:
        with pytest.raises(SchemaError) as info:
            make()
        assert str(info.value).startswith(
            "llm_adapter must be an Adapter such as describedtypes.OPENAI, ANTHROPIC_TOOLS or "
            "STANDARD (one of those describedtypes exports, or .replace(...) of one), got "
            "str 'openai'"
        )


def _forecast(city: str, days: int, metric: bool = True) -> Any:
    """Forecast.

    Args:
        city: City name.
        days: Days ahead.
        metric: Celsius when true.
    """
    if city == "boom":
        raise RuntimeError("the weather service is down")
    if city == "dict":
        return {"city": city, "days": days}
    return f"{city}:{days}:{metric}"


_ARGUMENT_TEXTS = st.one_of(
    st.builds(
        lambda d: json.dumps(d),
        st.dictionaries(
            st.sampled_from(["city", "days", "metric", "extra"]),
            st.one_of(
                st.sampled_from(["Bern", "boom", "dict", ""]), st.integers(), st.booleans(),
                st.none(), st.floats(allow_nan=False), st.lists(st.integers(), max_size=2),
            ),
        ),
    ),
    st.sampled_from(
        ['{"city": "Bern"', "[1, 2]", '"text"', "", "null", '{"city": "Bern", "days": 1e400}']
    ),
    st.text(max_size=20),
)


@given(text=_ARGUMENT_TEXTS, as_bytes=st.booleans())
def test_the_common_call_path_gives_what_the_general_one_gives(text: str, as_bytes: bool) -> None:
    """Toolbox.call's once-per-tool invoker (JSON text, no timeout, gate or parse_args)
    returns the same result as the general path for any argument text, right or wrong."""
    quick = Toolbox([_forecast], max_result_chars=12)
    general = Toolbox([_forecast], max_result_chars=12)
    assert quick["_forecast"].invoke is not None
    general["_forecast"].invoke = None  # the general path only
    arguments = text.encode() if as_bytes else text
    ours = quick.call("_forecast", arguments, call_id="c1")
    theirs = general.call("_forecast", arguments, call_id="c1")
    assert (ours.content, ours.value, ours.is_error, ours.call_id, ours.name) == (
        theirs.content, theirs.value, theirs.is_error, theirs.call_id, theirs.name
    )
    assert type(ours.exception) is type(theirs.exception)


def test_a_result_is_finished_even_when_every_worker_thread_is_busy() -> None:
    """A result is encoded on a worker thread, or on the loop when every thread is taken
    by a long call: it never waits for that call to end."""
    release = threading.Event()

    def hold() -> str:
        release.wait(60)  # a hang guard; the test releases it
        return "held"

    async def listed() -> list[int]:
        return [1, 2, 3]

    box = Toolbox([hold, listed], max_workers=1)

    async def scenario() -> tuple[str, str]:
        holding = asyncio.ensure_future(box.acall("hold", {}))
        while box.running_calls == [] and not holding.done():
            await asyncio.sleep(0.01)
        quick = await asyncio.wait_for(box.acall("listed", {}), 30)
        release.set()
        return quick.content, (await holding).content

    assert asyncio.run(scenario()) == ("[1,2,3]", "held")
