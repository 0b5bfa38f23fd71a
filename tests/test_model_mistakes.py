"""Only a model's mistake goes back to the model.

A validator, constructor or cattrs hook that refuses the model's value with ``ValueError``,
``TypeError`` or a cattrs validation error is the model's mistake: a ``DecodeError``, and
``extract()`` asks again. Anything else it raises (a ``ConnectionError`` carrying a
password) propagates unchanged and never reaches a message to the model.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import attrs
import cattrs
import httpx
import openai
import pytest

from describedtypes import DecodeError, decode, extract

SECRET = "postgres://app:hunter2@db"


def _no_db(instance: Any, attribute: Any, value: Any) -> None:
    raise ConnectionError(f"cannot check the city against {SECRET}")


def _not_paris(instance: Any, attribute: Any, value: Any) -> None:
    if value == "Paris":
        raise ValueError("the city must not be Paris")


@attrs.define
class Checked:
    city: str = attrs.field(validator=_no_db)


@attrs.define
class NotParis:
    city: str = attrs.field(validator=_not_paris)


@dataclasses.dataclass
class PostInit:
    city: str

    def __post_init__(self) -> None:
        raise KeyError(SECRET)


def _chat(replies: list[str], bodies: list[Any]) -> openai.OpenAI:
    queue = list(replies)

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        message = {"role": "assistant", "content": queue.pop(0)}
        return httpx.Response(200, json={
            "id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-test",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        })

    return openai.OpenAI(api_key="k", base_url="https://api.example.test/v1", max_retries=0,
                         http_client=httpx.Client(transport=httpx.MockTransport(handler)))


@pytest.mark.parametrize("tp", [Checked, PostInit, list[Checked], dict[str, PostInit]])
def test_an_exception_that_is_not_the_models_mistake_propagates_from_decode(tp: Any) -> None:
    reply: Any = {"city": "Paris"}
    if tp == list[Checked]:
        reply = [reply]
    elif tp == dict[str, PostInit]:
        reply = {"a": reply}
    text = json.dumps(reply)
    with pytest.raises((ConnectionError, KeyError)) as info:
        decode(tp, text)
    assert SECRET in str(info.value)  # the user's own exception, unchanged


def test_a_value_error_from_a_validator_is_the_models_mistake() -> None:
    with pytest.raises(DecodeError) as info:
        decode(NotParis, '{"city": "Paris"}')
    assert "the city must not be Paris" in str(info.value)


def test_extract_does_not_retry_and_never_sends_the_exception_text() -> None:
    bodies: list[Any] = []
    client = _chat(['{"city": "Paris"}'] * 3, bodies)
    with pytest.raises(ConnectionError):
        extract(Checked, client, messages="Where?", model="gpt-test", retries=2)
    assert len(bodies) == 1, bodies[-1]["messages"][-1]
    assert SECRET not in json.dumps(bodies)


def test_extract_retries_a_validators_value_error() -> None:
    bodies: list[Any] = []
    client = _chat(['{"city": "Paris"}', '{"city": "Lyon"}'], bodies)
    got = extract(NotParis, client, messages="Where?", model="gpt-test", retries=1)
    assert got == NotParis("Lyon")
    assert len(bodies) == 2
    assert "the city must not be Paris" in bodies[1]["messages"][-1]["content"]


@attrs.define
class Money:
    cents: int


@attrs.define
class Order:
    total: Money


def _converter(hook: Any) -> cattrs.Converter:
    converter = cattrs.Converter()
    converter.register_structure_hook(Money, hook)
    return converter


def test_a_cattrs_hook_raising_a_connection_error_propagates() -> None:
    def lookup(value: Any, tp: Any) -> Money:
        raise ConnectionError(SECRET)

    with pytest.raises(ConnectionError, match="hunter2"):
        decode(Order, '{"total": 5}', converter=_converter(lookup))


def test_a_cattrs_hook_refusing_the_value_is_the_models_mistake() -> None:
    def strict(value: Any, tp: Any) -> Money:
        if not isinstance(value, int):
            raise TypeError("cents must be a whole number")
        return Money(value)

    with pytest.raises(DecodeError, match="cents must be a whole number"):
        decode(Order, '{"total": "5"}', converter=_converter(strict))


def test_a_cattrs_validation_error_from_a_hook_is_the_models_mistake() -> None:
    inner = cattrs.Converter()

    def nested(value: Any, tp: Any) -> Money:
        return inner.structure(value, Money)

    with pytest.raises(DecodeError):
        decode(Order, '{"total": {"cents": "x"}}', converter=_converter(nested))


def _refuse(instance: object, attribute: object, value: object) -> None:
    raise ConnectionError("postgres://app:hunter2@db")


@attrs.define
class Query:
    text: str = attrs.field(validator=_refuse)


def search(query: Query) -> str:
    """Search."""
    return query.text


def test_a_tool_arguments_validator_that_fails_is_the_tools_error_not_a_raise() -> None:
    """Toolbox.call never raises: an argument validator's ConnectionError is an error
    result under the toolbox's error policy, and its text stays out of it by default."""
    from describedtypes import Toolbox

    box = Toolbox([search], error_detail="type")
    result = box.call("search", {"query": {"text": "x"}}, call_id="c1")
    assert result.is_error
    assert isinstance(result.exception, ConnectionError)
    assert "hunter2" not in result.content
