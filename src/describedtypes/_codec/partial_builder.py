"""Building partial values as a reply streams.

A JSON reply arrives front to back, so at any moment at most one value per level is
still open: the last member of each object or array along the "tail" of the text.
Everything before it is finished. The builder here keeps, for each open container on
that tail, the values already decoded for its finished members, so each parse of the
growing text decodes only what finished since the last one (plus the open tail);
finished values are decoded by the same compiled functions ``decode()`` uses.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import orjson

from .._types import inspector as ni
from .._types.annotate import Registry
from .codegen import HookSource
from .compiler import Compiler
from .fast import (
    FALLBACK,
    Splicer,
    fast_decoder_for,
    fast_items_decoder_for,
    fast_splicer_for,
)
from .jsonscan import BLANK, Depth, open_containers
from .partial import Partial, partial_of
from .problems import Invalid
from .values import has_newer_types, needs_exact

__all__ = ["SKIM", "PartialBuilder", "PartialPlan", "SkimRefused"]


#: (present, value, state, settled): whether anything is shown, what, the open
#: container's memory for the next parse, and whether the value is final.
_Built = tuple[bool, Any, Any, bool]
_ABSENT: _Built = (False, None, None, False)

#: What the builder does with a node's parsed value (``PartialPlan.kind``): a class's
#: object, a dict, an array or tuple, a union's (decided first), Any's, anything else's.
_OBJECT, _MAPPING, _ARRAY, _UNION, _ANY, _SCALAR = range(6)

#: The kinds of container around a skimmed array (``PartialBuilder._frames``): a class's
#: partial, a list, a dict, the partial of a list or dict at the top.
_IN_FIELDS, _IN_LIST, _IN_DICT, _AT_TOP = "fields", "list", "dict", "top"


class _OpenState:
    """One open container: its finished members, decoded once, and its tail's state."""

    __slots__ = ("count", "out", "raw", "tail", "tail_state")

    def __init__(self, out: Any) -> None:
        self.count = 0  # members finished and decoded so far
        self.out = out  # what they show: a dict of fields or entries, or a list of items
        #: An object's finished members as parsed, by key: a key sent again later (the
        #: last one wins, as in decode()) shows up as a changed value here.
        self.raw: dict[Any, Any] = {}
        self.tail: Any = None
        self.tail_state: Any = None


#: Whether finished items of the open array are read from their own text (tests turn it
#: off to compare with parsing the whole text).
SKIM = True
#: The most candidate item ends that may turn out not to be one before skimming stops.
_MAX_MISSES = 32
#: How many candidate ends, from the last, are tried as the end of all the new items.
_BATCH_TRIES = 4
#: The most times a stream looks for an array's items in the text ...
_MAX_ATTEMPTS = 2
#: ... and the longest text it looks in (a Python step per string and bracket: the
#: array of objects usually opens near the start; one that opens later is parsed whole).
_MAX_FIND = 256 * 1024


class _Skim:
    """An open array of objects whose finished items are read from their own text.

    The array is open on the text's tail at ``level``; ``head`` is the text up to and
    including its ``[``, and ``at`` is where the item not yet read begins (its ``{``),
    item number ``index``. Items end where ``sep`` (the bytes from one item's ``}`` to
    the next one's ``{``, as this reply writes them) follows; a candidate end is taken
    only if the bytes from ``at`` to it are one whole JSON value, so a ``sep`` inside a
    string or a nested array is never mistaken for one. Each parse then reads the head
    and the open item only.
    """

    __slots__ = ("array", "at", "depth", "exact", "fast", "fast_items", "first", "first_index",
                 "frames", "head", "index", "level", "misses", "node", "search", "sep", "state")

    def __init__(self, level: int, state: _OpenState, node: ni.ObjectNode, head: bytes,
                 at: int, sep: bytes, fast: Callable[[Any], Any] | None,
                 fast_items: Callable[[Any], Any] | None) -> None:
        self.level = level
        self.state = state
        self.node = node
        self.head = head
        self.at = at
        self.index = state.count
        self.sep = sep
        self.search = at  # where to look for the next sep
        self.fast = fast
        self.fast_items = fast_items
        self.misses = 0
        #: How deep the text is open, read from the open item's start (kept while it is
        #: the same item, so each byte is read once).
        self.depth: Depth | None = None
        #: The array's node (an array's, or a tuple's), met in the first skimmed build.
        self.array: ni.ArrayNode | ni.TupleNode | None = None
        #: The containers around the array, outermost first, as that build showed them
        #: (``_frames``): None until it ran, False if they could not be read from it.
        #: They cannot change while the array is open (their text is all in ``head``),
        #: so later parses read the open item alone and rebuild only the path to it.
        self.frames: list[tuple[Any, ...]] | bool | None = None
        #: Where the first item read from its own text begins, and its number.
        self.first = at
        self.first_index = self.index
        #: Every item read from its own text was read by msgspec (so the final value
        #: may take them as they are: ``PartialBuilder.final``).
        self.exact = True


