"""Values that must not vanish or be mis-read: Literal kinds, repeated keys, RFC text forms."""

from __future__ import annotations

import datetime
import enum
import uuid
from typing import Annotated, Any, Literal

import attrs
import pytest

from describedtypes import (
    ANTHROPIC,
    GEMINI,
    OPENAI,
    STANDARD,
    Annotation,
    DecodeError,
    decode,
    schema,
)


def errors_of(tp: Any, data: Any) -> list[tuple[str, str]]:
    with pytest.raises(DecodeError) as info:
        decode(tp, data)
    return info.value.errors


class TestLiteralKinds:
    def test_true_and_one_are_both_kept(self) -> None:
        """Literal[1, True, "1"] lists three values: True is not the integer 1."""
        assert schema(Literal[1, True, "1"]) == {
            "type": ["integer", "boolean", "string"],
            "enum": [1, True, "1"],
        }
        assert decode(Literal[1, True, "1"], "true") is True
        assert decode(Literal[1, True, "1"], "1") == 1
        assert type(decode(Literal[1, True, "1"], "1")) is int
        assert decode(Literal[1, True, "1"], '"1"') == "1"

    def test_one_is_not_lost_after_true(self) -> None:
        """Literal[True, 1] is an enum of both, and 1 decodes."""
        assert schema(Literal[True, 1]) == {"type": ["boolean", "integer"], "enum": [True, 1]}
        assert type(decode(Literal[True, 1], "1")) is int
        assert decode(Literal[True, 1], "true") is True

    def test_zero_and_false_are_told_apart(self) -> None:
        """Literal[0, False] accepts 0 and false and neither 1 nor true."""
        assert decode(Literal[0, False], "false") is False
        assert type(decode(Literal[0, False], "0")) is int
        assert errors_of(Literal[0, False], "true") == [
            ("$", "True is not one of [0, False]")
        ]

    @pytest.mark.parametrize("adapter", [OPENAI, ANTHROPIC])
    def test_strict_adapters_keep_both(self, adapter: Any) -> None:
        """The strict adapters list both values as well."""

        @attrs.define
        class Pick:
            v: Literal[True, 1]

        text = str(schema(Pick, adapter))
        assert "[True, 1]" in text

    def test_an_annotation_enum_restricting_an_enum_compares_kinds(self) -> None:
        """An annotation enum [True] on a Literal[1, True] field allows only true."""
        tp = Annotated[Literal[1, True], Annotation(enum=[True])]
        assert decode(tp, "true") is True
        assert errors_of(tp, "1")

    def test_a_tag_of_one_and_true_still_tells_classes_apart(self) -> None:
        """A union tagged by 1 and True decodes each to its own class."""

        @attrs.define
        class One:
            tag: Literal[1]
            a: int = 0

        @attrs.define
        class Yes:
            tag: Literal[True]
            a: int = 0

        assert type(decode(One | Yes, {"tag": 1})) is One
        assert type(decode(One | Yes, {"tag": True})) is Yes


class TestRepeatedKeys:
    def test_a_repeated_key_in_entries_is_an_error(self) -> None:
        """A key sent twice in the key/value array form names the key and both entries."""
        entries = [
            {"key": "a", "value": 1},
            {"key": "b", "value": 2},
            {"key": "a", "value": 3},
        ]
        assert errors_of(dict[str, int], entries) == [
            (
                "$[2].key",
                'the key "a" was already sent in entry [0]; a dict holds one value per key, '
                "so send each key once",
            )
        ]

    def test_keys_equal_after_decoding_are_repeated_too(self) -> None:
        """Two entries whose keys decode to the same Enum member are a repeated key."""

        class Color(enum.Enum):
            RED = "red"

        errors = errors_of(dict[Color, int], [{"key": "red", "value": 1}] * 2)
        assert errors == [
            (
                "$[1].key",
                'the key "red" was already sent in entry [0]; a dict holds one value per '
                "key, so send each key once",
            )
        ]

    def test_a_repeated_key_is_reported_with_the_other_problems(self) -> None:
        """The repeated key and a bad value of the same entry are both reported."""

        @attrs.define
        class Counts:
            counts: dict[str, int]

        errors = errors_of(
            Counts, {"counts": [{"key": "a", "value": 1}, {"key": "a", "value": "x"}]}
        )
        assert [path for path, _ in errors] == ["$.counts[1].key", "$.counts[1].value"]

    def test_distinct_keys_still_decode(self) -> None:
        """Entries with distinct keys decode as before."""
        entries = [{"key": "a", "value": 1}, {"key": "b", "value": 2}]
        assert decode(dict[str, int], entries) == {"a": 1, "b": 2}

    def test_a_key_repeated_in_a_json_object_keeps_the_last_value(self) -> None:
        """JSON text with a repeated object key: the last value wins (documented)."""
        assert decode(dict[str, int], '{"a": 1, "a": 2}') == {"a": 2}
