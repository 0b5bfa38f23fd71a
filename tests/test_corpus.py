"""A corpus of realistic bad model replies, each with the exact outcome decode() gives.

Every row is a mistake models make in practice. A row expects either the decoded
instance (the few mistakes that are tolerated on purpose: a markdown fence around the
whole reply, a whole float for an integer, null for an optional field) or the exact
``(path, message)`` pairs of the ``DecodeError``. Each message was reviewed for whether
it tells the model precisely what to change.
"""

from __future__ import annotations

import asyncio
import enum
import json
from typing import Any, Optional

import attrs
import pytest

from describedtypes import DecodeError, Toolbox, decode, decode_response


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Location:
    city: str
    country: str


@attrs.define
class Forecast:
    location: Location
    temperature: float
    unit: Unit
    days: int = 1
    tags: list[str] = attrs.Factory(list)
    note: Optional[str] = None  # noqa: UP045 - the spelling models' users write


GOOD = '{"location": {"city": "Oslo", "country": "NO"}, "temperature": 3.5, "unit": "celsius"}'
OK = Forecast(Location("Oslo", "NO"), 3.5, Unit.CELSIUS)


def with_(member: str) -> str:
    """GOOD with one more member (or, given "", a trailing comma)."""
    return GOOD[:-1] + ", " + member + "}"