class SkimRefused(Exception):
    """A skimmed parse met the array in a state it does not own (a union's option
    undecided for a moment): skimming has stopped, parse the whole text."""


class PartialPlan:
    """The compiled structure functions of one type's nodes, made on first use."""

    def __init__(self, tp: Any, converter: Any, registry: Registry) -> None:
        self.root = ni.type_info(tp, registry)
        self.tp = tp
        self._compiler = Compiler(None if converter is None else HookSource(converter))
        self._fns: dict[int, tuple[ni.Node, Callable[[Any], Any]]] = {}
        #: ``fn`` of the nodes compiled, read without a call.
        self.fns: dict[int, Callable[[Any], Any]] = {}
        self._keys: dict[int, tuple[ni.ObjectNode, dict[str, ni.Field]]] = {}
        #: ``by_key`` of the nodes seen, read without a call.
        self.keys: dict[int, dict[str, ni.Field]] = {}
        self._members: dict[int, tuple[ni.ObjectNode, dict[str, Any]]] = {}
        #: ``members`` of the nodes seen, read without a call.
        self.tables: dict[int, dict[str, tuple[str, ni.Node, int, bool]]] = {}
        self._fast: dict[int, tuple[ni.Node, Callable[[Any], Any] | None]] = {}
        #: What the builder does with a node's parsed value (``_OBJECT`` ...), whether
        #: an open string of it is shown (``_plain_str``), and the node, by node.
        self.kinds: dict[int, tuple[int, bool, ni.Node]] = {}
        #: The ``null`` option of a nullable union (one per plan: nodes are cached by id).
        self.null = ni.NullNode()
        #: The name the type has as a tool (its schema name), if it is an object.
        obj = ni.object_of(self.root)
        self.tool_name = obj.name if obj is not None else None
        self._hooked = converter is not None
        self._lock = threading.Lock()
        self._splicer: Splicer | bool | None = False  # (False: not made yet)

    def fn(self, node: ni.Node) -> Callable[[Any], Any]:
        found = self._fns.get(id(node))
        if found is None:
            with self._lock:  # one compiler, shared by the streams of this type
                found = self._fns.get(id(node))
                if found is None:
                    found = (node, self._compiler.compile(node).fn)
                    self._fns[id(node)] = found
                    self.fns[id(node)] = found[1]  # (the node is kept alive by _fns)
        return found[1]

    def fast(self, node: ni.ObjectNode) -> Callable[[Any], Any] | None:
        """``decode()``'s msgspec decoder of a class node (JSON text in, the value or
        ``FALLBACK`` out), where it has one and no converter is in play."""
        found = self._fast.get(id(node))
        if found is None:
            fn = None
            if not self._hooked and not has_newer_types(node) and not needs_exact(node):
                with self._lock:
                    fn = fast_decoder_for(node.python_type, node)
            found = (node, fn)
            self._fast[id(node)] = found
        return found[1]

    def fast_items(self, node: ni.ObjectNode) -> Callable[[Any], Any] | None:
        """As ``fast``, for a JSON array of the class's objects (a list out)."""
        found = self._fast.get(-id(node))
        if found is None:
            fn = None
            if self.fast(node) is not None:
                with self._lock:
                    fn = fast_items_decoder_for(node.python_type, node)
            found = (node, fn)
            self._fast[-id(node)] = found
        return found[1]

    def splicer(self) -> Splicer | None:
        """The root class's fast decoder in halves (``Splicer``), where ``decode()`` of the
        type takes the fast path."""
        found = self._splicer
        if found is False:
            root, found = self.root, None
            # (decode() takes the fast path for a class, not for an alias of one.)
            if (
                isinstance(root, ni.ObjectNode)
                and self.tp is root.python_type
                and self.fast(root) is not None
            ):
                with self._lock:
                    found = fast_splicer_for(self.tp, root)
            self._splicer = found
        return found  # type: ignore[return-value]

    def joined(self, path: tuple[int, ...]) -> Callable[..., Any] | None:
        """``Splicer.joined`` of this type's splicer (None without one)."""
        splicer = self.splicer()
        if splicer is None:
            return None
        with self._lock:
            return splicer.joined(path)

    def kind(self, node: ni.Node) -> tuple[int, bool, ni.Node]:
        """What the builder does with ``node``'s values (read from ``kinds`` mostly)."""
        found = self.kinds.get(id(node))
        if found is None:
            found = (_kind(node), _plain_str(node), node)
            self.kinds[id(node)] = found
        return found

    def members(self, node: ni.ObjectNode) -> dict[str, tuple[str, ni.Node, int, bool]]:
        """A class's fields by key, each as (its Python name, its node, what the builder
        does with its values, whether an open string of it is shown): read on every
        parse, so made once."""
        found = self._members.get(id(node))
        if found is None:
            table = {f.key: (f.name, f.node, *self.kind(f.node)[:2]) for f in node.fields}
            found = (node, table)
            self._members[id(node)] = found
            self.tables[id(node)] = table  # (the node is kept alive by _members)
        return found[1]

    def by_key(self, node: ni.ObjectNode) -> dict[str, ni.Field]:
        found = self._keys.get(id(node))
        if found is None:
            found = (node, {f.key: f for f in node.fields})
            self._keys[id(node)] = found
            self.keys[id(node)] = found[1]  # (the node is kept alive by _keys)
        return found[1]


