"""A stand-in for the provider APIs that checks each request the way the API does.

The docs' blocks that talk to a model run against it (``<!-- stand-in: NAME -->`` before a
block in a page; the replies are ``tests/standin_replies.py``'s ``REPLIES[NAME]``). While a
block runs, ``openai.OpenAI``/``AsyncOpenAI`` and ``anthropic.Anthropic``/``AsyncAnthropic``
make the SDK's own client, over a ``MockTransport`` of the SDK's own HTTP package, and
``boto3.client("bedrock-runtime")`` makes boto3's own client, answered before it sends
(botocore validates each request against the service model first, and the canned reply
is validated against the operation's output shape, as botocore's Stubber does). Each
request body is validated with pydantic against the SDK's own ``TypedDict`` of that
endpoint's parameters (``CompletionCreateParams*``, ``ResponseCreateParams*``,
``MessageCreateParams*``, streaming or not as the body says), and its top-level keys
against the TypedDict's own (TypedDict validation ignores unknown keys, so a misspelt
``respose_format`` would pass otherwise). A request the API would refuse gets the API's
400 error body, so the SDK raises ``BadRequestError`` as it would against the service.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import typing
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pydantic

#: (SDK, HTTP path) -> (module, non-streaming TypedDict, streaming TypedDict)
ENDPOINTS = {
    ("openai", "/v1/chat/completions"): (
        "openai.types.chat.completion_create_params",
        "CompletionCreateParamsNonStreaming", "CompletionCreateParamsStreaming",
    ),
    ("openai", "/v1/responses"): (
        "openai.types.responses.response_create_params",
        "ResponseCreateParamsNonStreaming", "ResponseCreateParamsStreaming",
    ),
    ("anthropic", "/v1/messages"): (
        "anthropic.types.message_create_params",
        "MessageCreateParamsNonStreaming", "MessageCreateParamsStreaming",
    ),
    ("openai", "/v1/batches"): (
        "openai.types.batch_create_params", "BatchCreateParams", "BatchCreateParams",
    ),
    ("anthropic", "/v1/messages/batches"): (
        "anthropic.types.messages.batch_create_params", "BatchCreateParams",
        "BatchCreateParams",
    ),
}
_CHECKERS: dict[tuple[str, bool], tuple[pydantic.TypeAdapter[Any], frozenset[str]]] = {}


def _checker(sdk: str, path: str, stream: bool) -> tuple[pydantic.TypeAdapter[Any], frozenset[str]]:
    module, plain, streaming = ENDPOINTS[(sdk, path)]
    key = (module, stream)
    if key not in _CHECKERS:  # building one takes seconds: once per session
        params = getattr(importlib.import_module(module), streaming if stream else plain)
        _CHECKERS[key] = (
            pydantic.TypeAdapter(params), frozenset(typing.get_type_hints(params)),
        )
    return _CHECKERS[key]


def problems(sdk: str, path: str, body: dict[str, Any]) -> list[str]:
    """What the API would refuse in ``body``: unknown keys, missing or mistyped values."""
    if (sdk, path) not in ENDPOINTS:
        return [f"{path}: no such endpoint known to the stand-in"]
    adapter, keys = _checker(sdk, path, bool(body.get("stream")))
    found = [f"{k}: not a parameter of {path}" for k in sorted(set(body) - keys)]
    try:
        adapter.validate_python(body)
    except pydantic.ValidationError as exc:
        found += [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:8]]
    return found


def _http_of(sdk: Any) -> Any:
    """The HTTP package the SDK's client is built on (httpx, or httpx2 in newer SDKs)."""
    base = importlib.import_module(f"{sdk.__name__}._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _sse(events: list[dict[str, Any]], *, named: bool) -> bytes:
    out = []
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n")
    if not named:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


class StandIn:
    """Canned replies served to the SDKs' clients, in order; every request kept in ``sent``.

    ``replies``: ``(sdk, reply)`` pairs, ``sdk`` being ``"openai"`` or ``"anthropic"``; a
    reply is the JSON body of a response, a list of events for a streamed one, or
    ``bytes`` (a file's content). Batch creation is checked like the other requests; a
    file upload must say ``purpose="batch"``.
    """

    def __init__(self, replies: list[tuple[str, Any]]) -> None:
        self.replies = list(replies)
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    def _answer(self, sdk_name: str, http: Any, request: Any) -> Any:
        path = request.url.path
        if request.method == "GET":  # retrieving a batch or a file: nothing to check
            body: dict[str, Any] = {}
            wrong: list[str] = []
        elif path == "/v1/files":  # an upload (multipart): the Batch API's purpose
            body = {}
            content = request.read()
            wrong = [] if b'name="purpose"' in content and b"\r\n\r\nbatch\r\n" in content else [
                "purpose: a batch input file is uploaded with purpose='batch'"]
        else:
            body = json.loads(request.content)
            wrong = problems(sdk_name, path, body)
        self.sent.append((sdk_name, path, body))
        if wrong:  # the API's own error shape: the SDK raises BadRequestError
            message = "; ".join(wrong)
            error = (
                {"error": {"message": message, "type": "invalid_request_error",
                           "param": None, "code": None}}
                if sdk_name == "openai"
                else {"type": "error", "error": {"type": "invalid_request_error",
                                                 "message": message}}
            )
            return http.Response(400, json=error)
        if not self.replies or self.replies[0][0] != sdk_name:
            expected = self.replies[0][0] if self.replies else "no more requests"
            return http.Response(500, json={"error": {
                "message": f"stand-in: a {sdk_name} request to {path}; expected {expected}",
                "type": "server_error"}})
        _, reply = self.replies.pop(0)
        if isinstance(reply, bytes):  # a file's content
            return http.Response(200, content=reply)
        if isinstance(reply, list):
            return http.Response(
                200, headers={"content-type": "text/event-stream"},
                content=_sse(reply, named=sdk_name == "anthropic"),
            )
        return http.Response(200, json=reply)

    @contextlib.contextmanager
    def serving(self) -> Iterator[StandIn]:
        """Make the SDKs' client classes build stand-in clients while the block runs."""
        patches = []
        for sdk_name, names in (("openai", ("OpenAI", "AsyncOpenAI")),
                                ("anthropic", ("Anthropic", "AsyncAnthropic"))):
            sdk = importlib.import_module(sdk_name)
            http = _http_of(sdk)
            for name in names:
                patches.append(mock.patch.object(
                    sdk, name, self._factory(sdk_name, getattr(sdk, name), http)
                ))
        try:
            boto3 = importlib.import_module("boto3")
        except ImportError:  # the blocks that use it then fail, saying so
            boto3 = None
        if boto3 is not None:
            patches.append(mock.patch.object(boto3, "client", self._boto3(boto3.client)))
        with contextlib.ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch)
            yield self

    def _boto3(self, real: Any) -> Any:
        from botocore.awsrequest import AWSResponse
        from botocore.validate import ParamValidator

        def sent(params: Any, model: Any, **kwargs: Any) -> None:
            self.sent.append(("bedrock", model.name, dict(params)))

        def answer(model: Any, params: Any, **kwargs: Any) -> Any:
            if not self.replies or self.replies[0][0] != "bedrock":
                expected = self.replies[0][0] if self.replies else "no more requests"
                msg = f"stand-in: a Bedrock {model.name} request; expected {expected}"
                raise AssertionError(msg)
            _, reply = self.replies.pop(0)
            report = ParamValidator().validate(reply, model.output_shape)
            if report.has_errors():
                raise AssertionError(report.generate_report())
            return AWSResponse(None, 200, {}, None), reply

        def make(service: str, *args: Any, **options: Any) -> Any:
            options.setdefault("region_name", "us-east-1")
            options.setdefault("aws_access_key_id", "stand-in")
            options.setdefault("aws_secret_access_key", "stand-in")
            client = real(service, *args, **options)
            client.meta.events.register("before-call.*.*", answer)
            client.meta.events.register("before-parameter-build.*.*", sent)
            return client

        return make

    def _factory(self, sdk_name: str, cls: Any, http: Any) -> Any:
        def answer(request: Any) -> Any:
            return self._answer(sdk_name, http, request)

        def make(**options: Any) -> Any:
            transport = http.MockTransport(answer)
            client = (http.AsyncClient if cls.__name__.startswith("Async") else http.Client)(
                transport=transport
            )
            options.setdefault("api_key", "stand-in")
            return cls(http_client=client, max_retries=0, **options)

        return make