CORPUS = [
    pytest.param(
        f"```json\n{GOOD}\n```",
        OK,
        id="fenced-json",
    ),
    pytest.param(
        f"```\n{GOOD}\n```",
        OK,
        id="fenced-bare",
    ),
    pytest.param(
        f"\n  ```JSON \r\n{GOOD}\r\n```  \n",
        OK,
        id="fenced-upper-crlf-indented",
    ),
    pytest.param(
        f"```json\n{GOOD}\n```".encode(),
        OK,
        id="fenced-bytes",
    ),
    pytest.param(
        f"```json\n{GOOD}\n```\nLet me know if you need more.",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "```json\\n{\\"location\\": {\\"c…"; send only the '
                "JSON value, without markdown code fences (```) or text around it"
            )),
        ],
        id="fenced-then-prose",
    ),
    pytest.param(
        f"```json\n{GOOD}",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "```json\\n{\\"location\\": {\\"c…"; send only the '
                "JSON value, without markdown code fences (```) or text around it"
            )),
        ],
        id="fence-unclosed",
    ),
    pytest.param(
        f"```json {GOOD} ```",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "```json {\\"location\\": {\\"c…"; send only the '
                "JSON value, without markdown code fences (```) or text around it"
            )),
        ],
        id="fence-on-one-line",
    ),
    pytest.param(
        f"```python\n{GOOD}\n```",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "```python\\n{\\"location\\": {…"; send only the '
                "JSON value, without markdown code fences (```) or text around it"
            )),
        ],
        id="fence-other-language",
    ),
    pytest.param(
        f"```json\n{with_('')}\n```",
        [
            ("$", (
                "invalid JSON: trailing comma is not allowed at line 2 column 86 (char "
                '93), near ", }\\n   "; remove the comma after the last item'
            )),
        ],
        id="fenced-invalid-inside",
    ),
    pytest.param(
        f"Here is the forecast:\n{GOOD}",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "Here is the forecast:\\n{\\"…"; send only the '
                "JSON value, with no text before it"
            )),
        ],
        id="prose-before",
    ),
    pytest.param(
        f"{GOOD}\nI hope this helps!",
        [
            ("$", (
                "invalid JSON: unexpected content after document at line 2 column 1 (char "
                '87), near "I hope this helps!"; send only the JSON value, with no text '
                "after it"
            )),
        ],
        id="prose-after",
    ),
    pytest.param(
        f"<json>{GOOD}</json>",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "<json>{\\"location\\": {\\"cit…"; send only the '
                "JSON value, with no text before it"
            )),
        ],
        id="xml-tags",
    ),
    pytest.param(
        with_(''),
        [
            ("$", (
                "invalid JSON: trailing comma is not allowed at line 1 column 86 (char "
                '85), near ", }"; remove the comma after the last item'
            )),
        ],
        id="trailing-comma",
    ),
    pytest.param(
        GOOD.replace('"', "'"),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a string key at line 1 "
                'column 2 (char 1), near "\'location\': {\'city\': \'Os…"; write strings and '
                "keys in double quotes, not single quotes"
            )),
        ],
        id="single-quotes",
    ),
    pytest.param(
        str({"location": {"city": "Oslo", "country": "NO"}, "temperature": 3.5, "note": None}),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a string key at line 1 "
                'column 2 (char 1), near "\'location\': {\'city\': \'Os…"; write strings and '
                "keys in double quotes, not single quotes"
            )),
        ],
        id="python-dict-repr",
    ),
    pytest.param(
        '{location: {city: "Oslo", country: "NO"}, temperature: 3.5, unit: "celsius"}',
        [
            ("$", (
                "invalid JSON: unexpected character, expected a string key at line 1 "
                'column 2 (char 1), near "location: {city: \\"Oslo\\",…"; write every key '
                "as a string in double quotes, with a comma only between members"
            )),
        ],
        id="unquoted-keys",
    ),
    pytest.param(
        f"// the forecast\n{GOOD}",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "// the forecast\\n{\\"locati…"; JSON has no '
                "comments; remove them"
            )),
        ],
        id="line-comment",
    ),
    pytest.param(
        GOOD.replace('"unit"', '/* unit */ "unit"'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a string key at line 1 "
                'column 69 (char 68), near "/* unit */ \\"unit\\": \\"cels…"; JSON has no '
                "comments; remove them"
            )),
        ],
        id="block-comment",
    ),
    pytest.param(
        f"# forecast\n{GOOD}",
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 1 (char 0), near "# forecast\\n{\\"location\\": …"; JSON has no '
                "comments; remove them"
            )),
        ],
        id="hash-comment",
    ),
    pytest.param(
        with_('"note": None'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 96 (char 95), near "None}"; JSON writes true, false and null in '
                "lowercase (not True, False, None)"
            )),
        ],
        id="python-none",
    ),
    pytest.param(
        with_('"note": True'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 96 (char 95), near "True}"; JSON writes true, false and null in '
                "lowercase (not True, False, None)"
            )),
        ],
        id="python-true",
    ),
    pytest.param(
        GOOD.replace('3.5', 'NaN'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 64 (char 63), near "NaN, \\"unit\\": \\"celsius\\"}"; JSON has no NaN '
                "or Infinity; send a finite number, or null where the field allows it"
            )),
        ],
        id="nan",
    ),
    pytest.param(
        GOOD.replace('3.5', 'Infinity'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 64 (char 63), near "Infinity, \\"unit\\": \\"celsi…"; JSON has no '
                "NaN or Infinity; send a finite number, or null where the field allows it"
            )),
        ],
        id="infinity",
    ),
    pytest.param(
        GOOD.replace('3.5', '-Infinity'),
        [
            ("$", (
                "invalid JSON: no digit after sign at line 1 column 65 (char 64), near "
                '"Infinity, \\"unit\\": \\"celsi…"; JSON has no NaN or Infinity; send a '
                "finite number, or null where the field allows it"
            )),
        ],
        id="minus-infinity",
    ),
    pytest.param(
        with_('"note": undefined'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a JSON value at line 1 "
                'column 96 (char 95), near "undefined}"; JSON has no undefined; leave the '
                "field out, or send null where the field allows it"
            )),
        ],
        id="undefined",
    ),
    pytest.param(
        GOOD[:-1],
        [
            ("$", (
                "invalid JSON: unexpected end of data at line 1 column 86 (char 85); the "
                "JSON ends before the value is complete; send the whole value, closing "
                "every string, array and object"
            )),
        ],
        id="truncated-object",
    ),
    pytest.param(
        GOOD[:27],
        [
            ("$", (
                "invalid JSON: unexpected end of data at line 1 column 28 (char 27); the "
                "JSON ends before the value is complete; send the whole value, closing "
                "every string, array and object"
            )),
        ],
        id="truncated-string",
    ),
    pytest.param(
        GOOD + GOOD,
        [
            ("$", (
                "invalid JSON: unexpected content after document at line 1 column 87 "
                '(char 86), near "{\\"location\\": {\\"city\\": \\"O…"; send exactly one JSON '
                "value; a second one follows the first"
            )),
        ],
        id="two-objects",
    ),
    pytest.param(
        f"{GOOD}\n{GOOD}",
        [
            ("$", (
                "invalid JSON: unexpected content after document at line 2 column 1 (char "
                '87), near "{\\"location\\": {\\"city\\": \\"O…"; send exactly one JSON value; '
                "a second one follows the first"
            )),
        ],
        id="two-objects-on-two-lines",
    ),
    pytest.param(
        json.dumps(GOOD),
        [
            ("$", (
                'expected object, got string "{\\"location\\": {\\"city\\": \\"Oslo\\", '
                '\\"country\\":…" (86 characters); send the object itself, not a string '
                "holding its JSON"
            )),
        ],
        id="json-inside-a-string",
    ),
    pytest.param(
        f"[{GOOD}]",
        [
            ("$", (
                "expected object, got array; send the object itself, not an array holding "
                "it"
            )),
        ],
        id="wrapped-in-an-array",
    ),
    pytest.param(
        f"[{GOOD}, {GOOD}]",
        [
            ("$", "expected object, got array"),
        ],
        id="two-answers-in-an-array",
    ),
    pytest.param(
        '{"properties": ' + GOOD + "}",
        [
            ("$.location", "missing required field"),
            ("$.temperature", "missing required field"),
            ("$.unit", "missing required field"),
            ("$.properties", (
                "unknown field; it wraps this object's own fields; send them here, "
                "unwrapped (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="properties-wrapper",
    ),
    pytest.param(
        '{"arguments": ' + GOOD + "}",
        [
            ("$.location", "missing required field"),
            ("$.temperature", "missing required field"),
            ("$.unit", "missing required field"),
            ("$.arguments", (
                "unknown field; it wraps this object's own fields; send them here, "
                "unwrapped (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="arguments-wrapper",
    ),
    pytest.param(
        '{"Forecast": ' + GOOD + "}",
        [
            ("$.location", "missing required field"),
            ("$.temperature", "missing required field"),
            ("$.unit", "missing required field"),
            ("$.Forecast", (
                "unknown field; it wraps this object's own fields; send them here, "
                "unwrapped (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="class-name-wrapper",
    ),
    pytest.param(
        '{"type": "object", "properties": ' + GOOD + "}",
        [
            ("$.location", "missing required field"),
            ("$.temperature", "missing required field"),
            ("$.unit", "missing required field"),
            ("$.type", (
                "unknown field (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
            ("$.properties", (
                "unknown field; it wraps this object's own fields; send them here, "
                "unwrapped (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="schema-echo",
    ),
    pytest.param(
        GOOD.replace('3.5', '"3.5"'),
        [
            ("$.temperature", 'expected number, got string "3.5"'),
        ],
        id="number-as-string",
    ),
    pytest.param(
        with_('"days": "3"'),
        [
            ("$.days", 'expected integer, got string "3"'),
        ],
        id="integer-as-string",
    ),
    pytest.param(
        with_('"days": 2.5'),
        [
            ("$.days", "expected integer, got number 2.5"),
        ],
        id="fraction-for-integer",
    ),
    pytest.param(
        with_('"days": 2.0'),
        attrs.evolve(OK, days=2),
        id="whole-float-for-integer",
    ),
    pytest.param(
        with_('"days": true'),
        [
            ("$.days", "expected integer, got boolean true"),
        ],
        id="boolean-for-integer",
    ),
    pytest.param(
        with_('"days": 123456789012345678901234567890'),
        [
            ("$.days", (
                "expected integer, got number 1.2345678901234568e+29, which is too large "
                "to be read exactly; write integers as plain digits (no decimal point or "
                "exponent) between -9223372036854775808 and 18446744073709551615"
            )),
        ],
        id="integer-beyond-64-bits",
    ),
    pytest.param(
        with_('"days": 1e17'),
        [
            ("$.days", (
                "expected integer, got number 1e+17, which is too large to be read "
                "exactly; write integers as plain digits (no decimal point or exponent) "
                "between -9223372036854775808 and 18446744073709551615"
            )),
        ],
        id="exponent-for-integer",
    ),
    pytest.param(
        GOOD.replace('3.5', '1e400'),
        [
            ("$", (
                "invalid JSON: number is infinity when parsed as double at line 1 column "
                '64 (char 63), near "1e400, \\"unit\\": \\"celsius\\"…"; the number is too '
                "large for JSON (beyond about 1.8e308); send a smaller number"
            )),
        ],
        id="number-beyond-double",
    ),
    pytest.param(
        GOOD.replace('celsius', 'Celsius'),
        [
            ("$.unit", (
                "'Celsius' is not one of ['celsius', 'fahrenheit']; did you mean "
                "'celsius'?"
            )),
        ],
        id="enum-capitalised",
    ),
    pytest.param(
        GOOD.replace('celsius', 'CELSIUS'),
        [
            ("$.unit", (
                "'CELSIUS' is not one of ['celsius', 'fahrenheit']; did you mean "
                "'celsius'?"
            )),
        ],
        id="enum-upper-case",
    ),
    pytest.param(
        GOOD.replace('celsius', 'celcius'),
        [
            ("$.unit", (
                "'celcius' is not one of ['celsius', 'fahrenheit']; did you mean "
                "'celsius'?"
            )),
        ],
        id="enum-misspelled",
    ),
    pytest.param(
        GOOD.replace('celsius', '°C'),
        [
            ("$.unit", "'°C' is not one of ['celsius', 'fahrenheit']"),
        ],
        id="enum-symbol",
    ),
    pytest.param(
        GOOD.replace('"celsius"', '["celsius"]'),
        [
            ("$.unit", "expected one of ['celsius', 'fahrenheit'], got array"),
        ],
        id="enum-in-an-array",
    ),
    pytest.param(
        GOOD.replace('"celsius"', 'null'),
        [
            ("$.unit", "expected one of ['celsius', 'fahrenheit'], got null"),
        ],
        id="null-for-required-enum",
    ),
    pytest.param(
        GOOD.replace('"NO"', 'null'),
        [
            ("$.location.country", "expected string, got null"),
        ],
        id="null-for-required-nested-field",
    ),
    pytest.param(
        with_('"note": null'),
        OK,
        id="null-for-optional-field",
    ),
    pytest.param(
        with_('"tags": null'),
        [
            ("$.tags", "null is not allowed; leave the field out to use its default"),
        ],
        id="null-for-defaulted-list",
    ),
    pytest.param(
        with_('"tags": "rain, wind"'),
        [
            ("$.tags", 'expected array, got string "rain, wind"'),
        ],
        id="string-for-list",
    ),
    pytest.param(
        with_('"tags": ["rain", 5, null]'),
        [
            ("$.tags[1]", "expected string, got integer 5"),
            ("$.tags[2]", "expected string, got null"),
        ],
        id="wrong-items-in-list",
    ),
    pytest.param(
        with_('"humidity": 80'),
        [
            ("$.humidity", (
                "unknown field (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="extra-field",
    ),
    pytest.param(
        GOOD.replace('temperature', 'temprature'),
        [
            ("$.temperature", "missing required field"),
            ("$.temprature", "unknown field; did you mean 'temperature'?"),
        ],
        id="misspelled-field",
    ),
    pytest.param(
        GOOD.replace('temperature', 'Temperature'),
        [
            ("$.temperature", "missing required field"),
            ("$.Temperature", "unknown field; did you mean 'temperature'?"),
        ],
        id="field-in-other-case",
    ),
    pytest.param(
        GOOD.replace('temperature', 'temp'),
        [
            ("$.temperature", "missing required field"),
            ("$.temp", (
                "unknown field (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="abbreviated-field",
    ),
    pytest.param(
        '{"location": {"city": "Oslo"}, "temperature": 3.5, "unit": "celsius"}',
        [
            ("$.location.country", "missing required field"),
        ],
        id="missing-nested-field",
    ),
    pytest.param(
        '{"location": "Oslo, NO", "temperature": 3.5, "unit": "celsius"}',
        [
            ("$.location", 'expected object, got string "Oslo, NO"'),
        ],
        id="nested-object-as-text",
    ),
    pytest.param(
        '{"location": {"city": "Oslo"}, "temperature": "warm", "unit": "kelvin", "days": 3, '
        '"humidity": 80}',
        [
            ("$.location.country", "missing required field"),
            ("$.temperature", 'expected number, got string "warm"'),
            ("$.unit", "'kelvin' is not one of ['celsius', 'fahrenheit']"),
            ("$.humidity", (
                "unknown field (accepted fields: location, temperature, unit, days, tags, "
                "note)"
            )),
        ],
        id="several-mistakes",
    ),
    pytest.param(
        '{}',
        [
            ("$.location", "missing required field"),
            ("$.temperature", "missing required field"),
            ("$.unit", "missing required field"),
        ],
        id="empty-object",
    ),
    pytest.param(
        '',
        [
            ("$", (
                "invalid JSON: Input is a zero-length, empty document at line 1 column 1 "
                "(char 0); the reply is empty; send the JSON value"
            )),
        ],
        id="empty-string",
    ),
    pytest.param(
        ' \n\t ',
        [
            ("$", (
                "invalid JSON: input data is empty at line 1 column 1 (char 0); the reply "
                "is empty; send the JSON value"
            )),
        ],
        id="whitespace-only",
    ),
    pytest.param(
        'null',
        [
            ("$", "expected object, got null"),
        ],
        id="top-level-null",
    ),
    pytest.param(
        '42',
        [
            ("$", "expected object, got integer 42"),
        ],
        id="top-level-number",
    ),
    pytest.param(
        '"Oslo"',
        [
            ("$", 'expected object, got string "Oslo"'),
        ],
        id="top-level-string",
    ),
    pytest.param(
        '\ufeff' + GOOD,
        [
            ("$", (
                "invalid JSON: UTF-8 byte order mark (BOM) is not supported at line 1 "
                "column 1 (char 0); remove the byte order mark (U+FEFF) before the JSON"
            )),
        ],
        id="bom-prefix",
    ),
    pytest.param(
        GOOD.encode('utf-16'),
        [
            ("$", (
                "invalid JSON: not valid UTF-8 (byte 0xff) at line 1 column 1 (char 0); "
                "send the JSON encoded as UTF-8"
            )),
        ],
        id="utf-16-bytes",
    ),
    pytest.param(
        GOOD.replace('Oslo', 'Tromsø').encode('latin-1'),
        [
            ("$", (
                "invalid JSON: not valid UTF-8 (byte 0xf8) at line 1 column 29 (char 28); "
                "send the JSON encoded as UTF-8"
            )),
        ],
        id="latin-1-bytes",
    ),
    pytest.param(
        GOOD.replace('Oslo', 'Os\nlo'),
        [
            ("$", (
                "invalid JSON: unexpected control character in string at line 1 column 26 "
                '(char 25), near "\\nlo\\", \\"country\\": \\"NO\\"}, …"; write line breaks, '
                "tabs and other control characters inside strings as escapes (\\n, \\t, "
                "\\u0000)"
            )),
        ],
        id="raw-newline-in-string",
    ),
    pytest.param(
        with_(r'"note": "C:\windows"'),
        [
            ("$", (
                "invalid JSON: invalid escaped sequence in string at line 1 column 99 "
                '(char 98), near "\\\\windows\\"}"; a backslash in a string starts an '
                'escape; write \\\\ for a backslash itself (the escapes are \\" \\\\ \\/ \\b \\f '
                "\\n \\r \\t \\uXXXX)"
            )),
        ],
        id="invalid-escape",
    ),
    pytest.param(
        GOOD.replace('3.5', '+3.5'),
        [
            ("$", (
                "invalid JSON: no digit after sign at line 1 column 64 (char 63), near "
                '"+3.5, \\"unit\\": \\"celsius\\"}"; write numbers as plain decimals such as '
                "-0.5, 3 or 2e10 (no leading + or ., no hex)"
            )),
        ],
        id="leading-plus",
    ),
    pytest.param(
        GOOD.replace('3.5', '.5'),
        [
            ("$", (
                "invalid JSON: no digit after sign at line 1 column 64 (char 63), near "
                '".5, \\"unit\\": \\"celsius\\"}"; write numbers as plain decimals such as '
                "-0.5, 3 or 2e10 (no leading + or ., no hex)"
            )),
        ],
        id="leading-dot",
    ),
    pytest.param(
        GOOD.replace('3.5', '0x10'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected ',' or '}' at line 1 column "
                '65 (char 64), near "x10, \\"unit\\": \\"celsius\\"}"; write numbers as plain '
                "decimals such as -0.5, 3 or 2e10 (no leading + or ., no hex)"
            )),
        ],
        id="hexadecimal",
    ),
    pytest.param(
        GOOD.replace('3.5', '03'),
        [
            ("$", (
                "invalid JSON: number with leading zero is not allowed at line 1 column "
                '64 (char 63), near "03, \\"unit\\": \\"celsius\\"}"; write numbers without '
                "leading zeros (7, not 07)"
            )),
        ],
        id="leading-zero",
    ),
    pytest.param(
        GOOD.replace('3.5', '3,5'),
        [
            ("$", (
                "invalid JSON: unexpected character, expected a string key at line 1 "
                'column 66 (char 65), near "5, \\"unit\\": \\"celsius\\"}"; write decimals '
                "with a point (3.5), not a comma"
            )),
        ],
        id="decimal-comma",
    ),
    pytest.param(
        GOOD.replace(':', ' ='),
        [
            ("$", (
                "invalid JSON: unexpected character, expected ':' after key at line 1 "
                'column 13 (char 12), near "= {\\"city\\" = \\"Oslo\\", \\"cou…"; put a colon '
                "between each key and its value"
            )),
        ],
        id="equals-for-colon",
    ),
    pytest.param(
        with_('"note": ' + '[' * 2000 + ']' * 2000),
        [
            ("$", (
                "invalid JSON: depth limit exceeded at line 1 column 1120 (char 1119), "
                'near "[[[[[[[[[[[[[[[[[[[[[[[[…"; the value is nested more than 1024 '
                "levels deep; send a flatter value"
            )),
        ],
        id="deep-nesting",
    ),
    pytest.param(
        with_('"temperature": 4'),
        attrs.evolve(OK, temperature=4.0),
        id="duplicate-key",
    ),
]


def test_the_corpus_is_large_enough() -> None:
    """The corpus covers at least forty distinct mistakes, each with its own id."""
    ids = [row.id for row in CORPUS]
    assert len(ids) >= 40
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize(("reply", "expected"), CORPUS)
def test_each_mistake_has_its_exact_outcome(reply: str | bytes, expected: Any) -> None:
    """Each bad reply decodes to the expected instance or fails with exactly these problems."""
    if isinstance(expected, Forecast):
        assert decode(Forecast, reply) == expected
        return
    with pytest.raises(DecodeError) as info:
        decode(Forecast, reply)
    assert info.value.errors == expected


@pytest.mark.parametrize(("reply", "expected"), CORPUS)
def test_the_report_for_the_model_holds_every_problem(reply: str | bytes, expected: Any) -> None:
    """str(error) is one short report that names each problem's path and message."""
    if isinstance(expected, Forecast):
        return
    with pytest.raises(DecodeError) as info:
        decode(Forecast, reply)
    text = str(info.value)
    assert text.startswith("The reply does not match the schema")
    assert len(text) < 2000
    for path, message in expected:
        assert f"{path}: {message}" in text


def _is_invalid_json(expected: Any) -> bool:
    return not isinstance(expected, Forecast) and expected[0][1].startswith("invalid JSON")


INVALID_JSON = [row for row in CORPUS if _is_invalid_json(row.values[1])]


@pytest.mark.parametrize(("reply", "expected"), INVALID_JSON)
def test_invalid_json_says_where_and_what_to_do(reply: str | bytes, expected: Any) -> None:
    """Every syntax error gives line, column and char, then (after '; ') the fix."""
    ((path, message),) = expected
    assert path == "$"
    position, _, fix = message.partition("; ")
    assert " at line " in position
    assert "(char " in position
    assert fix
    assert fix != "send one valid JSON value"  # each corpus mistake has a specific fix


def _chat_completion(text: str) -> dict[str, Any]:
    return {
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": text, "refusal": None},
        }],
    }


TEXT_ROWS = [row for row in CORPUS if isinstance(row.values[0], str) and row.values[0].strip()]


@pytest.mark.parametrize(("reply", "expected"), TEXT_ROWS)
def test_decode_response_gives_the_same_outcome(reply: str, expected: Any) -> None:
    """A bad reply inside a Chat Completions response fails (or decodes) just as the text does."""
    response = _chat_completion(reply)
    if isinstance(expected, Forecast):
        assert decode_response(Forecast, response) == expected
        return
    with pytest.raises(DecodeError) as info:
        decode_response(Forecast, response)
    assert info.value.errors == expected


def forecast(
    location: Location,
    temperature: float,
    unit: Unit,
    days: int = 1,
    tags: tuple[str, ...] = (),
    note: str | None = None,
) -> str:
    """Store a forecast."""
    return f"{location.city}: {temperature} {unit.value} for {days} days"


FENCED = {"fenced-json", "fenced-bare", "fenced-upper-crlf-indented", "fenced-bytes"}


@pytest.mark.parametrize(("reply", "expected"), CORPUS)
def test_a_toolbox_never_raises_on_the_corpus(
    reply: str | bytes, expected: Any, request: pytest.FixtureRequest
) -> None:
    """As tool arguments, each bad reply is an error result (fences included), never an exception.

    Tool arguments come from the provider's tool-calling machinery, which does not fence
    them, so the toolbox does not drop fences: the model is told to send the JSON alone.
    """
    box = Toolbox([forecast])
    result = box.call("forecast", reply, call_id="call_1")
    also = asyncio.run(box.acall("forecast", reply, call_id="call_1"))
    assert (result.content, result.is_error) == (also.content, also.is_error)
    assert result.call_id == "call_1"
    fenced = request.node.callspec.id in FENCED
    assert result.is_error == (fenced or not isinstance(expected, Forecast))
    if result.is_error:
        assert result.content.startswith("Invalid arguments for tool 'forecast':\n- $")
        assert result.content.endswith(
            "Required parameters: location, temperature, unit. "
            "Accepted parameters: location, temperature, unit, days, tags, note."
        )
        assert len(result.content) < 2000
    if fenced:
        assert "without markdown code fences" in result.content