class PartialBuilder:
    """Turns successive parses of the growing text into partial values."""

    def __init__(self, plan: PartialPlan) -> None:
        self.plan = plan
        self.state: Any = None
        #: Set before each build: the text ends inside a string / right after a number.
        self.in_string = False
        self.in_number = False
        #: How many containers are open at the end of the text (``see``); None: unknown,
        #: and only the last member of each container is taken as open.
        self.depth: int | None = None
        self._depth = Depth()
        #: The open array read item by item from its text, once found (``skim``).
        self.skimmed: _Skim | None = None
        #: The last array skimmed whose items msgspec read (for ``final``), kept after
        #: the array closes.
        self.kept: _Skim | None = None
        #: Of the last full parse: the outermost open array of objects on the tail, as
        #: (level, its state, its item node).
        self.track: tuple[int, _OpenState, ni.ObjectNode, ni.ArrayNode] | None = None
        self._attempts = 0
        self._base_level = 0  # the level whose parsed array starts at item ``_base``
        self._base = 0
        #: The level of the container the parse is of: 1 (the whole value), or the
        #: skimmed array's level when ``skim`` gave the open item alone.
        self.parsed_level = 1
        self._skim_out: list[Any] | None = None  # what the skimmed array showed last
        #: The JSON reader of whole values (jiter's from_json), given by the stream.
        self.from_json: Callable[[Any], Any] | None = None

    def see(self, text: bytes | bytearray, start: int = 0) -> None:
        """Read the text so far (from ``start``, where the JSON begins): how deep it is open.

        Called before ``build`` with the whole text each time; only what is new is read.
        """
        self.depth = self._depth.feed(text, start)

    @property
    def text_in_string(self) -> bool:
        """Whether the text read by ``see`` ends inside a string (a key's or a value's)."""
        return self._depth.in_string

    # -- skimming: an open array's finished items read from their own text -------------

    def skim(self, text: bytes | bytearray) -> bytes | None:
        """The JSON to parse with the skimmed array's finished items left out, or None
        when there is no skimmed array (any more): then parse the whole text.

        Items that finished since the last parse are decoded from their own text,
        once each, and kept in the array's state; how deep the text is open (and
        whether it ends in a string) is read from the open item alone.
        """
        self.parsed_level = 1
        skim = self.skimmed
        if skim is None:
            return None
        state, sep, at = skim.state, skim.sep, skim.at
        find, pos, step = text.find, skim.search, len(sep) - 1
        batch = skim.fast_items
        last = text.rfind(sep, pos) if batch is not None else -1
        for _ in range(_BATCH_TRIES):
            if last < 0 or batch is None:
                break
            # Every item up to the last sep at once, the text between them as one array.
            # Read whole, the array is valid only if the last sep follows an item of it;
            # if not (a sep in the open item's nested array, say), the sep before it.
            items = batch(b"[" + text[at : last + 1] + b"]")
            if items is not FALLBACK:
                done = state.count - skim.index  # a closed last item, decoded by the parse
                state.out += items[done:] if done else items
                state.count += len(items) - done
                skim.index += len(items)
                at = pos = last + step
                break
            last = text.rfind(sep, pos, last + step)
        # One item at a time (the array did not read whole: a sep inside a string or a
        # nested array of objects, or an item that breaks the rules): a candidate end is
        # an item's only if the item's brackets close there, outside any string (read
        # once, item by item); then its text must read as one JSON value.
        reader: Depth | None = None
        while True:
            end = find(sep, pos)
            if end < 0:
                break
            if reader is None:
                reader = Depth(skim.level, at)
            reader.feed(text, at, end + 1)
            if reader.depth != skim.level or reader.in_string:
                pos = end + 1  # inside the item: not its end
                continue
            reader = None
            if self._item(skim, text[at : end + 1]):
                at = pos = end + step
                skim.index += 1
                continue
            skim.misses += 1
            if skim.misses > _MAX_MISSES:  # the text is no JSON here: stop skimming
                skim.at = at
                self.stop_skimming()
                return None
            pos = end + 1
        skim.search = max(pos, len(text) - step)
        depth = skim.depth
        if depth is None or skim.at != at:  # a new open item: read from after its '{'
            depth = skim.depth = Depth(skim.level + 1, at + 1, skim.level)
        skim.at = at
        depth.feed(text, at)  # (only what is new since the last parse)
        self._depth = depth
        self.depth = depth.depth
        if depth.sunk:  # the array closed: the whole text is parsed from now on
            self.skimmed = None
            return None
        self._base_level, self._base = skim.level, skim.index
        if type(skim.frames) is list:  # the open item alone, parsed as the array
            self.parsed_level = skim.level
            return b"[" + text[at:]
        return skim.head + text[at:]

    def stop_skimming(self) -> None:
        """Skimming stops for good: the items did not read as this reply's were expected
        to (its array is not tried again, nor any other: finding one costs a step per
        string and bracket of the text)."""
        self.skimmed = self.kept = None
        self._attempts = _MAX_ATTEMPTS
        self.parsed_level = 1

    def _item(self, skim: _Skim, text: bytes | bytearray) -> bool:
        """Decode one item from its text (kept in the array's state), or False when the
        text is not one whole JSON value (the candidate end was not the item's)."""
        state = skim.state
        done = state.count > skim.index  # a closed last item, decoded by the parse
        if skim.fast is not None:
            value = skim.fast(text)
            if value is not FALLBACK:
                if not done:
                    state.out.append(value)
                    state.count += 1
                return True
        try:
            parsed = self.from_json(bytes(text))  # type: ignore[misc]
        except ValueError:
            return False
        skim.exact = False  # an item msgspec did not read: the final value is read whole
        if not done:
            present, shown = self._finished(skim.node, parsed)
            if present:
                state.out.append(shown)
            state.count += 1
        return True

    def find_items(self, text: bytes | bytearray, start: int, built: Partial[Any] | None) -> None:
        """After a full parse (that showed ``built``): start skimming the open array of
        objects on the tail, if its items can be told apart in the text (its item open,
        one item before it)."""
        track, self.track = self.track, None
        if track is None or not SKIM or self.from_json is None:
            return
        level, state, node, array = track
        if state.count < 1 or self.depth is None or self.depth <= level:
            return
        if self._attempts >= _MAX_ATTEMPTS or len(text) - start > _MAX_FIND:
            return
        self._attempts += 1
        stack = open_containers(text, start)
        if stack is None or len(stack) <= level:
            return
        bracket, opened, comma, index = stack[level - 1]
        if bracket != 0x5B or index != state.count or stack[level][0] != 0x7B:
            return
        at = stack[level][1]  # the open item's '{'
        end = comma - 1
        while end > opened and text[end] in BLANK:
            end -= 1
        if text[end] != 0x7D or any(b not in BLANK for b in text[comma + 1 : at]):
            return
        skim = self.skimmed = _Skim(level, state, node, bytes(text[start : opened + 1]), at,
                                    bytes(text[end : at + 1]), self.plan.fast(node),
                                    self.plan.fast_items(node))
        # The containers around the array, as this parse showed them: the next parse
        # reads the open item alone.
        skim.array = array
        skim.frames = self._frames(built, level)
        self.kept = skim

    def final(self, text: bytes | bytearray) -> Any:
        """The value of the whole reply, ``text`` (the JSON from its first byte), as
        ``decode()`` makes it on its fast path, with the items of the skimmed array that
        msgspec read as they arrived taken as they are instead of read again; or
        ``FALLBACK``: decode the text.

        msgspec checks the text without those items, and the value is built with them
        in their place: what is checked and built is what ``decode()`` checks and builds
        from the whole text, since the items' text, left out, read as these items. The
        final value holds the same item objects the partials showed.
        """
        skim = self.kept
        if skim is None or not skim.exact or skim.index <= skim.first_index:
            return FALLBACK
        found = self._path(skim)
        if found is None:
            return FALLBACK
        path, keys = found
        build = self.plan.joined(path)
        splicer = self.plan.splicer()
        known = skim.state.out[skim.first_index : skim.index]
        if build is None or splicer is None or len(known) != skim.index - skim.first_index:
            return FALLBACK
        rest = bytes(text[skim.at :])
        # A key on the way to the array sent again after it would replace the array
        # (the last one wins): then the whole text is read. (A key may be written with
        # \u escapes: any in the rest of the text counts as one.)
        if b"\\u" in rest or any(key in rest for key in keys):
            return FALLBACK
        return splicer.join(bytes(text[: skim.first]) + rest, build, skim.first_index, known)

    def _path(self, skim: _Skim) -> tuple[tuple[int, ...], list[bytes]] | None:
        """The way from the root's value to the skimmed array as field numbers, class by
        class (``Splicer.joined``'s path), and the JSON text of those fields' keys; None
        where the way is not made of fields alone."""
        frames = skim.frames
        if type(frames) is not list:
            return None
        path: list[int] = []
        keys: list[bytes] = []
        node = _unwrapped(self.plan.root)
        for frame in frames:
            if frame[0] is not _IN_FIELDS or type(node) is not ni.ObjectNode:
                return None
            index = next((i for i, f in enumerate(node.fields) if f.name == frame[3]), None)
            if index is None:
                return None
            field = node.fields[index]
            if "/" in field.key:  # (JSON may write it as \/)
                return None
            path.append(index)
            keys.append(orjson.dumps(field.key))
            node = _unwrapped(field.node)
        if (
            type(node) is not ni.ArrayNode
            or node.container is not list
            or _unwrapped(node.items) is not skim.node
        ):
            return None
        return tuple(path), keys

    def build(self, parsed: Any) -> Partial[Any] | None:
        """The partial of a parse (of the whole text, or ``skim``'s)."""
        self.track = None
        if self.skimmed is None:
            self._base_level = 0
            return self._build(parsed)
        skim = self.skimmed
        try:
            if self.parsed_level > 1:
                built = self._build_framed(skim, parsed)
            else:
                built = self._build(parsed)
                if skim.frames is None:
                    skim.frames = self._frames(built, skim.level)
        except SkimRefused:
            self.stop_skimming()
            raise
        skim = self.skimmed
        if skim is not None and skim.state.count > skim.index + 1:
            # Several items past the skimmed one in a parse: sep is not how this reply
            # separates them; the whole text is parsed from now on.
            self.stop_skimming()
        return built

    def _build_framed(self, skim: _Skim, parsed: Any) -> Partial[Any] | None:
        """The partial of a parse of the skimmed array alone: its containers as before."""
        if type(parsed) is not list or skim.array is None or type(skim.frames) is not list:
            raise SkimRefused
        state, level, base = skim.state, skim.level, self._base
        item = parsed[0] if len(parsed) == 1 else None
        depth = self.depth
        if type(item) is dict and state.count == base and depth is not None and depth > level:
            # _array's commonest case, spelled out: the open item alone, an object.
            tail = state.tail_state if state.tail == base else None
            present, shown, state.tail_state, _ = self._object(
                skim.node, item, tail, level + 1, False
            )
            state.tail = base
            value: Any = list(state.out)
            if present:
                value.append(shown)
            self._skim_out = value
        else:
            _, value, _, _ = self._array(skim.array, parsed, state, level, False)
        for frame in reversed(skim.frames):
            kind = frame[0]
            if kind is _IN_FIELDS:
                fields = dict(frame[2])  # (the frame's own dict is never changed)
                fields[frame[3]] = value
                value = partial_of(frame[1], fields, frame[3])
            elif kind is _IN_LIST:
                value = [*frame[1], value]
            elif kind is _IN_DICT:
                entries = dict(frame[1])
                entries[frame[2]] = value
                value = entries
            else:
                value = Partial(self.plan.tp, value=value)
        return value  # type: ignore[no-any-return]

    def _frames(self, built: Partial[Any] | None, level: int) -> list[tuple[Any, ...]] | bool:
        """The containers around the skimmed array at ``level``, outermost first, as
        ``built`` shows them, or False where it does not show the path to the array."""
        frames: list[tuple[Any, ...]] = []
        value: Any = built
        if type(value) is not Partial:
            return False
        if value.growing is None and not value.fields:  # a list or dict at the top
            frames.append((_AT_TOP,))
            value = value.value
        for _ in range(level - 1):
            if type(value) is Partial and value.growing is not None:
                fields = dict(value.fields)
                frames.append((_IN_FIELDS, value.type_, fields, value.growing))
                value = fields[value.growing]
            elif type(value) is list and value:
                frames.append((_IN_LIST, value[:-1]))
                value = value[-1]
            elif type(value) is dict and value:
                key = next(reversed(value))
                frames.append((_IN_DICT, dict(value), key))
                value = value[key]
            else:
                return False
        return frames if value is self._skim_out and value is not None else False

    def _build(self, parsed: Any) -> Partial[Any] | None:
        present, value, self.state, _ = self._child(self.plan.root, parsed, self.state, 1)
        if not present:
            return None
        if isinstance(value, Partial):
            return value
        if not isinstance(value, (list, dict, str)):
            return None  # a number, true or null at the top: the end shows it
        return Partial(self.plan.tp, value=value)

    # A finished value: decoded by the rules decode() uses. If it breaks them, an
    # object or array is shown by its valid parts (decode() reports the rest at the
    # end) and a scalar not at all.
    def _finished(self, node: ni.Node, value: Any) -> tuple[bool, Any]:
        fn = self.plan.fns.get(id(node)) or self.plan.fn(node)
        try:
            return True, fn(value)
        except Invalid:
            return self._broken(node, value)

    def _broken(self, node: ni.Node, value: Any) -> tuple[bool, Any]:
        """What a finished value that breaks the rules shows: an object or array its
        valid parts, a scalar nothing."""
        if isinstance(value, (dict, list)):
            present, shown, _, _ = self._open(node, value, None, 0, closed=True)
            return present, shown
        return False, None

    def _closed_tail(self, value: dict[Any, Any] | list[Any], level: int) -> bool:
        """Whether the last member of a container at ``level`` is a container closed already."""
        depth = self.depth
        if depth is None or level < depth or not value:
            return False  # (most often: the text is open deeper than this container)
        return isinstance(_last(value), (dict, list))

    def _open(
        self, node: ni.Node, value: Any, state: Any, level: int, *, closed: bool = False
    ) -> _Built:
        kinds = self.plan.kinds
        kind, plain, _ = kinds.get(id(node)) or self.plan.kind(node)
        if kind == _UNION:
            option = self._option(node, value, closed)  # type: ignore[arg-type]
            if option is None:
                return _ABSENT
            node = option
            kind, plain, _ = kinds.get(id(node)) or self.plan.kind(node)
        # A parse gives exactly these types (no subclasses): one type test each.
        of = type(value)
        if of is dict:
            if kind == _OBJECT:
                return self._object(node, value, state, level, closed)  # type: ignore[arg-type]
            if kind == _MAPPING:
                return self._mapping(node, value, state, level, closed)  # type: ignore[arg-type]
        elif of is list:
            if kind == _ARRAY:
                return self._array(node, value, state, level, closed)  # type: ignore[arg-type]
        elif of is str:
            if self.in_string and not closed:
                return (True, value, None, False) if plain else _ABSENT
        elif (of is int or of is float) and self.in_number and not closed:
            return _ABSENT
        if kind == _ANY and not closed:
            return True, value, None, not isinstance(value, (dict, list))
        present, shown = self._finished(node, value)
        return present, shown, None, present

    def _child(self, node: ni.Node, value: Any, state: Any, level: int) -> _Built:
        """``_open`` of an open container's open last member, its commonest cases first
        (an object of a class, an array, a string still arriving): one call less per
        level of every parse."""
        plan = self.plan
        kind, plain, _ = plan.kinds.get(id(node)) or plan.kind(node)
        of = type(value)
        if of is dict:
            if kind == _OBJECT:
                return self._object(node, value, state, level, False)  # type: ignore[arg-type]
        elif of is list:
            if kind == _ARRAY:
                return self._array(node, value, state, level, False)  # type: ignore[arg-type]
        elif of is str and kind != _UNION and self.in_string:
            return (True, value, None, False) if plain else _ABSENT
        return self._open(node, value, state, level)

    def _tail(
        self, state: _OpenState, key: Any, node: ni.Node, value: Any, level: int
    ) -> _Built:
        tail_state = state.tail_state if state.tail == key else None
        built = self._open(node, value, tail_state, level)
        state.tail, state.tail_state = key, built[2]
        return built

    @staticmethod
    def _sent_again(state: _OpenState, value: dict[Any, Any]) -> list[Any]:
        """The finished keys whose value changed: sent again later (the last one wins)."""
        raw = state.raw
        if not raw:
            return []
        try:
            return [k for k, item in raw.items() if k in value and value[k] != item]
        except Exception:  # values that cannot be compared: taken as unchanged
            return []

    def _object(
        self, node: ni.ObjectNode, value: dict[Any, Any], state: Any, level: int, closed: bool
    ) -> _Built:
        if type(state) is not _OpenState:
            state = _OpenState({})
        plan = self.plan
        members = plan.tables.get(id(node)) or plan.members(node)
        size = len(value)
        last: Any = next(reversed(value)) if size else None  # the last member's key
        depth = self.depth
        if not closed and size and depth is not None and level >= depth:
            # The last member is a container closed already (the text is open no deeper).
            closed = isinstance(value[last], (dict, list))
        finished = size if closed or not size else size - 1
        raw = state.raw
        # (Most often every finished member is as it was: one C-level comparison.)
        if raw and not raw.items() <= value.items():
            for key in self._sent_again(state, value):
                name, field, _, _ = members[key]
                raw[key] = value[key]
                state.out.pop(name, None)
                present, shown = self._finished(field, value[key])
                if present:
                    state.out[name] = shown
        count = state.count
        if finished > count:
            out, fns = state.out, plan.fns
            for key, item in itertools.islice(value.items(), count, finished):
                member = members.get(key)
                if member is not None:
                    raw[key] = item
                    # _finished, spelled out: a call per finished member.
                    field = member[1]
                    fn = fns.get(id(field)) or plan.fn(field)
                    try:
                        out[member[0]] = fn(item)
                    except Invalid:
                        present, shown = self._broken(field, item)
                        if present:
                            out[member[0]] = shown
            state.count = count = finished
        fields = dict(state.out)
        growing = None
        # The last item is open only if not already taken as finished: jiter leaves out a
        # number cut at 'e', '.' or a sign, so the text can show one item fewer than before.
        if count < size and finished < size:
            key = last
            member = members.get(key)
            if member is not None:
                name, field, kind, plain = member
                item = value[key]
                if type(item) is str and kind != _UNION and self.in_string:
                    # _child's commonest case, spelled out: a string still arriving.
                    state.tail, state.tail_state = key, None
                    if plain:
                        fields[name] = item
                        growing = name
                else:
                    # The tail's state, kept while the same member stays open.
                    present, shown, state.tail_state, settled = self._child(
                        field, item, state.tail_state if state.tail == key else None,
                        level + 1,
                    )
                    state.tail = key
                    if present:
                        fields[name] = shown
                        if not settled:
                            growing = name
        if not fields and level > 1 and not closed:
            # A nested object with nothing in it yet: shown once its first field arrives.
            return False, None, state, False
        return True, partial_of(node.python_type, fields, growing), state, False

    def _mapping(
        self, node: ni.DictNode, value: dict[Any, Any], state: Any, level: int, closed: bool
    ) -> _Built:
        if not isinstance(state, _OpenState):
            state = _OpenState({})
        size = len(value)
        closed = closed or self._closed_tail(value, level)
        finished = size if closed or not size else size - 1
        raw = state.raw
        for key in () if not raw or raw.items() <= value.items() else self._sent_again(
            state, value
        ):
            ok, decoded_key = self._finished(node.keys, key)
            state.raw[key] = value[key]
            if ok:
                state.out.pop(decoded_key, None)
                present, shown = self._finished(node.values, value[key])
                if present:
                    state.out[decoded_key] = shown
        if finished > state.count:
            for key, item in itertools.islice(value.items(), state.count, finished):
                state.raw[key] = item
                ok, decoded_key = self._finished(node.keys, key)
                if ok:
                    present, shown = self._finished(node.values, item)
                    if present:
                        state.out[decoded_key] = shown
            state.count = finished
        out = dict(state.out)
        # The last item is open only if not already taken as finished: jiter leaves out a
        # number cut at 'e', '.' or a sign, so the text can show one item fewer than before.
        if state.count < size and finished < size:
            key, item = next(reversed(value.items()))
            ok, decoded_key = self._finished(node.keys, key)
            if ok:
                present, shown, _, _ = self._tail(state, key, node.values, item, level + 1)
                if present:
                    out[decoded_key] = shown
        return True, out, state, False

    def _array(
        self,
        node: ni.ArrayNode | ni.TupleNode,
        value: list[Any],
        state: Any,
        level: int,
        closed: bool,
    ) -> _Built:
        if type(state) is not _OpenState:
            state = _OpenState([])
        base = 0  # the number of items before value[0] (a skimmed array's)
        tracked = False  # this is the array find_items may skim
        array = type(node) is ni.ArrayNode
        items: Any = node.items  # an array's item node, or a tuple's nodes
        if level == self._base_level and not closed:
            skim = self.skimmed
            if skim is None or state is not skim.state:
                raise SkimRefused
            base = self._base
            skim.array = node
        elif (
            not closed
            and self.track is None
            and array
            and type(items) is ni.ObjectNode
        ):
            self.track = (level, state, items, node)  # type: ignore[assignment]
            tracked = True
        size = len(value) + base
        if not array:
            size = min(size, len(items))
        depth = self.depth
        if not closed and value and depth is not None and level >= depth:
            # The last item is a container closed already (the text is open no deeper).
            closed = isinstance(value[-1], (dict, list))
        finished = size if closed or not size else size - 1
        if finished > state.count:
            append = state.out.append
            if array:  # one item type: its function looked up once
                fn = self.plan.fn(items)
                for item in value[state.count - base : finished - base]:
                    try:
                        append(fn(item))
                        continue
                    except Invalid:
                        present, shown = self._broken(items, item)
                    if present:
                        append(shown)
            else:
                for index in range(state.count, finished):
                    present, shown = self._finished(items[index], value[index])
                    if present:
                        append(shown)
            state.count = finished
        out = list(state.out)
        # The last item is open only if not already taken as finished: jiter leaves out a
        # number cut at 'e', '.' or a sign, so the text can show one item fewer than before.
        if state.count < size and finished < size:
            index = size - 1
            # The tail's state, kept while the same item stays open.
            present, shown, state.tail_state, _ = self._child(
                items if array else items[index],
                value[index - base], state.tail_state if state.tail == index else None,
                level + 1,
            )
            state.tail = index
            if present:
                out.append(shown)
        if base or tracked:
            self._skim_out = out
        return True, out, state, False

    def _option(self, node: ni.UnionNode, value: Any, closed: bool) -> ni.Node | None:
        """The one option of a union an open value can belong to, if it is decided."""
        if value is None:
            return self.plan.null if node.nullable else None
        if isinstance(value, dict):
            objects = [o for o in node.options if isinstance(o, ni.ObjectNode)]
            others = [o for o in node.options if isinstance(o, (ni.DictNode, ni.AnyNode))]
            fitting = [o for o in objects if self._fits(o, value, closed)]
            if len(fitting) == 1 and not others:
                return fitting[0]
            if not objects and len(others) == 1:
                return others[0]
            return None
        if isinstance(value, list):
            arrays = [o for o in node.options if isinstance(o, (ni.ArrayNode, ni.TupleNode))]
            return arrays[0] if len(arrays) == 1 else None
        if isinstance(value, str) and self.in_string and not closed:
            strings = [o for o in node.options if _plain_str(o)]
            return strings[0] if strings else None
        return node  # a finished scalar: the union's own decoder decides

    def _fits(self, node: ni.ObjectNode, value: dict[Any, Any], closed: bool) -> bool:
        """Every key sent is one of the class's, and any finished Literal tag matches."""
        by_key = self.plan.by_key(node)
        last = next(reversed(value)) if value else None
        for key, item in value.items():
            field = by_key.get(key)
            if field is None:
                return False
            unfinished = key == last and self.in_string and not closed
            if (
                isinstance(field.node, ni.LiteralNode)
                and not unfinished
                and item not in field.node.values
            ):
                return False
        return True


