"""check() and check_request(): every provider rule, on hand-written and pydantic schemas.

Each table row is one rule from docs/provider-rules.md (its code leads the row's name), a schema
that breaks it, and the problems expected as (pointer, rule) pairs.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Problem,
    check,
    check_request,
)
from describedtypes._schema.rules import regex_features, suggest_name
from describedtypes.adapters import Adapter

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741


def obj(props: dict[str, Any], required: list[str] | None = None, *, closed: bool = True,
        **extra: Any) -> dict[str, Any]:
    """A strict-style object schema; ``required`` defaults to every property."""
    out: dict[str, Any] = {"type": "object", "properties": props,
                           "required": list(props) if required is None else required}
    if closed:
        out["additionalProperties"] = False
    out.update(extra)
    return out


def found(schema: Any, adapter: Adapter) -> list[tuple[str, str]]:
    return [(p.pointer, p.rule) for p in check(schema, adapter)]


def prop(value: dict[str, Any]) -> dict[str, Any]:
    """A valid strict object holding ``value`` as its property ``x``."""
    return obj({"x": value})


DEFS_A = {"A": obj({"a": S})}

OPENAI_CASES = [
    ("valid", obj({"a": S, "b": {"type": ["integer", "null"]}}), []),
    ("O1 root is anyOf", {"anyOf": [obj({"a": S}), obj({"b": S})]}, [("", "root-object")]),
    ("O1 root is an array", {"type": "array", "items": S}, [("", "root-object")]),
    ("O1 root is a $ref", {"$ref": "#/$defs/A", "$defs": DEFS_A}, [("", "root-object")]),
    ("O2 optional property", obj({"a": S, "b": I}, ["a"]), [("", "required")]),
    ("O3 additionalProperties missing", obj({"a": S}, closed=False),
     [("", "additionalProperties")]),
    ("O3 open map", prop({"type": "object", "additionalProperties": I}),
     [("/properties/x/additionalProperties", "additionalProperties")]),
    ("O4 no type (Any)", prop({}), [("/properties/x", "type")]),
    ("O4 unknown type", prop({"type": "float"}), [("/properties/x/type", "type")]),
    ("O4 nullable type list", prop({"type": ["string", "null"]}), []),
    ("O5 format outside the list", prop({"type": "string", "format": "uri"}),
     [("/properties/x/format", "format")]),
    ("O5 listed format", prop({"type": "string", "format": "date-time"}), []),
    ("O6 number keywords", prop({"type": "number", "minimum": 0, "exclusiveMaximum": 9,
                                 "multipleOf": 3}), []),
    ("O7 array keywords", prop({"type": "array", "items": S, "minItems": 2, "maxItems": 4}), []),
    ("O9 allOf", prop({"allOf": [S]}), [("/properties/x/allOf", "keyword")]),
    ("O9 not", prop({"type": "string", "not": {"const": "a"}}),
     [("/properties/x/not", "keyword")]),
    ("O9 if/then", prop({"type": "string", "if": S, "then": S}),
     [("/properties/x/if", "keyword"), ("/properties/x/then", "keyword")]),
    ("O10 oneOf", prop({"oneOf": [S, I]}), [("/properties/x/oneOf", "keyword")]),
    ("O10 discriminator", prop({"anyOf": [obj({"k": S})], "discriminator": {"propertyName": "k"}}),
     [("/properties/x/discriminator", "keyword")]),
    ("O11 uniqueItems", prop({"type": "array", "items": S, "uniqueItems": True}),
     [("/properties/x/uniqueItems", "keyword")]),
    ("O13 anyOf branch is an open object", prop({"anyOf": [{"type": "object", "properties": {}},
                                                           {"type": "null"}]}),
     [("/properties/x/anyOf/0", "additionalProperties")]),
    ("O13 anyOf branch misses required", prop({"anyOf": [obj({"a": S}, []), {"type": "null"}]}),
     [("/properties/x/anyOf/0", "required")]),
    ("O14 recursion through the root", prop({"type": "array", "items": {"$ref": "#"}}), []),
    ("O14 recursion through $defs",
     obj({"n": {"$ref": "#/$defs/N"}}, **{"$defs": {"N": obj({"next": {"anyOf": [
         {"$ref": "#/$defs/N"}, {"type": "null"}]}})}}), []),
    ("O15 $ref with a description",
     obj({"x": {"$ref": "#/$defs/A", "description": "d"}}, **{"$defs": DEFS_A}),
     [("/properties/x", "$ref-siblings")]),
    ("O16 default", prop({"type": "integer", "default": 1}),
     [("/properties/x/default", "keyword")]),
    ("O17 nullable", prop({"type": "string", "nullable": True}),
     [("/properties/x/nullable", "keyword")]),
    ("O18 title and description", prop({"type": "string", "title": "X", "description": "d"}), []),
    ("O18 const", prop({"type": "string", "const": "a"}), []),
    ("O19 object without properties", prop({"type": "object", "additionalProperties": False}),
     [("/properties/x", "properties")]),
    ("O19 empty properties", prop(obj({})), []),
    ("external $ref", prop({"$ref": "https://example.com/a.json"}),
     [("/properties/x/$ref", "$ref")]),
    ("dangling $ref", prop({"$ref": "#/$defs/Missing"}), [("/properties/x/$ref", "$ref")]),
]


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in OPENAI_CASES],
                         ids=[c[0] for c in OPENAI_CASES])
def test_openai_strict_rules(schema: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    """Each OpenAI strict-mode rule reports exactly the place that breaks it."""
    assert found(schema, OPENAI) == expected


ANTHROPIC_CASES = [
    ("valid", obj({"a": S, "b": {"anyOf": [I, {"type": "null"}]}}), []),
    ("A1 additionalProperties missing", obj({"a": S}, closed=False),
     [("", "additionalProperties")]),
    ("A1 additionalProperties true", obj({"a": S}, additionalProperties=True),
     [("/additionalProperties", "additionalProperties")]),
    ("A2 optional properties are allowed", obj({"a": S, "b": I}, ["a"]), []),
    ("A3 default is allowed", prop({"type": "integer", "default": 3}), []),
    ("A3 allOf is allowed", prop({"allOf": [obj({"a": S})]}), []),
    ("A3 minItems 1", prop({"type": "array", "items": S, "minItems": 1}), []),
    ("A4 uri format", prop({"type": "string", "format": "uri"}), []),
    ("A4 unknown format", prop({"type": "string", "format": "ipv7"}),
     [("/properties/x/format", "format")]),
    ("A5 minimum", prop({"type": "integer", "minimum": 0}),
     [("/properties/x/minimum", "keyword")]),
    ("A5 multipleOf", prop({"type": "number", "multipleOf": 2}),
     [("/properties/x/multipleOf", "keyword")]),
    ("A5 maxLength", prop({"type": "string", "maxLength": 4}),
     [("/properties/x/maxLength", "keyword")]),
    ("A5 maxItems", prop({"type": "array", "items": S, "maxItems": 4}),
     [("/properties/x/maxItems", "keyword")]),
    ("A5 minItems above 1", prop({"type": "array", "items": S, "minItems": 2}),
     [("/properties/x/minItems", "minItems")]),
    ("A5 uniqueItems", prop({"type": "array", "items": S, "uniqueItems": True}),
     [("/properties/x/uniqueItems", "keyword")]),
    ("A5 propertyNames", prop({"type": "array", "items": S, "propertyNames": S}),
     [("/properties/x/propertyNames", "keyword")]),
    ("A5 recursion through the root", prop({"type": "array", "items": {"$ref": "#"}}),
     [("/properties/x/items", "recursion")]),
    ("A5 recursion through two definitions",
     obj({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {
         "A": obj({"b": {"$ref": "#/$defs/B"}}),
         "B": obj({"a": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}),
     }}),
     [("/$defs/A/properties/b", "recursion"), ("/$defs/B/properties/a/anyOf/0", "recursion")]),
    ("A5 shared definition is not recursion",
     obj({"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/A"}}, **{"$defs": DEFS_A}), []),
    ("A5 external $ref", prop({"$ref": "other.json#/A"}), [("/properties/x/$ref", "$ref")]),
    ("A5 object in enum", prop({"enum": [{"a": 1}]}), [("/properties/x/enum", "enum")]),
    ("A6 lookahead", prop({"type": "string", "pattern": "(?=a)b"}),
     [("/properties/x/pattern", "pattern")]),
    ("A6 backreference", prop({"type": "string", "pattern": "(a)\\1"}),
     [("/properties/x/pattern", "pattern")]),
    ("A6 word boundary", prop({"type": "string", "pattern": "\\bword"}),
     [("/properties/x/pattern", "pattern")]),
    ("A6 plain pattern", prop({"type": "string", "pattern": "^[a-z]+\\d{2}$"}), []),
    ("A9 union budget in one schema",
     obj({f"p{i}": {"anyOf": [S, {"type": "null"}]} for i in range(17)}),
     [("", "limit.union-params")]),
    # The Anthropic SDK's transform_schema refuses a list of types (and our ANTHROPIC
    # output never holds one): anyOf instead.
    ("A type list", prop({"type": ["string", "null"]}), [("/properties/x/type", "type")]),
    ("A9 optional budget in one schema", obj({f"p{i}": S for i in range(25)}, []),
     [("", "limit.optional-params")]),
    ("oneOf", prop({"oneOf": [S, I]}), [("/properties/x/oneOf", "keyword")]),
]


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in ANTHROPIC_CASES],
                         ids=[c[0] for c in ANTHROPIC_CASES])
def test_anthropic_strict_rules(schema: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    """Each Anthropic strict rule reports exactly the place that breaks it."""
    assert found(schema, ANTHROPIC_TOOLS) == expected


def test_anthropic_output_format_has_the_same_rules() -> None:
    """ANTHROPIC (output_config.format) checks what ANTHROPIC_TOOLS checks."""
    for _, schema, expected in ANTHROPIC_CASES:
        assert found(schema, ANTHROPIC) == expected


GEMINI_CASES = [
    ("valid", obj({"a": S, "b": I}, ["a"], closed=False), []),
    ("G2 oneOf is accepted", prop({"oneOf": [S, I]}), []),
    ("G2 boolean in enum", prop({"type": "boolean", "enum": [True]}),
     [("/properties/x/enum", "enum")]),
    ("G2 null in enum", prop({"type": ["string", "null"], "enum": ["a", None]}),
     [("/properties/x/enum", "enum")]),
    ("G2 numbers in enum", prop({"type": "integer", "enum": [1, 2]}), []),
    ("G3 $ref with a description",
     obj({"x": {"$ref": "#/$defs/A", "description": "d"}}, **{"$defs": DEFS_A}),
     [("/properties/x", "$ref-siblings")]),
    ("G3 $ref with $-keys", obj({"x": {"$ref": "#/$defs/A", "$comment": "c"}},
                               **{"$defs": DEFS_A}), []),
    ("G3 recursion in a required property",
     obj({"children": {"type": "array", "items": {"$ref": "#"}}}),
     [("/properties/children", "recursion")]),
    ("G3 recursion in an optional property",
     obj({"v": I, "children": {"type": "array", "items": {"$ref": "#"}}}, ["v"]), []),
    ("G3 nullable is not enough",
     obj({"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}),
     [("/properties/next", "recursion")]),
    ("G3 recursion inside a definition",
     obj({"t": {"$ref": "#/$defs/T"}}, **{"$defs": {"T": obj({"kids": {
         "type": "array", "items": {"$ref": "#/$defs/T"}}})}}),
     [("/$defs/T/properties/kids", "recursion")]),
    ("G8 root is not an object", {"type": "string"}, [("", "root-object")]),
]


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in GEMINI_CASES],
                         ids=[c[0] for c in GEMINI_CASES])
def test_gemini_rules(schema: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    """Each Gemini JSON-Schema-path rule reports exactly the place that breaks it."""
    assert found(schema, GEMINI) == expected


MCP_CASES = [
    ("M3 object root", obj({"a": S}, [], closed=False, oneOf=[{"required": ["a"]}]), []),
    ("M3 root is not an object", {"type": "array", "items": S}, [("", "root-object")]),
    ("M4 no arguments", {"type": "object", "additionalProperties": False}, []),
]


@pytest.mark.parametrize(("schema", "expected"), [c[1:] for c in MCP_CASES],
                         ids=[c[0] for c in MCP_CASES])
def test_mcp_rules(schema: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    """MCP takes any JSON Schema with an object root."""
    assert found(schema, MCP_TOOLS) == expected


def test_standard_accepts_everything() -> None:
    """STANDARD has no provider rules: every schema in the tables passes."""
    for cases in (OPENAI_CASES, ANTHROPIC_CASES, GEMINI_CASES):
        for _, schema, _ in cases:
            assert check(schema, STANDARD) == []


class TestLimits:
    def test_property_count(self) -> None:
        """More than 5,000 properties in one schema is reported with the figure."""
        schema = obj({f"p{i}": I for i in range(5001)})
        [problem] = check(schema, OPENAI)
        assert (problem.pointer, problem.rule) == ("", "limit.properties")
        assert "5,001" in problem.message
        assert "5,000" in problem.message

    def test_property_count_across_objects(self) -> None:
        """Properties are summed over every object, definitions included."""
        inner = obj({f"q{i}": I for i in range(2500)})
        schema = obj({"a": inner}, **{"$defs": {"D": obj({f"r{i}": I for i in range(2500)})}})
        assert [p.rule for p in check(schema, OPENAI)] == ["limit.properties"]

    @pytest.mark.parametrize(("levels", "expected"), [(10, []), (11, ["limit.depth"])])
    def test_nesting_depth(self, levels: int, expected: list[str]) -> None:
        """Objects nest at most 10 levels (the root object is level 1)."""
        schema = obj({"leaf": S})
        for _ in range(levels - 1):
            schema = obj({"child": schema})
        problems = check(schema, OPENAI)
        assert [p.rule for p in problems] == expected
        if expected:
            assert "11 levels" in problems[0].message
            assert problems[0].pointer == "/properties/child" * 10

    def test_nesting_depth_through_references(self) -> None:
        """Depth follows $ref into definitions."""
        defs = {f"L{i}": obj({"next": {"$ref": f"#/$defs/L{i + 1}"}}) for i in range(10)}
        defs["L10"] = obj({"leaf": S})
        schema = obj({"start": {"$ref": "#/$defs/L0"}}, **{"$defs": defs})
        assert [p.rule for p in check(schema, OPENAI)] == ["limit.depth"]

    def test_total_characters(self) -> None:
        """Names and enum values above 120,000 characters are reported with the figure."""
        schema = obj({f"{i:031d}": I for i in range(4000)})
        [problem] = check(schema, OPENAI)
        assert problem.rule == "limit.chars"
        assert "124,000" in problem.message
        assert "120,000" in problem.message

    def test_enum_value_count(self) -> None:
        """More than 1,000 enum values in one schema is reported."""
        schema = obj({"a": {"type": "integer", "enum": list(range(600))},
                      "b": {"type": "integer", "enum": list(range(401))}})
        [problem] = check(schema, OPENAI)
        assert problem.rule == "limit.enum-values"
        assert "1,001" in problem.message

    def test_large_string_enum(self) -> None:
        """A string enum of more than 250 values may hold at most 15,000 characters."""
        big = [f"{i:060d}" for i in range(251)]
        schema = prop({"type": "string", "enum": big})
        [problem] = check(schema, OPENAI)
        assert (problem.pointer, problem.rule) == ("/properties/x/enum", "limit.large-enum")
        assert "15,060" in problem.message

    def test_long_enum_of_few_values_is_fine(self) -> None:
        """The 15,000-character rule applies only above 250 values."""
        schema = prop({"type": "string", "enum": [f"{i:070d}" for i in range(250)]})
        assert check(schema, OPENAI) == []

    def test_limits_only_apply_in_strict_mode(self) -> None:
        """A non-strict OpenAI schema is not held to the structured-output limits."""
        schema = obj({f"p{i}": I for i in range(5001)})
        assert check(schema, OPENAI.replace(strict=False)) == []

    def test_custom_limits(self) -> None:
        """An adapter's limits can be set to an older model's figures."""
        from describedtypes.adapters import Limits

        old = OPENAI.replace(limits=Limits(max_properties=100, max_depth=5))
        schema = obj({f"p{i}": I for i in range(101)})
        [problem] = check(schema, old)
        assert "at most 100" in problem.message


class TestWrapped:
    def test_pointers_reach_into_the_wrapper(self) -> None:
        """A wrapped definition's problems point into the wrapper."""
        tool = {"type": "function", "function": {"name": "f", "strict": True,
                                                 "parameters": obj({"a": S}, [])}}
        assert found(tool, OPENAI_CHAT_TOOLS) == [("/function/parameters", "required")]

    def test_wrapped_strict_false_turns_strict_rules_off(self) -> None:
        """A definition that says strict: false is checked as non-strict."""
        tool = {"type": "function", "name": "f", "strict": False,
                "parameters": obj({"a": S}, [], closed=False)}
        assert check(tool, OPENAI_TOOLS) == []
        tool["strict"] = True
        assert [p.rule for p in check(tool, OPENAI_TOOLS)] == ["additionalProperties",
                                                               "required"]

    @pytest.mark.parametrize(
        ("adapter", "tool", "pointer", "suggestion"),
        [
            (OPENAI_CHAT_TOOLS, {"type": "function", "function": {
                "name": "get.weather", "parameters": obj({})}}, "/function/name", "get_weather"),
            (OPENAI_TOOLS, {"type": "function", "name": "x" * 65, "strict": True,
                            "parameters": obj({})}, "/name", "x" * 64),
            (OPENAI, {"name": "my schema", "strict": True, "schema": obj({})}, "/name",
             "my_schema"),
            (ANTHROPIC_TOOLS, {"name": "a/b", "input_schema": obj({})}, "/name", "a_b"),
            (GEMINI, {"name": "1st", "parameters_json_schema": obj({})}, "/name", "_1st"),
            (MCP_TOOLS, {"name": "list files", "inputSchema": obj({})}, "/name", "list_files"),
        ],
        ids=["openai-chat-dot", "openai-length", "openai-space", "anthropic-slash",
             "gemini-digit-first", "mcp-space"],
    )
    def test_bad_names_propose_a_valid_one(self, adapter: Adapter, tool: dict[str, Any],
                                           pointer: str, suggestion: str) -> None:
        """A name outside the provider's pattern is a problem that proposes a valid name."""
        [problem] = check(tool, adapter)
        assert (problem.pointer, problem.rule) == (pointer, "name")
        assert repr(suggestion) in problem.message
        assert adapter.valid_name(suggestion)

    @pytest.mark.parametrize(
        ("adapter", "name"),
        [(ANTHROPIC_TOOLS, "a" * 128), (GEMINI, "ns.tool:v1-2"), (MCP_TOOLS, "admin.tools.list"),
         (OPENAI_TOOLS, "get_weather-2")],
    )
    def test_good_names(self, adapter: Adapter, name: str) -> None:
        """Names inside each provider's pattern pass."""
        assert adapter.valid_name(name)

    def test_missing_name(self) -> None:
        """A wrapped definition without a name is a problem."""
        tool = {"type": "function", "strict": True, "parameters": obj({})}
        assert found(tool, OPENAI_TOOLS) == [("/name", "name")]

    def test_bare_body_has_no_name_to_check(self) -> None:
        """A bare body is checked without a name."""
        assert check(obj({}), OPENAI_TOOLS) == []


