"""Decoding a reply while it streams: typed partial values, then the finished instance.

The growing text is parsed with jiter's partial mode (the ``describedtypes[stream]``
extra), which reads a JSON prefix as the value it has so far. Parsing the whole prefix
after every chunk would cost time quadratic in the reply, so a parse runs only once
the text has grown by a third since the last one (and by at least ``_MIN_STEP``):
the parsed lengths grow geometrically and their sum stays a small multiple of the
reply's length. The partial builder (``_codec/partial_builder.py``) then decodes only the members
that finished since the last parse. When the stream ends, the whole reply is decoded
once by ``decode()``'s own rules, and provider streams by ``decode_response()``'s:
refusals, cut-off replies and the choice between text and tool call are the same.

Provider SDKs are never imported: stream events are read by attribute (SDK objects) or
by key (dicts), by their documented shapes:
OpenAI Chat Completions chunks (https://platform.openai.com/docs/api-reference/chat-streaming),
OpenAI Responses events (https://platform.openai.com/docs/api-reference/responses-streaming)
and Anthropic Messages events (https://docs.anthropic.com/en/docs/build-with-claude/streaming).
Event types not listed there are skipped, so new kinds of events do not break a stream.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, TypeVar, overload

import orjson

from .._base.lazy import install_hint
from .._base.records import ToolCall
from .._codec.decode import decode, decoder_for
from .._codec.fast import FALLBACK
from .._codec.partial import Partial
from .._codec.partial_builder import PartialBuilder, PartialPlan, SkimRefused
from .._types import cache as _cache
from .._types import inspector as ni
from .._types.annotate import Registry, annotate, current_stamp
from ..errors import DecodeError, IncompleteReplyError, RefusalError
from .access import ShapeError, field_of
from .detect import event_format
from .replies import decode_reply
from .wire import Reply, StreamState, WireFormat, tool_name_of

__all__ = ["StreamDecoder", "adecode_stream", "decode_stream"]

T = TypeVar("T")

#: A parse runs once the text has grown by this fraction since the last one ...
_GROWTH = 1 / 3
#: ... and by at least this many bytes.
_MIN_STEP = 16
#: The most a stream may send: characters (or bytes) of its text and every tool call's
#: arguments together.
_MAX_REPLY = 64 * 1024 * 1024
#: The most tool calls one streamed reply may make.
_MAX_CALLS = 1024
#: The most events of one stream that add nothing to its reply (no text, no call, no
#: refusal: pings, empty deltas, usage chunks); a real stream sends a handful, a broken
#: server may send them forever.
_MAX_IDLE = 100_000
#: The most characters of refusal text kept (the rest is counted, not kept).
_MAX_REFUSAL = 16 * 1024
#: Pieces waiting for the next parse are joined once this many have arrived, so a
#: stream of a million one-character deltas holds one buffer, not a million strings.
_MAX_PENDING = 256
#: Text ending in a digit may be a number still being written (jiter keeps it: "12" may
#: become "120"); one ending in ".", "e", "+" or "-" is dropped by jiter already.
_NUMBER_END = frozenset(b"0123456789")
_TEXT = (str, bytes, bytearray, memoryview)
#: What ``bytes.rstrip()`` takes for blanks.
_SPACE = frozenset(b" \t\n\r\x0b\x0c")

_EXTRA = (
    "decode_stream() and adecode_stream() read partial JSON with the jiter package, "
    f"which is not installed; install it with: {install_hint('jiter>=0.5', 'stream')}"
)


def _jiter() -> Any:
    try:
        import jiter  # an optional extra: imported when first needed
    except ImportError:
        raise ModuleNotFoundError(_EXTRA, name="jiter") from None
    return jiter


# -- compiled plans, per type ---------------------------------------------------------


#: Hooked plans kept per type: a few converters each, as the decoder keeps its own.
_HOOKED_PLANS = 4


def _plan(tp: Any, converter: Any, registry: Registry, decoder: Any = None) -> PartialPlan:
    """The partial builder's compiled functions for ``tp``, kept with the type itself.

    With a converter, the plan is kept beside the decoder it was built with: the decoder
    is rebuilt when a registration or the converter's hooks change, and so the plan.
    """
    if converter is not None:
        return _hooked_plan(tp, converter, registry, decoder)
    found = _current_plan(tp, registry)
    if found is not None:
        return found
    key: Any = ("stream plan", tp, registry)
    stamp = current_stamp()
    plan = PartialPlan(tp, None, registry)
    _cache.put(tp, key, _cache.Entry(plan, registry, stamp, node=plan.root))
    return plan


def _current_plan(tp: Any, registry: Registry) -> PartialPlan | None:
    """The plan kept for ``tp`` (no converter), if it is still current."""
    entry = _cache.fast_get(tp, ("stream plan", tp), registry)
    if entry is None:
        entry = _cache.get(tp, ("stream plan", tp, registry))
    if entry is not None and entry.is_current(lambda: ni.type_info(tp, registry)):
        found: PartialPlan = entry.value
        return found
    return None


def _hooked_plan(tp: Any, converter: Any, registry: Registry, decoder: Any) -> PartialPlan:
    key: Any = ("stream plan, hooked", tp, registry)
    entry = _cache.get(tp, key)
    table: dict[int, tuple[Any, Any, PartialPlan]] = {}
    if entry is not None and entry.is_current(lambda: ni.type_info(tp, registry)):
        table = entry.value
        hit = table.get(id(converter))
        if hit is not None and hit[0] is converter and hit[1] is decoder:
            return hit[2]
    stamp = current_stamp()
    plan = PartialPlan(tp, converter, registry)
    table = dict(table)
    table[id(converter)] = (converter, decoder, plan)
    while len(table) > _HOOKED_PLANS:
        del table[next(iter(table))]
    _cache.put(tp, key, _cache.Entry(table, registry, stamp, node=plan.root))
    return plan


# -- one growing text -----------------------------------------------------------------


class _Text:
    """One growing reply (the message text, or one tool call's arguments)."""

    __slots__ = (
        "buf", "builder", "call_id", "due_at", "from_json", "name", "only_str", "pending",
        "size", "start", "value",
    )

    def __init__(self, plan: PartialPlan, from_json: Any, name: Any = None) -> None:
        self.name = name
        self.call_id: str | None = None  # a tool call's provider id, once it arrives
        self.pending: list[Any] = []  # pieces not yet in buf (joined at the next parse)
        self.buf = bytearray()
        self.size = 0  # characters (str pieces) or bytes received, pending ones included
        self.due_at = _MIN_STEP  # the size at which the next parse runs
        self.only_str = True  # every piece was str: the whole reply is decoded as str
        self.builder = PartialBuilder(plan)
        self.builder.from_json = from_json
        self.from_json = from_json
        self.start = -1  # where the JSON starts (after a markdown fence), once known
        self.value: Any = None  # arguments that arrived as an object (Gemini), not text

    def add(self, piece: Any) -> bool:
        """Append a piece; True when enough has arrived for the next parse."""
        if type(piece) is not str:
            if isinstance(piece, str):
                piece = str(piece)
            else:
                piece = bytes(piece)  # a copy: a bytearray may change after it is sent
                self.only_str = False
        self.pending.append(piece)
        self.size += len(piece)
        if len(self.pending) >= _MAX_PENDING:
            self._flush()
        return self.size >= self.due_at

    def _flush(self) -> bytearray:
        pending = self.pending
        if pending:
            if self.only_str:
                self.buf += "".join(pending).encode("utf-8", "surrogatepass")
            else:
                self.buf += b"".join(
                    p.encode("utf-8", "surrogatepass") if isinstance(p, str) else p
                    for p in pending
                )
            pending.clear()
        return self.buf

    def text(self) -> Any:
        """The whole reply, as ``str`` when every piece was ``str``."""
        buf = self._flush()
        if self.only_str:
            return buf.decode("utf-8", "surrogatepass")
        return bytes(buf)

    def partial(self) -> Partial[Any] | None:
        """The partial value of the text so far, or None when nothing can be shown yet."""
        buf = self._flush()
        self.due_at = self.size + max(_MIN_STEP, int(self.size * _GROWTH))
        if self.start < 0 and not self._find_start():
            return None
        builder = self.builder
        # The JSON to parse: with the finished items of a long open array left out
        # (they were decoded from their own text), else the whole text so far.
        try:
            json = builder.skim(buf)
        except RecursionError:  # an item nested too deep to decode: parse the whole text
            builder.stop_skimming()
            json = None
        if json is None:
            # How deep the text is open, and whether it ends inside a string: only the
            # bytes that arrived since the last parse are read.
            builder.see(buf, self.start)
            json = self._json()
        try:
            parsed = self.from_json(json, partial_mode="trailing-strings")
        except ValueError:
            return None  # not JSON (yet); the final decode says what is wrong
        if builder.text_in_string:
            builder.in_string = self._open_value(parsed, json)
            builder.in_number = False
        else:
            builder.in_string = False
            builder.in_number = buf[-1] in _NUMBER_END
        try:
            try:
                partial = builder.build(parsed)
            except SkimRefused:
                return self.partial_of_whole()
        except RecursionError:
            return None
        if builder.skimmed is None:
            builder.find_items(buf, self.start, partial)
        return partial

    def decoded(self, tp: Any, opts: dict[str, Any], data: Any = None) -> Any:
        """``decode(tp, data)``, where ``data`` is this whole text (as ``str`` or ``bytes``;
        by default ``text()``): with the items of a long array that were read as they
        arrived taken as they are rather than read again, where the text is the JSON
        alone and the type's rules are the ones the stream began with."""
        builder = self.builder
        if (
            builder.kept is not None
            and self.start == 0
            and opts["converter"] is None
            and (data is None or len(data) == self.size)
            and builder.plan is _current_plan(tp, opts["registry"])
        ):
            value = builder.final(self._flush())
            if value is not FALLBACK:
                return value
        return decode(tp, self.text() if data is None else data, **opts)

    def partial_of_whole(self) -> Partial[Any] | None:
        """The partial of the whole text parsed (the skimmed parse was refused)."""
        builder = self.builder
        json = self._json()
        try:
            parsed = self.from_json(json, partial_mode="trailing-strings")
        except ValueError:
            return None
        if builder.text_in_string:
            builder.in_string = self._open_value(parsed, json)
        return builder.build(parsed)

    def _json(self) -> bytes:
        """The JSON text so far, as the bytes jiter reads (one copy)."""
        buf = self.buf
        return bytes(buf) if self.start == 0 else bytes(memoryview(buf)[self.start :])

    def _open_value(self, parsed: Any, json: bytes) -> bool:
        """Whether the string the text ends in is a value (shown growing), not a key."""
        buf, start = self.buf, self.start
        quote = len(buf)
        while True:  # the opening quote: the last one not escaped by a backslash
            quote = buf.rfind(b'"', start, quote)
            if quote < 0:
                return False
            if quote == start or buf[quote - 1] != 0x5C:  # (most often: no backslash)
                break
            before = quote
            while before > start and buf[before - 1] == 0x5C:  # backslash
                before -= 1
            if (quote - before) % 2 == 0:
                break
        last = buf[quote - 1] if quote > start else None
        if last is None or last in _SPACE:  # the byte before it, blanks skipped
            head = bytes(buf[max(start, quote - 64) : quote]).rstrip()
            last = head[-1] if head else None
        if last == 0x7B:  # {
            return False
        if last != 0x2C:  # ,
            return True  # after ':' or '[' (or at the start): a value
        # After a comma: a key in an object, an item in an array. The innermost open
        # container holds the comma: the parse's last member that many levels down.
        builder = self.builder
        open_at = builder.depth
        if open_at is not None and open_at > 0:
            inner = parsed
            for _ in range(open_at - builder.parsed_level):
                if type(inner) is dict and inner:
                    inner = inner[next(reversed(inner))]
                elif type(inner) is list and inner:
                    inner = inner[-1]
                else:
                    break
            else:
                if type(inner) is list:
                    return True
                if type(inner) is dict:
                    return False
        # (Not found so: a partial parse drops an unfinished key but keeps an unfinished
        # item, so the two parses differ only for an item.)
        try:
            solid = self.from_json(json, partial_mode="on")
        except ValueError:
            return True
        return bool(solid != parsed)

    def _find_start(self) -> bool:
        """Where the JSON starts: after leading blanks and an opening markdown fence."""
        head = bytes(self.buf[:64]).lstrip()
        if not head:
            return False
        if head.startswith(b"```"):
            newline = self.buf.find(b"\n", self.buf.find(b"`"))
            if newline < 0:
                return False
            self.start = newline + 1
        else:
            self.start = 0
        return True


# -- reading chunks and events --------------------------------------------------------


class _Stream(StreamState):
    """The state of one stream: its texts, the provider's verdict, the last partial."""

    def __init__(self, tp: Any, converter: Any, registry: Registry) -> None:
        self.tp = tp
        self.opts: dict[str, Any] = {"converter": converter, "registry": registry}
        # A type streamed before has its plan kept (current while no registration
        # happened since); else the type, converter and registry are checked first, as
        # decode() checks them, and the plan is made beside the decoder.
        plan = _current_plan(tp, registry) if converter is None else None
        if plan is None:
            plan = _plan(tp, converter, registry, decoder_for(tp, converter, registry))
        self.plan = plan
        self.from_json = _jiter().from_json
        self.kind: str | None = None  # "text", or the name of the events' wire format
        self.wire: WireFormat | None = None
        self.count = 0
        self.idle = 0  # events that added nothing to the reply
        self.text = _Text(self.plan, self.from_json)  # the answer's text
        self.texts: dict[Any, _Text] = {None: self.text}  # every message's, by key
        self.answer: Any = None  # the key of the answer's message
        self.tools: dict[Any, _Text] = {}
        self.refusal: list[str] = []
        self.refusal_size = 0
        self.size = 0  # characters or bytes of every text of the stream together
        # (The name decode_response picks a call by: the default registry's.)
        self.wanted = plan.tool_name if registry is annotate else tool_name_of(tp)
        self.named: _Text | None = None  # the first tool call named like the type
        self.last: Partial[Any] | None = None
        self.reply: Reply | None = None  # what the stream amounted to, once it ended

    @property
    def refusal_text(self) -> str:
        return "".join(self.refusal)

    # Which text the partials follow, as decode_response would choose its reply: the
    # tool call named like the type, else the message text, else the only tool call.
    # O(1): the named call is remembered when its name arrives.
    def current(self) -> _Text | None:
        if self.named is not None:
            return self.named
        if self.text.size:
            return self.text
        if len(self.tools) == 1:
            return next(iter(self.tools.values()))
        return None

    def feed(self, chunk: Any) -> Partial[Any] | None:
        self.count += 1
        if type(chunk) is str and chunk and self.kind == "text":
            # The common case, spelled out: a non-empty text piece of a text stream (it
            # adds to the reply, so it is never idle). Runs once per chunk.
            size = self.size = self.size + len(chunk)
            if size > _MAX_REPLY:
                self._grow(0)  # says it is too long
            text = self.text
            pending = text.pending
            pending.append(chunk)
            text.size += len(chunk)
            if len(pending) >= _MAX_PENDING:
                text._flush()
            if text.size < text.due_at:
                return None
            return self._show(text)
        before = (self.size, len(self.tools), self.refusal_size)
        partial = self._feed(chunk)
        if (self.size, len(self.tools), self.refusal_size) == before:
            self.idle += 1
            if self.idle > _MAX_IDLE:
                raise IncompleteReplyError(
                    f"the stream sent more than {_MAX_IDLE:,} events that added nothing "
                    "to the reply; the server is not answering"
                )
        return partial

    def _feed(self, chunk: Any) -> Partial[Any] | None:
        if isinstance(chunk, _TEXT):
            if self.kind != "text":
                self._kind("text", None)
            if not chunk:
                return None
            # add_text(chunk), spelled out: this runs once per chunk of a text stream.
            self.size += len(chunk)
            if self.size > _MAX_REPLY:
                self._grow(0)  # says it is too long
            target = self.texts.get(None) or self._message(None)
            due = target.add(chunk)
        else:
            wire = event_format(chunk)
            if wire is None:
                self._other(chunk)
                return None
            if field_of(chunk, "type") == "chunk":  # the openai SDK's .stream() helper
                chunk = field_of(chunk, "chunk")
            self._kind(wire.name, wire)
            try:
                target, due = wire.feed(self, chunk)
            except ShapeError as exc:  # say which chunk it was
                msg = f"chunk {self.count} (an {wire.name} event): {exc}"
                raise ShapeError(msg) from None
        if not due or target is None or target is not self.current():
            return None
        return self._show(target)

    def _show(self, target: _Text) -> Partial[Any] | None:
        """The partial of the text the partials follow, when it shows something new."""
        partial = target.partial()
        if partial is None or partial == self.last:
            return None
        self.last = partial
        return partial

    def _other(self, event: Any) -> None:
        kind = field_of(event, "type")
        if not isinstance(kind, str):
            msg = (
                f"chunk {self.count} is a {type(event).__name__} without a type: "
                "decode_stream() reads text chunks (str or bytes), or the events of an "
                "OpenAI, Anthropic or Gemini stream (SDK objects or dicts)"
            )
            raise TypeError(msg)
        if kind == "error":
            error = field_of(event, "error")
            message = (
                field_of(event, "message") or field_of(error, "message") or str(error or event)
            )
            raise DecodeError([("$", f"the response failed: {str(message)[:500]}")])
        return  # an event kind with nothing to decode (ping, helpers' events)

    def _kind(self, kind: str, wire: WireFormat | None) -> None:
        if self.kind is None:
            self.kind, self.wire = kind, wire
        elif self.kind != kind:
            msg = (
                f"chunk {self.count} is {_describe(kind)}, but the stream began with "
                f"{_describe(self.kind)}; pass one stream: the text, or one provider's events"
            )
            raise TypeError(msg)

    # -- what the wire formats add (StreamState) ------------------------------------

    def _grow(self, size: int) -> None:
        self.size += size
        if self.size > _MAX_REPLY:
            raise DecodeError(
                [("$", f"the reply is longer than {_MAX_REPLY // 2**20} MiB in all; "
                  "ask for a shorter answer")]
            )

    def add_text(self, piece: Any, key: Any = None) -> tuple[_Text | None, bool]:
        if isinstance(piece, _TEXT) and piece:
            self._grow(len(piece))
            text = self._message(key)
            return text, text.add(piece)
        return None, False

    def _message(self, key: Any) -> _Text:
        text = self.texts.get(key)
        if text is None:  # the format bounds how many messages it keys
            text = self.texts[key] = _Text(self.plan, self.from_json)
        return text

    def choose_text(self, key: Any) -> None:
        # Partials follow the answer's text (current()); a message that is not the
        # answer gets none, and the partials start over when the answer changes.
        self.answer = key
        self.text = self._message(key)

    def set_text(self, text: str) -> None:
        old = self.text
        self.size -= old.size
        self._grow(len(text))
        new = _Text(self.plan, self.from_json, old.name)
        if text:
            new.add(text)
        self.texts[self.answer] = self.text = new

    def reply_text(self) -> str:
        """The answer's text as it stands (what goes back into the conversation)."""
        text = self.text.text()
        return text.decode("utf-8", "replace") if isinstance(text, bytes) else text

    def text_of(self, key: Any) -> str:
        found = self.texts.get(key)
        if found is None:
            return ""
        text = found.text()
        return text.decode("utf-8", "replace") if isinstance(text, bytes) else text

    def add_call(
        self, key: Any, name: Any, piece: Any, *, whole: bool = False, call_id: Any = None
    ) -> tuple[_Text | None, bool]:
        tool = self.tools.get(key) if key is not None else None
        if tool is None:
            if len(self.tools) >= _MAX_CALLS:
                raise DecodeError(
                    [("$", f"the reply makes more than {_MAX_CALLS} tool calls; ask for "
                      "fewer")]
                )
            tool = _Text(self.plan, self.from_json, None)
            self.tools[key if key is not None else ("call", len(self.tools))] = tool
        if isinstance(name, str) and name and tool.name is None:
            tool.name = name
            if self.named is None and name == self.wanted:
                self.named = tool
        if isinstance(call_id, str) and call_id and tool.call_id is None:
            self._grow(len(call_id))  # counted with the reply: a stream is bounded whole
            tool.call_id = str(call_id)
        if whole:
            if tool.size or piece is None:
                return tool, False
            if not isinstance(piece, _TEXT):  # arguments given as an object (Gemini)
                tool.value = piece
                return None, False
        if isinstance(piece, _TEXT) and piece:
            self._grow(len(piece))
            return tool, tool.add(piece)
        return tool, False

    def add_refusal(self, piece: Any) -> None:
        if not isinstance(piece, str) or not piece:
            return
        room = _MAX_REFUSAL - self.refusal_size
        if room > 0:
            self.refusal.append(piece[:room])
        self.refusal_size += len(piece)
        if self.refusal_size > _MAX_REFUSAL and room > 0:
            self.refusal.append(" [... the refusal went on; cut here]")

    # -- the end ------------------------------------------------------------------

    def calls(self) -> list[ToolCall]:
        """The tool calls the stream made, in order, each with its provider id when the
        stream gave one (the results going back must carry it, as for a whole reply)."""
        return [
            ToolCall(t.name or "", t.value if t.value is not None else t.text(), t.call_id)
            for t in self.tools.values()
        ]

    def finish(self) -> Any:
        tp, opts = self.tp, self.opts
        if self.wire is None:  # text chunks (or nothing at all)
            return self.text.decoded(tp, opts)
        text = self.reply_text()
        calls = self.calls()
        # The texts the reply's candidates for decoding were read from, by identity.
        texts = {id(text): self.text} if text else {}
        for call, tool in zip(calls, self.tools.values(), strict=True):
            if type(call.arguments) is str and call.arguments:
                texts[id(call.arguments)] = tool

        def decoded(tp: Any, data: Any, **opts: Any) -> Any:
            found = texts.get(id(data))
            if found is None:
                return decode(tp, data, **opts)
            return found.decoded(tp, opts, data)

        reply = self.reply = self.wire.stream_reply(self, text, calls)
        try:
            return decode_reply(tp, reply, decoder=decoded, **opts)
        except (RefusalError, IncompleteReplyError):
            raise
        except DecodeError:
            if self.stop is not None or self.status is not None or _whole(reply):
                raise
        # No finish reason and JSON that stops short: the stream was cut (a dropped
        # connection, a proxy's timeout), which is no mistake of the model's.
        cut = IncompleteReplyError(_CUT)
        cut.args = (f"The reply stopped before it was complete ({_CUT}); ask again.",)
        raise cut from None


#: The reason of a stream that ended with no finish reason before its reply was whole.
_CUT = "the stream ended without a finish reason; the connection was cut"


def _whole(reply: Any) -> bool:
    """Whether the reply's text, or else its one tool call's arguments, is whole JSON
    (a mistake of the model's, not a stream cut short)."""
    texts = [reply.text] if reply.text else [c.arguments for c in reply.calls]
    for text in texts:
        if not isinstance(text, str):
            return True  # arguments given as an object arrived whole
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError:
            return False
    return bool(texts)


#: One stream's decoder (``feed`` each event, ``finish`` at the end; ``usage`` holds the
#: usage the stream reported): what ``extract_stream`` drives, one per attempt.
StreamDecoder = _Stream


def _describe(kind: str) -> str:
    return "text" if kind == "text" else f"an {kind} event"


# -- the entry points -----------------------------------------------------------------


def _hostile(name: str, chunks: Any, method: str, exc: BaseException) -> ShapeError:
    return ShapeError(
        f"{name}(): the stream's {method} raised {type(exc).__name__}, so it cannot be "
        f"read ({type(chunks).__name__}); pass the stream as the provider's SDK returns it"
    )


def _has(chunks: Any, method: str, name: str) -> bool:
    """Whether ``chunks`` has ``method``; a lookup that raises is a ShapeError."""
    try:
        return hasattr(chunks, method)
    except Exception as exc:
        raise _hostile(name, chunks, method, exc) from None


def _close(source: Any, *names: str) -> Any:
    """The source's close method, if it has one (a lookup that raises: none)."""
    for method in names:
        try:
            close = getattr(source, method, None)
        except Exception:
            continue
        if callable(close):
            return close
    return None


def _chunk_iterator(chunks: Any, name: str) -> Iterator[Any]:
    if isinstance(chunks, dict) and "stream" in chunks and "type" not in chunks:
        chunks = chunks["stream"]  # what Bedrock's converse_stream returns
    if isinstance(chunks, (*_TEXT, dict)):
        msg = (
            f"{name}() takes an iterable of chunks, got a single {type(chunks).__name__}; "
            "pass the stream itself (or [text]), or use decode() for a whole reply"
        )
        raise TypeError(msg)
    if _has(chunks, "__aiter__", name) and not _has(chunks, "__iter__", name):
        msg = f"{name}() takes a sync iterable; for an async stream use adecode_stream()"
        raise TypeError(msg)
    try:
        return iter(chunks)
    except TypeError:
        msg = (
            f"{name}() takes an iterable of chunks (text, or a provider's stream events), "
            f"got {type(chunks).__name__}"
        )
        raise TypeError(msg) from None
    except Exception as exc:
        raise _hostile(name, chunks, "__iter__", exc) from None


@overload
def decode_stream(
    tp: type[T], chunks: Iterable[Any], *, converter: Any = None, registry: Registry = annotate
) -> Iterator[T | Partial[T]]: ...
@overload
def decode_stream(
    tp: Any, chunks: Iterable[Any], *, converter: Any = None, registry: Registry = annotate
) -> Iterator[Any]: ...
def decode_stream(
    tp: Any, chunks: Iterable[Any], *, converter: Any = None, registry: Registry = annotate
) -> Iterator[Any]:
    """Decode a reply while it streams: ``Partial`` values as it grows, then the instance.

    ``chunks`` is an iterable of text pieces (``str`` or ``bytes``), or a provider's
    stream, as SDK objects or dicts: OpenAI Chat Completions chunks (``stream=True``;
    the ``delta.content``, or the ``tool_calls`` arguments), OpenAI Responses events
    (``response.output_text.delta``, ``response.function_call_arguments.delta``; of
    several output messages, only the answer's, as ``decode_response()`` picks it) or
    Anthropic Messages events (``text_delta``, ``input_json_delta``) or Bedrock Converse
    events (``contentBlockDelta``; what ``converse_stream`` returns may be passed whole).

    While the reply grows, each new ``Partial[tp]`` shows every field that has arrived,
    decoded (see ``Partial`` for strings and lists still growing). The reply is parsed
    again only once it has grown by a third, so the cost stays linear in its length
    and partials come less often as it gets long. The last value is the decoded
    instance, exactly as ``decode()`` (for text) or ``decode_response()`` (for a
    provider's stream) gives it.

    Args:
        tp: The type to decode into, as for ``decode()``.
        chunks: The stream.
        converter: Passed on to ``decode()``.
        registry: Passed on to ``decode()``.

    Yields:
        ``Partial[tp]`` values while the reply grows, then the ``tp`` instance.

    Raises:
        DecodeError: At the end, when the whole reply does not decode (the same error
            ``decode()`` raises), or when the provider reports an error.
        RefusalError: The model refused.
        IncompleteReplyError: The reply was cut off (token limit, content filter).
        TypeError: ``chunks`` is not an iterable, or a chunk is neither text nor a
            provider's event.
        ModuleNotFoundError: jiter is not installed (``describedtypes[stream]``).

    When the stream fails or the loop stops early, the source's ``close()`` is called
    if it has one, so an SDK stream releases its connection.

    .. versionadded:: 0.2.0
    """
    stream = _Stream(tp, converter, registry)
    return _run(stream, _chunk_iterator(chunks, "decode_stream"), chunks)


def _run(stream: _Stream, chunks: Iterator[Any], source: Any) -> Iterator[Any]:
    done = False
    text: _Text | None = None  # the reply, once the stream is known to be plain text
    # feed()'s short path for text pieces, spelled out here with the counts in locals:
    # this runs once per chunk, and a call or an attribute update per chunk was a fifth
    # of a text stream's cost. The pieces go to the text's pending list at once; the
    # counts are brought up to date (and the limits checked) once ``room`` characters
    # have arrived (the next parse is due, or the reply would pass its limit) or the
    # pending list is full, and before anything else reads them.
    pending: list[Any] = []
    synced = 0  # len(pending) when the counts were last brought up to date
    waiting = 0  # characters appended since then
    room = 0  # how many may arrive before the next catch-up
    left = 0  # how many more pieces the pending list takes before it is joined
    try:
        for chunk in chunks:
            if type(chunk) is str and text is not None and chunk:
                pending.append(chunk)
                waiting += len(chunk)
                left -= 1
                if waiting < room and left:
                    continue
                stream.count += len(pending) - synced
                stream.size += waiting
                text.size += waiting
                waiting = 0
                if stream.size > _MAX_REPLY:
                    stream._grow(0)  # says it is too long
                if len(pending) >= _MAX_PENDING:
                    text._flush()
                partial = stream._show(text) if text.size >= text.due_at else None
            else:
                if text is not None and waiting:
                    stream.count += len(pending) - synced
                    stream.size += waiting
                    text.size += waiting
                    waiting = 0
                partial = stream.feed(chunk)
                if stream.kind == "text":
                    text = stream.text
                    pending = text.pending
            if text is not None:
                synced = len(pending)
                left = _MAX_PENDING - synced
                room = min(text.due_at - text.size, _MAX_REPLY + 1 - stream.size)
            if partial is not None:
                yield partial
        done = True
    finally:
        if text is not None and waiting:
            stream.count += len(pending) - synced
            stream.size += waiting
            text.size += waiting
        if not done:  # stopped early or failed: let an SDK stream release its connection
            close = _close(source, "close")
            if close is not None:
                close()
    yield stream.finish()


@overload
def adecode_stream(
    tp: type[T], chunks: AsyncIterable[Any], *, converter: Any = None,
    registry: Registry = annotate,
) -> AsyncIterator[T | Partial[T]]: ...
@overload
def adecode_stream(
    tp: Any, chunks: AsyncIterable[Any], *, converter: Any = None, registry: Registry = annotate
) -> AsyncIterator[Any]: ...
def adecode_stream(
    tp: Any, chunks: AsyncIterable[Any], *, converter: Any = None, registry: Registry = annotate
) -> AsyncIterator[Any]:
    """``decode_stream()`` for an async stream (``async for value in adecode_stream(...)``).

    Takes what ``decode_stream()`` takes, as an async iterable (an ``AsyncOpenAI`` or
    ``AsyncAnthropic`` stream, an async generator of text), and yields the same values.

    .. versionadded:: 0.2.0
    """
    if not _has(chunks, "__aiter__", "adecode_stream"):
        sync = _has(chunks, "__iter__", "adecode_stream")
        hint = "; for a sync iterable use decode_stream()" if sync else ""
        msg = (
            f"adecode_stream() takes an async iterable of chunks (text, or a provider's "
            f"stream events), got {type(chunks).__name__}{hint}"
        )
        raise TypeError(msg)
    stream = _Stream(tp, converter, registry)
    return _arun(stream, chunks)


async def _arun(stream: _Stream, chunks: AsyncIterable[Any]) -> AsyncIterator[Any]:
    done = False
    try:
        try:
            iterator = chunks.__aiter__()
        except Exception as exc:
            raise _hostile("adecode_stream", chunks, "__aiter__", exc) from None
        while True:
            # The errors of __anext__ are the source's own (a provider's network error
            # among them): they pass unchanged.
            try:
                chunk = await iterator.__anext__()
            except StopAsyncIteration:
                break
            partial = stream.feed(chunk)
            if partial is not None:
                yield partial
        done = True
    finally:
        if not done:  # stopped early or failed: let an SDK stream release its connection
            close = _close(chunks, "aclose", "close")
            if close is not None:
                closed = close()
                if inspect.isawaitable(closed):
                    await closed
    yield stream.finish()

