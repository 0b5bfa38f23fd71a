"""Never executed: mypy checks that the public API types the way users write it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import attrs

from describedtypes import (
    OPENAI,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    Annotation,
    Context,
    DecodeError,
    Partial,
    Problem,
    Rewrite,
    Toolbox,
    ToolResult,
    adecode_stream,
    annotate,
    check,
    count_tokens,
    decode,
    decode_stream,
    encode,
    schema,
)


@attrs.define
class Weather:
    location: str
    temperature: float


annotate.register(Weather, Annotation(description="Current weather."))


@annotate.register(Weather)
def _weather(tp: type) -> Annotation:
    return Annotation(name="Weather")


body = schema(Weather)
wrapped = schema(Weather, llm_adapter=OPENAI, use_references=True)
smallest = schema(Weather, OPENAI, use_references="auto")
size: int = count_tokens(Weather, OPENAI, use_references="auto")
rewrites: list[Rewrite] = []
schema(Weather, OPENAI_TOOLS, report=rewrites)
custom: Adapter = OPENAI.replace(strict=False)
problems: list[Problem] = check(body, STANDARD)

weather: Weather = decode(Weather, '{"location": "Paris", "temperature": 21.5}')
raw: bytes = encode(weather)
try:
    decode(Weather, b"{}")
except DecodeError as err:
    pairs: list[tuple[str, str]] = err.errors

toolbox = Toolbox()


@toolbox.tool
def get_weather(city: str, ctx: Context[dict[str, str]]) -> Weather:
    return Weather(location=city, temperature=21.5)


smaller_tools: list[object] = toolbox.definitions(OPENAI_TOOLS, use_references="auto")
tools_size: int = count_tokens(toolbox, OPENAI_TOOLS, use_references=True)
toolbox.definitions(OPENAI_TOOLS, use_references="yes")  # type: ignore[arg-type]

result: ToolResult = toolbox.call("get_weather", {"city": "Paris"}, context={})
text: str = result.content
failed: bool = result.is_error


def _asking(client: object, toolbox: Toolbox) -> None:
    from typing_extensions import assert_type

    from describedtypes import MaxTurnsError, extract

    assert_type(extract(Weather, client, messages="Weather in Paris?", model="m"), Weather)
    answer = toolbox.run(client, messages=[{"role": "user", "content": "hi"}], model="m")
    try:
        toolbox.run(client, messages="hi", model="m", max_turns=3, temperature=0)
    except MaxTurnsError as err:
        turns: int = err.turns
        transcript: list[object] = err.transcript
        print(answer, turns, transcript)


async def _asking_async(client: object) -> None:
    from typing_extensions import assert_type

    from describedtypes import aextract

    assert_type(await aextract(Weather, client, messages="hi", model="m", retries=1), Weather)


for streamed in decode_stream(Weather, ['{"location": "Pa', 'ris", "temperature": 21.5}']):
    if isinstance(streamed, Partial):
        so_far: Partial[Weather] = streamed
        arrived: list[str] = list(streamed.fields)
        still: str | None = streamed.growing
    else:
        finished: Weather = streamed


async def follow(chunks: AsyncIterator[str]) -> Weather | None:
    async for value in adecode_stream(Weather, chunks):
        if not isinstance(value, Partial):
            return value
    return None


def _serving(toolbox: Toolbox) -> None:
    from typing import Any

    from mcp.server import Server, ServerRequestContext
    from typing_extensions import assert_type

    from describedtypes import MCP_ELICITATION

    def user_of(request: ServerRequestContext[Any]) -> str:
        return str(request.request_id)

    server = toolbox.mcp_server(name="weather", version="1.0", context=user_of)
    assert_type(server, Server[Any])
    form: Adapter = MCP_ELICITATION
    print(schema(Weather, form))