class TestCheckRequest:
    def tool(self, name: str, body: dict[str, Any], strict: bool = True) -> dict[str, Any]:
        return {"name": name, "strict": strict, "input_schema": body}

    def test_strict_tool_budget(self) -> None:
        """More than 20 strict Anthropic tools in one request is a problem; non-strict ones
        do not count."""
        tools = [self.tool(f"t{i}", obj({})) for i in range(21)]
        [problem] = check_request(tools, ANTHROPIC_TOOLS)
        assert (problem.pointer, problem.rule) == ("", "limit.strict-tools")
        assert "21" in problem.message
        assert "20" in problem.message
        tools[0]["strict"] = False
        assert check_request(tools, ANTHROPIC_TOOLS) == []

    def test_union_budget_is_summed(self) -> None:
        """Union-typed parameters are summed over every strict tool of the request."""
        body = obj({f"p{i}": {"anyOf": [S, {"type": "null"}]} for i in range(6)})
        tools = [self.tool(f"t{i}", copy.deepcopy(body)) for i in range(3)]
        assert all(check(t, ANTHROPIC_TOOLS) == [] for t in tools)
        [problem] = check_request(tools, ANTHROPIC_TOOLS)
        assert problem.rule == "limit.union-params"
        assert "18" in problem.message
        assert "16" in problem.message

    def test_optional_budget_is_summed(self) -> None:
        """Optional parameters are summed over every strict tool of the request."""
        body = obj({f"p{i}": S for i in range(9)}, [])
        tools = [self.tool(f"t{i}", copy.deepcopy(body)) for i in range(3)]
        [problem] = check_request(tools, ANTHROPIC_TOOLS)
        assert problem.rule == "limit.optional-params"
        assert "27" in problem.message
        assert "24" in problem.message

    def test_duplicate_names(self) -> None:
        """Two tools with one name are a problem at the second one's name."""
        tools = [self.tool("same", obj({})), self.tool("same", obj({}))]
        assert [(p.pointer, p.rule) for p in check_request(tools, ANTHROPIC_TOOLS)] == [
            ("/1/name", "unique-names")
        ]

    def test_each_definition_is_checked(self) -> None:
        """A definition's own problems come with its index in front of the pointer."""
        tools = [self.tool("a", obj({})), self.tool("b", obj({"x": S}, closed=False))]
        assert [(p.pointer, p.rule) for p in check_request(tools, ANTHROPIC_TOOLS)] == [
            ("/1/input_schema", "additionalProperties")
        ]

    def test_openai_has_no_request_budget(self) -> None:
        """OpenAI requests are not limited in tool count here (no documented figure)."""
        tools = [{"type": "function", "name": f"t{i}", "strict": True, "parameters": obj({})}
                 for i in range(40)]
        assert check_request(tools, OPENAI_TOOLS) == []

    def test_bad_arguments(self) -> None:
        """check_request() wants a list of JSON objects and an Adapter."""
        with pytest.raises(TypeError, match="list of tool definitions"):
            check_request({"name": "a"}, ANTHROPIC_TOOLS)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="definition 0 is a str"):
            check_request(["a"], ANTHROPIC_TOOLS)  # type: ignore[list-item]
        with pytest.raises(TypeError, match="must be an Adapter"):
            check_request([], "ANTHROPIC_TOOLS")  # type: ignore[arg-type]


