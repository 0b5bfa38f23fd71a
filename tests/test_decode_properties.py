"""Properties of decode() and encode() over random class trees."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import attrs
import cattrs
import jsonschema
import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from describedtypes import DecodeError, decode, encode, schema
from describedtypes import inspect as ni
from describedtypes._types.nodes import is_number_text

from .strategies import classes


def unwrap(node: ni.Node) -> ni.Node:
    """The node a nullable or described union stands for."""
    while isinstance(node, ni.UnionNode):
        rest = [o for o in node.options if not isinstance(o, ni.NullNode)]
        if len(rest) != 1:
            break
        node = rest[0]
    return node


def schema_errors(cls: Any, payload: Any) -> list[jsonschema.ValidationError]:
    validator = jsonschema.Draft202012Validator(schema(cls))
    return list(validator.iter_errors(payload))


@given(st.data())
def test_encode_then_decode_gives_an_equal_instance(data: st.DataObject) -> None:
    """decode(type(x), encode(x)) == x for random class trees and instances."""
    cls, values = data.draw(classes(more_types=True))
    x = data.draw(values)
    assert decode(cls, encode(x)) == x


@given(st.data())
def test_encoded_instances_validate_against_the_standard_schema(data: st.DataObject) -> None:
    """encode(x) is valid under schema(type(x)) with Draft 2020-12."""
    cls, values = data.draw(classes(more_types=True))
    x = data.draw(values)
    assert schema_errors(cls, orjson.loads(encode(x))) == []


@given(st.data())
def test_every_input_form_decodes_alike(data: st.DataObject) -> None:
    """str, bytes, bytearray, memoryview and the parsed value all decode to the same instance."""
    cls, values = data.draw(classes(more_types=True))
    x = data.draw(values)
    raw = encode(x)
    forms = [raw, raw.decode(), bytearray(raw), memoryview(raw), orjson.loads(raw)]
    assert all(decode(cls, form) == x for form in forms)


# -- invalid payloads derived from valid ones --------------------------------------------


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


#: What json.dumps leaves raw and a message still escapes: DEL, the C1 controls and the
#: line breaks beyond ASCII (NEXT LINE, LINE SEPARATOR, PARAGRAPH SEPARATOR).
_STILL_RAW = re.compile("[\x7f-\x9f\u2028\u2029]")


def render(path: list[Any]) -> str:
    """A JSON path as DecodeError spells it: $.key, $[0], $["odd key"], with every
    control character and line break in a key written \\uXXXX."""
    out = "$"
    for seg in path:
        if isinstance(seg, int):
            out += f"[{seg}]"
        elif _IDENT.fullmatch(seg):
            out += "." + seg
        else:
            key = json.dumps(seg, ensure_ascii=False)
            out += "[" + _STILL_RAW.sub(lambda m: f"\\u{ord(m[0]):04x}", key) + "]"
    return out


@attrs.define
class _Inner:
    f0: str


@attrs.define
class _Outer:
    f1: dict[str, _Inner]


@pytest.mark.parametrize(
    ("key", "shown"),
    [("a b", '"a b"'), ("\x7f", '"\\u007f"'), ("\x85", '"\\u0085"'), ("\u2028", '"\\u2028"'),
     ("\n", '"\\n"'), ("\x1f", '"\\u001f"'), ("é", '"é"')],
)
def test_a_missing_field_under_an_odd_key_is_reported_at_the_key_escaped(
    key: str, shown: str
) -> None:
    """A dict key with a control character or line break is written escaped in the path
    (found by the property below: a DEL key, rendered raw by the test, escaped by decode)."""
    with pytest.raises(DecodeError) as info:
        decode(_Outer, orjson.dumps({"f1": {key: {}}}))
    assert info.value.errors == [(f"$.f1[{shown}].f0", "missing required field")]
    assert render(["f1", key, "f0"]) == f"$.f1[{shown}].f0"


def sites(node: ni.Node, value: Any, path: list[Any]) -> Iterator[tuple[list[Any], ni.ObjectNode]]:
    """Every JSON object in ``value`` that an object node decodes, with its path."""
    node = unwrap(node)
    if value is None:
        return
    if isinstance(node, ni.ObjectNode):
        yield path, node
        for f in node.fields:
            if f.key in value:
                yield from sites(f.node, value[f.key], [*path, f.key])
    elif isinstance(node, ni.ArrayNode):
        for i, item in enumerate(value):
            yield from sites(node.items, item, [*path, i])
    elif isinstance(node, ni.DictNode):
        for key, item in value.items():
            yield from sites(node.values, item, [*path, key])


def wrong_value(node: ni.Node) -> Any:
    """A value of a JSON kind (or outside the values) that ``node`` never accepts."""
    inner = unwrap(node)
    if is_number_text(inner):  # a number is a fine Decimal too
        return "not a number"
    if isinstance(inner, ni.ScalarNode) and inner.type == "string":
        return 12345
    return "\u0000never valid"


def lookup(payload: Any, path: list[Any]) -> Any:
    for seg in path:
        payload = payload[seg]
    return payload


def is_prefix(a: list[Any], b: list[Any]) -> bool:
    return b[: len(a)] == a


@given(st.data())
def test_mutated_payloads_fail_where_they_were_changed(data: st.DataObject) -> None:
    """Dropped, renamed and retyped fields are all reported, each at the changed path."""
    cls, values = data.draw(classes(more_types=True))
    x = data.draw(values)
    original = orjson.loads(encode(x))
    root = ni.type_info(cls)
    candidates = [
        (path, obj, f)
        for path, obj in sites(root, original, [])
        for f in obj.fields
        if f.key in lookup(original, path)
    ]
    assume(candidates)
    chosen = data.draw(
        st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique_by=lambda c: id(c[2]))
    )
    payload = copy.deepcopy(original)
    expected: list[tuple[str, str]] = []  # (path, message prefix)
    changed: list[list[Any]] = []
    for path, _obj, f in chosen:
        target = [*path, f.key]
        if any(is_prefix(c, target) or is_prefix(target, c) for c in changed):
            continue
        container = lookup(payload, path)
        required = not f.nullable and not f.has_default
        how = data.draw(st.sampled_from(["drop", "rename", "retype"]))
        if how == "retype":
            container[f.key] = wrong_value(f.node)
            expected.append((render(target), ""))
        else:
            value = container.pop(f.key)
            if how == "rename":
                new_key = f.key + "_renamed"
                container[new_key] = value
                expected.append((render([*path, new_key]), "unknown field"))
            if required:
                expected.append((render(target), "missing required field"))
        changed.append(target)
    if not expected:  # only optional fields were dropped: still valid
        assert schema_errors(cls, payload) == []
        decode(cls, payload)
        return
    if any(prefix != "unknown field" for _, prefix in expected):
        # The schema rejects it too (STANDARD leaves objects open, so an unknown key
        # alone is the decoder's own rule).
        assert schema_errors(cls, payload) != []
    with pytest.raises(DecodeError) as info:
        decode(cls, orjson.dumps(payload))
    reported = info.value.errors
    for where, prefix in expected:
        assert any(p == where and m.startswith(prefix) for p, m in reported), (where, reported)
    # Nothing is reported away from the changes.
    for p, _ in reported:
        assert any(p.startswith(render(c[:-1])) for c in changed), (p, reported)


@given(st.data())
def test_cattrs_unstructured_values_decode_back(data: st.DataObject) -> None:
    """What cattrs.unstructure makes of an instance decodes back to an equal instance."""
    cls, values = data.draw(classes())
    x = data.draw(values)
    assert decode(cls, cattrs.Converter().unstructure(x)) == x