def _kind(node: ni.Node) -> int:
    if isinstance(node, ni.UnionNode):
        return _UNION
    if isinstance(node, ni.ObjectNode):
        return _OBJECT
    if isinstance(node, ni.DictNode):
        return _MAPPING
    if isinstance(node, (ni.ArrayNode, ni.TupleNode)):
        return _ARRAY
    if isinstance(node, ni.AnyNode):
        return _ANY
    return _SCALAR


def _unwrapped(node: ni.Node) -> ni.Node:
    """The node a value of ``node`` is decoded as: a use's class, a union's one option
    besides null."""
    while True:
        if type(node) is ni.UseNode:
            node = node.target
        elif type(node) is ni.UnionNode:
            rest = [o for o in node.options if type(o) is not ni.NullNode]
            if len(rest) != 1:
                return node
            node = rest[0]
        else:
            return node


def _last(value: dict[Any, Any] | list[Any]) -> Any:
    """The last member's value of a non-empty object or array."""
    if isinstance(value, dict):
        return value[next(reversed(value))]
    return value[-1]


def _plain_str(node: ni.Node) -> bool:
    """A ``str`` with no format or fixed values: its text so far is worth showing."""
    if isinstance(node, ni.UnionNode):
        return any(_plain_str(o) for o in node.options)
    return (
        isinstance(node, ni.ScalarNode)
        and node.python_type is str
        and node.format is None
        and node.enum is None
    )