class TestCheckArguments:
    def test_not_a_dict(self) -> None:
        """check() names what it got instead of a JSON object."""
        with pytest.raises(TypeError, match="got list"):
            check([], OPENAI)  # type: ignore[arg-type]

    def test_not_an_adapter(self) -> None:
        """check() wants an Adapter."""
        with pytest.raises(TypeError, match="must be an Adapter"):
            check({}, "OPENAI")  # type: ignore[arg-type]

    def test_problem_text(self) -> None:
        """A problem prints as pointer, message and rule."""
        problem = Problem("/a", "keyword", "no")
        assert str(problem) == "/a: no [keyword]"
        assert str(Problem("", "root-object", "x")) == "/: x [root-object]"

    def test_check_does_not_change_its_input(self) -> None:
        """check() only reads the schema."""
        schema = prop({"oneOf": [S, I], "default": 1})
        before = copy.deepcopy(schema)
        check(schema, OPENAI)
        assert schema == before


# Any JSON value, with schema keywords among the keys so that the rules look inside.
_KEYWORDS = st.sampled_from([
    "type", "properties", "required", "items", "anyOf", "$ref", "$defs", "enum", "const",
    "format", "pattern", "additionalProperties", "description", "minItems", "prefixItems",
    "not", "allOf", "oneOf",
])
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.sampled_from(["object", "string", "#", "#/$defs/a", "date-time", "a/b~c"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(_KEYWORDS | st.text(max_size=3), inner, max_size=4),
    max_leaves=25,
)
_ADAPTERS = [OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC, ANTHROPIC_TOOLS, GEMINI,
             MCP_TOOLS, STANDARD]


@given(st.dictionaries(_KEYWORDS, _JSON_VALUES, max_size=6), st.sampled_from(_ADAPTERS))
def test_check_reports_any_json_object_without_crashing(
    schema: dict[str, Any], adapter: Adapter
) -> None:
    """Whatever JSON object check() gets (a type that is a dict, a format that is a
    list, ...), it answers with problems, each at a pointer, and never raises."""
    problems = check(schema, adapter)
    assert all(isinstance(p, Problem) and isinstance(p.pointer, str) for p in problems)


def test_check_reports_unhashable_types_and_formats() -> None:
    """A type or format that is not a string is a problem to report, not a crash."""
    schema = {"type": "object", "properties": {"a": {"type": {}}, "b": {"type": "string",
              "format": []}}, "required": ["a", "b"], "additionalProperties": False}
    rules = {(p.pointer, p.rule) for p in check(schema, OPENAI)}
    assert ("/properties/a/type", "type") in rules
    assert ("/properties/b/format", "format") in rules


class TestRegexFeatures:
    @pytest.mark.parametrize(
        ("pattern", "features"),
        [
            ("^[a-z]+$", []),
            ("(?=x)a", ["lookahead"]),
            ("a(?!x)", ["lookahead"]),
            ("(?<=x)a", ["lookbehind"]),
            ("(?<!x)a", ["lookbehind"]),
            ("(a)\\1", ["backreferences"]),
            ("(?P<n>a)(?P=n)", ["backreferences"]),
            ("\\bword\\B", ["word boundaries"]),
            ("[\\b]", []),
            ("\\\\b", []),
            ("[(?=]x", []),
            ("\\0", []),
            ("(?:a|b)", []),
        ],
    )
    def test_features(self, pattern: str, features: list[str]) -> None:
        """Backreferences, lookaround and word boundaries are found; escapes and classes
        are not mistaken for them."""
        assert regex_features(pattern) == features


@given(st.text(min_size=1, max_size=200))
def test_suggested_names_are_valid(name: str) -> None:
    """suggest_name() always proposes a name each provider accepts."""
    for adapter in (OPENAI, ANTHROPIC_TOOLS, GEMINI, MCP_TOOLS):
        assert adapter.valid_name(suggest_name(name, adapter.name_pattern))


class TestPydanticSchemas:
    """check() on what pydantic emits: the constructs that fail at request time."""

    def test_pydantic_model_problems(self) -> None:
        """A typical pydantic schema breaks OpenAI strict rules, each found with a pointer."""
        from typing import Literal, Optional, Union

        import pydantic

        class Cat(pydantic.BaseModel):
            kind: Literal["cat"]

        class Dog(pydantic.BaseModel):
            kind: Literal["dog"]

        class Address(pydantic.BaseModel):
            city: str

        class Owner(pydantic.BaseModel):
            name: str
            nickname: Optional[str] = None  # noqa: UP045
            pets: set[str] = set()
            pet: Union[Cat, Dog] = pydantic.Field(discriminator="kind")  # noqa: UP007
            home: Address = pydantic.Field(description="Where the owner lives")
            age: int = pydantic.Field(ge=0)

        problems = check(Owner.model_json_schema(), OPENAI)
        seen = {(p.pointer, p.rule) for p in problems}
        assert ("", "additionalProperties") in seen
        assert ("", "required") in seen
        assert ("/properties/pets/uniqueItems", "keyword") in seen
        assert ("/properties/pets/default", "keyword") in seen
        assert ("/properties/pet/oneOf", "keyword") in seen
        assert ("/properties/pet/discriminator", "keyword") in seen
        assert ("/properties/home", "$ref-siblings") in seen
        assert ("/$defs/Address", "additionalProperties") in seen
        anthropic = {(p.pointer, p.rule) for p in check(Owner.model_json_schema(),
                                                         ANTHROPIC_TOOLS)}
        assert ("/properties/age/minimum", "keyword") in anthropic
        assert ("/properties/pet/oneOf", "keyword") in anthropic


def test_a_custom_rule_runs_in_check_and_schema() -> None:
    """One set of rules: a rule added to an adapter is applied by check() and schema()."""
    import attrs

    from describedtypes import SchemaError, schema
    from describedtypes.adapters import Document, Rule

    def no_floats(doc: Document, adapter: Adapter) -> Any:
        for v in doc.visits:
            if v.schema.get("type") == "number":
                yield doc.problem(v.pointer, "no-floats", "use an integer")

    ints_only = STANDARD.replace(name="INTS", checks=(Rule("no-floats", no_floats),))
    assert found(prop({"type": "number"}), ints_only) == [("/properties/x", "no-floats")]
    holder = attrs.make_class("HasFloat", {"x": attrs.field(type=float)})
    with pytest.raises(SchemaError, match=r"/properties/x: use an integer \[no-floats\]"):
        schema(holder, ints_only)
    assert schema(attrs.make_class("HasInt", {"x": attrs.field(type=int)}), ints_only)


def test_recursion_rule_reads_the_adapter() -> None:
    """The recursion rule follows the adapter's recursion field, like the other rules
    follow formats, limits and the name pattern."""
    schema = prop({"type": "array", "items": {"$ref": "#"}})
    assert [p.rule for p in check(schema, ANTHROPIC_TOOLS)] == ["recursion"]
    assert check(schema, ANTHROPIC_TOOLS.replace(recursion=True)) == []


def test_check_reads_the_read_only_schema_schema_returns() -> None:
    """schema() hands out FrozenDict/FrozenList (dict and list subclasses): check() walks
    them exactly as it walks a plain copy, unions and arrays of objects included."""
    import attrs

    from describedtypes import schema
    from describedtypes._schema.document import document

    leaf = attrs.make_class("Leaf", {"z": attrs.field(type=int)})
    holder = attrs.make_class("Holder", {
        "x": attrs.field(type=int | leaf),
        "y": attrs.field(type=list[leaf | None]),
    })
    frozen = schema(holder, OPENAI)
    plain = copy.deepcopy(frozen)
    assert type(plain) is dict
    assert [v.pointer for v in document(frozen, OPENAI).visits] == [
        v.pointer for v in document(plain, OPENAI).visits
    ]
    assert len(document(frozen, OPENAI).visits) == 10
    assert check(frozen, OPENAI) == check(plain, OPENAI) == []
    del plain["schema"]["properties"]["x"]["anyOf"][1]["additionalProperties"]
    assert check(plain, OPENAI) == [
        Problem("/schema/properties/x/anyOf/1", "additionalProperties",
                "this object does not set additionalProperties; OPENAI needs "
                "additionalProperties: false on every object"),
    ]
