"""schema(): type mapping, layout and key order (3.3), references, errors."""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import enum
import json
import uuid
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar, Union

import attrs
import jsonschema
import pytest

from describedtypes import (
    OPENAI,
    OPENAI_TOOLS,
    STANDARD,
    Annotation,
    Rewrite,
    SchemaError,
    schema,
)

T = TypeVar("T")


def prop(tp: Any, adapter: Any = STANDARD) -> Any:
    """The schema of one field of type ``tp``."""
    holder = attrs.make_class("Holder", {"x": attrs.field(type=tp)})
    out = schema(holder, llm_adapter=adapter)
    body = out if adapter is STANDARD else out["schema"]
    return body["properties"]["x"]


class IntColor(enum.IntEnum):
    red = 1
    green = 2


class StrColor(str, enum.Enum):
    red = "r"
    green = "g"


class TestTypeMapping:
    @pytest.mark.parametrize(
        ("tp", "expected"),
        [
            (str, {"type": "string"}),
            (int, {"type": "integer"}),
            (float, {"type": "number"}),
            (bool, {"type": "boolean"}),
            (type(None), {"type": "null"}),
            (datetime.datetime, {"type": "string", "format": "date-time"}),
            (datetime.date, {"type": "string", "format": "date"}),
            (datetime.time, {"type": "string", "format": "time"}),
            (uuid.UUID, {"type": "string", "format": "uuid"}),
            (IntColor, {"type": "integer", "enum": [1, 2]}),
            (StrColor, {"type": "string", "enum": ["r", "g"]}),
            (Literal["a"], {"type": "string", "const": "a"}),
            (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
            (Literal[1, "a"], {"type": ["integer", "string"], "enum": [1, "a"]}),
            (list[int], {"type": "array", "items": {"type": "integer"}}),
            (collections.abc.Sequence[str], {"type": "array", "items": {"type": "string"}}),
            (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
            (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
            (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
            (
                tuple[int, str],
                {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "items": False,
                    "minItems": 2,
                    "maxItems": 2,
                },
            ),
            (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
            (Union[int, str], {"type": ["integer", "string"]}),  # noqa: UP007 - the typing spelling
            (
                Union[int, list[int]],  # noqa: UP007 - the typing spelling
                {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]},
            ),
            (Any, {}),
            (Annotated[str, Annotation(description="d")], {"type": "string", "description": "d"}),
            (
                Annotated[str, Annotation(enum=["x", "y"])],
                {"type": "string", "enum": ["x", "y"]},
            ),
        ],
    )
    def test_standard(self, tp: Any, expected: Any) -> None:
        """Each Python type maps to the JSON Schema of the type-mapping table."""
        assert prop(tp) == expected

    def test_dict_with_enum_keys_is_a_closed_object(self) -> None:
        """dict[Literal[...], T] lists its keys as optional properties, nothing else."""
        out = prop(dict[Literal["k1", "k2"], int])
        assert out == {
            "type": "object",
            "properties": {"k1": {"type": "integer"}, "k2": {"type": "integer"}},
            "additionalProperties": False,
        }
        jsonschema.validate({"k1": 1}, out)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"k3": 1}, out)

    def test_optional_nested_in_list_is_a_null_union(self) -> None:
        """Optional below the field level allows null in every adapter."""
        assert prop(list[Optional[int]]) == {  # noqa: UP045
            "type": "array",
            "items": {"type": ["integer", "null"]},
        }

    def test_optional_object_under_openai_is_any_of(self) -> None:
        """A non-primitive optional field is anyOf with a null branch."""

        @attrs.define
        class Inner:
            y: int

        out = prop(Optional[Inner], OPENAI)  # noqa: UP045
        assert list(out) == ["anyOf"]
        assert out["anyOf"][1] == {"type": "null"}
        assert out["anyOf"][0]["additionalProperties"] is False

    def test_optional_enum_under_openai_lists_null(self) -> None:
        """An optional enum allows null in its type and its values."""
        assert prop(Optional[IntColor], OPENAI) == {  # noqa: UP045
            "type": ["integer", "null"],
            "enum": [1, 2, None],
        }

    def test_strict_dict_is_key_value_array(self) -> None:
        """Strict adapters encode dict[str, T] as an array of key/value objects."""
        assert prop(dict[str, int], OPENAI) == {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"key": {"type": "string"}, "value": {"type": "integer"}},
                "required": ["key", "value"],
                "additionalProperties": False,
            },
        }


class TestFields:
    def test_defaults_in_standard(self) -> None:
        """Defaulted fields are optional in STANDARD and carry their JSON default."""

        @attrs.define
        class D:
            a: int
            b: int = 3
            c: list[int] = attrs.Factory(list)
            d: StrColor = StrColor.red
            e: Optional[int] = None  # noqa: UP045

        out = schema(D)
        assert out["required"] == ["a"]
        assert out["properties"]["b"] == {"type": "integer", "default": 3}
        assert out["properties"]["c"]["default"] == []
        assert out["properties"]["d"]["default"] == "r"
        assert "default" not in out["properties"]["e"]  # null is not an integer

    def test_strict_requires_defaults_and_drops_them(self) -> None:
        """Strict adapters list defaulted fields in required and emit no default."""

        @attrs.define
        class D:
            a: int
            b: int = 3

        body = schema(D, OPENAI)["schema"]
        assert body["required"] == ["a", "b"]
        assert "default" not in body["properties"]["b"]

    def test_validators_become_constraints(self) -> None:
        """attrs validators in_, ge, gt, le, lt, min_len, max_len, matches_re map to keywords."""
        v = attrs.validators

        @attrs.define
        class C:
            n: int = attrs.field(validator=[v.ge(0), v.lt(10)])
            f: float = attrs.field(validator=v.and_(v.gt(0.5), v.le(2.5)))
            s: str = attrs.field(validator=[v.min_len(1), v.max_len(5), v.matches_re(r"[a-z]+")])
            items: list[int] = attrs.field(validator=v.max_len(3))
            kind: str = attrs.field(validator=v.in_(["a", "b"]))
            maybe: Optional[int] = attrs.field(default=None, validator=v.optional(v.ge(1)))  # noqa: UP045

        p = schema(C)["properties"]
        assert p["n"] == {"type": "integer", "minimum": 0, "exclusiveMaximum": 10}
        assert p["f"] == {"type": "number", "exclusiveMinimum": 0.5, "maximum": 2.5}
        assert p["s"] == {
            "type": "string", "minLength": 1, "maxLength": 5, "pattern": "^(?:[a-z]+)$"
        }
        assert p["items"] == {"type": "array", "items": {"type": "integer"}, "maxItems": 3}
        assert p["kind"] == {"type": "string", "enum": ["a", "b"]}
        assert p["maybe"] == {"type": "integer", "minimum": 1}

    def test_pattern_anchoring_follows_the_match_function(self) -> None:
        """matches_re's fullmatch/match/search become anchored or open JSON patterns."""
        import re

        v = attrs.validators

        @attrs.define
        class P:
            full: str = attrs.field(validator=v.matches_re("a+"))
            start: str = attrs.field(validator=v.matches_re("a+", func=re.match))
            anywhere: str = attrs.field(validator=v.matches_re("a+", func=re.search))

        p = schema(P)["properties"]
        assert p["full"]["pattern"] == "^(?:a+)$"
        assert p["start"]["pattern"] == "^(?:a+)"
        assert p["anywhere"]["pattern"] == "a+"

    def test_annotated_name_renames_the_key(self) -> None:
        """Annotated[T, Annotation(name=...)] sets the property key the model sees."""

        @attrs.define
        class R:
            user_id: Annotated[int, Annotation(name="userId", description="The user")]

        out = schema(R)
        assert out["properties"] == {"userId": {"type": "integer", "description": "The user"}}
        assert out["required"] == ["userId"]

    def test_dataclass_fields_and_init_false(self) -> None:
        """Dataclass fields map like attrs fields; init=False fields are not shown."""

        @dataclasses.dataclass
        class DC:
            a: int
            b: str = "x"
            c: int = dataclasses.field(default=0, init=False)

        assert schema(DC) == {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string", "default": "x"}},
            "required": ["a"],
        }


@attrs.define
class Box(Generic[T]):
    item: T
    label: str = ""


@attrs.define
class TreeNode:
    value: int
    children: list[TreeNode]


@attrs.define
class Forward:
    later: Later


@attrs.define
class Later:
    x: int


class TestStructure:
    def test_generic_classes_are_substituted(self) -> None:
        """A parametrized generic describes its concrete argument."""
        assert schema(Box[int])["properties"]["item"] == {"type": "integer"}
        assert schema(Box[list[str]])["properties"]["item"]["items"] == {"type": "string"}

    def test_unparametrized_generic_is_an_error(self) -> None:
        """A bare generic class asks for its parameter."""
        with pytest.raises(SchemaError, match=r"Box\[int\]"):
            schema(Box)

    def test_forward_references_resolve(self) -> None:
        """Forward references and string annotations resolve at module level."""
        assert schema(Forward)["properties"]["later"]["properties"] == {"x": {"type": "integer"}}

    def test_recursive_type_goes_to_defs_and_never_loops(self) -> None:
        """A self-referencing class refers to the root with $ref '#'."""
        out = schema(TreeNode)
        assert out["properties"]["children"] == {"type": "array", "items": {"$ref": "#"}}
        jsonschema.Draft202012Validator.check_schema(out)
        jsonschema.validate({"value": 1, "children": [{"value": 2, "children": []}]}, out)

    def test_recursion_below_root_uses_defs_without_references(self) -> None:
        """A recursive class below the root lands in $defs even with use_references off."""

        @attrs.define
        class Forest:
            trees: list[TreeNode]

        out = schema(Forest)
        assert out["properties"]["trees"]["items"] == {"$ref": "#/$defs/TreeNode"}
        assert out["$defs"]["TreeNode"]["properties"]["children"]["items"] == {
            "$ref": "#/$defs/TreeNode"
        }
        assert list(out) == ["type", "properties", "required", "$defs"]

    def test_colliding_names_are_qualified_by_module(self) -> None:
        """Two different classes with one name get module-qualified $defs keys."""
        first = attrs.make_class("Same", {"a": attrs.field(type=int)})
        second = attrs.make_class("Same", {"b": attrs.field(type=str)})
        first.__module__ = "pkg.one"
        second.__module__ = "pkg.two"
        outer = attrs.make_class(
            "Outer", {"x": attrs.field(type=first), "y": attrs.field(type=second)}
        )
        out = schema(outer, use_references=True)
        assert set(out["$defs"]) == {"pkg.one.Same", "pkg.two.Same"}
        assert out["properties"]["x"] == {"$ref": "#/$defs/pkg.one.Same"}

    def test_generic_defs_keys_name_their_arguments(self) -> None:
        """Box[int] and Box[str] get distinct, readable $defs keys."""
        outer = attrs.make_class(
            "Outer2", {"a": attrs.field(type=Box[int]), "b": attrs.field(type=Box[str])}
        )
        assert set(schema(outer, use_references=True)["$defs"]) == {"Box_int", "Box_str"}

    def test_reference_keeps_field_description_in_standard(self) -> None:
        """A $ref carries the field's description beside it where the adapter allows."""

        @attrs.define
        class Home:
            address: Annotated[Later, Annotation(description="Where")]

        out = schema(Home, use_references=True)
        assert out["properties"]["address"] == {"$ref": "#/$defs/Later", "description": "Where"}

    def test_openai_reference_stays_valid(self) -> None:
        """Under OPENAI a $ref has no sibling keywords."""

        @attrs.define
        class Home:
            address: Annotated[Later, Annotation(description="Where")]

        body = schema(Home, OPENAI, use_references=True)["schema"]
        ref = body["properties"]["address"]
        assert "$ref" not in ref or set(ref) == {"$ref"}


class TestKeyOrder:
    def test_object_keys(self) -> None:
        """Objects list type, properties, required, additionalProperties, then $defs."""
        body = schema(TreeNode, OPENAI)["schema"]
        assert list(body) == ["type", "properties", "required", "additionalProperties"]

    def test_property_keys(self) -> None:
        """Properties list type, type enum, description, annotation enum."""
        out = prop(Annotated[StrColor, Annotation(description="c")])
        assert list(out) == ["type", "enum", "description"]
        out = prop(Annotated[str, Annotation(description="c", enum=["a"])])
        assert list(out) == ["type", "description", "enum"]


class TestErrors:
    @pytest.mark.parametrize(
        ("tp", "fragment"),
        [
            (bytes, "JSON has no bytes"),
            (complex, "two floats"),
            (dict[int, str], "dict keys must be strings"),
            (type, "cannot describe"),
        ],
    )
    def test_unsupported_types(self, tp: Any, fragment: str) -> None:
        """Types JSON cannot carry raise SchemaError with the path and a fix."""
        with pytest.raises(SchemaError) as info:
            prop(tp)
        assert fragment in str(info.value)
        assert info.value.path == "Holder.x"

    @pytest.mark.parametrize(
        ("tp", "fragment"),
        [
            (Any, "Any cannot be expressed under OPENAI"),
            (tuple[int, str], "fixed-length tuple"),
        ],
    )
    def test_strict_rejects_what_it_cannot_express(self, tp: Any, fragment: str) -> None:
        """Strict adapters raise for open types, naming path, reason and fix."""
        with pytest.raises(SchemaError) as info:
            prop(tp, OPENAI)
        assert fragment in str(info.value)
        assert "Holder.x" in str(info.value)

    def test_non_object_root_under_strict(self) -> None:
        """OPENAI needs an object at the root and says how to get one."""
        with pytest.raises(SchemaError, match="wrap the value in an attrs class"):
            schema(list[int], OPENAI)

    def test_non_object_root_in_standard(self) -> None:
        """STANDARD describes any supported type, not only classes."""
        assert schema(list[int]) == {"type": "array", "items": {"type": "integer"}}

    def test_bad_adapter_and_dict_type(self) -> None:
        """Wrong option values are named."""
        with pytest.raises(SchemaError, match="llm_adapter must be an Adapter"):
            schema(Later, llm_adapter="openai")  # type: ignore[arg-type]
        with pytest.raises(SchemaError, match="dict_type must be a mapping type"):
            schema(Later, dict_type=3)  # type: ignore[arg-type]

    def test_invalid_name_for_openai_proposes_one(self) -> None:
        """A name OpenAI would reject is an error proposing a valid one."""
        bad = attrs.make_class("Bad", {"x": attrs.field(type=int)})
        from describedtypes import annotate

        annotate.register(bad, Annotation(name="my schema.v1"))
        with pytest.raises(SchemaError, match="my_schema_v1"):
            schema(bad, OPENAI)

    def test_unresolvable_forward_reference(self) -> None:
        """An annotation naming a missing type says how to make it resolvable."""

        @attrs.define
        class Broken:
            x: Missing  # type: ignore[name-defined]  # noqa: F821

        with pytest.raises(SchemaError, match="module level"):
            schema(Broken)


class TestCaching:
    def test_the_cached_result_is_read_only(self) -> None:
        """The shared result refuses every change, at any depth; the cache stays intact."""
        first = schema(TreeNode, OPENAI)
        body = first["schema"]
        attempts = [
            lambda: body["properties"].clear(),
            lambda: first.__setitem__("name", "changed"),
            lambda: first.update(name="x"),
            lambda: first.pop("name"),
            lambda: first.setdefault("extra", 1),
            lambda: body["required"].append("x"),
            lambda: body["required"].sort(),
            lambda: body["required"].__setitem__(0, "x"),
        ]
        for attempt in attempts:
            with pytest.raises(TypeError, match=r"read-only; copy\.deepcopy"):
                attempt()
        second = schema(TreeNode, OPENAI)
        assert second is first
        assert second["name"] == "TreeNode"
        assert set(second["schema"]["properties"]) == {"value", "children"}

    def test_deepcopy_gives_a_mutable_plain_copy(self) -> None:
        """copy.deepcopy, copy.copy and pickle give plain dicts and lists."""
        import copy
        import pickle

        frozen = schema(TreeNode, OPENAI)
        for thawed in (copy.deepcopy(frozen), pickle.loads(pickle.dumps(frozen))):
            assert type(thawed) is dict
            assert type(thawed["schema"]["required"]) is list
            thawed["schema"]["properties"].clear()
            assert thawed != frozen
        shallow = copy.copy(frozen)
        assert type(shallow) is dict
        shallow["name"] = "x"
        assert schema(TreeNode, OPENAI)["name"] == "TreeNode"

    def test_other_dict_types_get_fresh_mutable_trees(self) -> None:
        """dict_type other than dict builds a fresh tree per call."""
        import collections

        first = schema(TreeNode, OPENAI, dict_type=collections.OrderedDict)
        first["schema"]["properties"].clear()
        second = schema(TreeNode, OPENAI, dict_type=collections.OrderedDict)
        assert type(second) is collections.OrderedDict
        assert set(second["schema"]["properties"]) == {"value", "children"}

    def test_serialisers_accept_the_read_only_result(self) -> None:
        """json, orjson and schema_json() give the same JSON for the shared result."""
        import json

        import orjson

        from describedtypes import schema_json

        frozen = schema(TreeNode, OPENAI)
        assert orjson.loads(orjson.dumps(frozen)) == frozen
        assert json.loads(json.dumps(frozen)) == frozen
        assert orjson.loads(schema_json(TreeNode, OPENAI)) == frozen
        assert schema_json(TreeNode, OPENAI) is schema_json(TreeNode, OPENAI)

    def test_report_lists_rewrites(self) -> None:
        """report= receives the changes an adapter made to fit its provider."""
        report: list[Rewrite] = []
        schema(prop.__globals__["attrs"].make_class("S", {"s": attrs.field(type=set[int])}),
               OPENAI, report=report)
        assert any("uniqueItems" in r.detail for r in report)


@pytest.mark.parametrize("adapter", [STANDARD, OPENAI, OPENAI_TOOLS])
def test_outputs_are_json(adapter: Any) -> None:
    """Every output is plain JSON data."""
    json.dumps(schema(TreeNode, adapter))


def _star_args(*args: int) -> None:
    """Takes any number of ints."""


class TestHostileTargets:
    @pytest.mark.parametrize(
        ("obj", "fragment"),
        [
            (Later(x=1), "not a type; pass the class itself: schema(Later)"),
            ("Later", "got the string 'Later', not a type"),
            ([1], "got a list value, not a type"),
            ({}, "got a dict value, not a type"),
            (42, "cannot describe 42"),
            (Ellipsis, "cannot describe Ellipsis"),
            (object(), "cannot describe <object object"),
            (lambda a: a, "the parameter has no type annotation"),
            (_star_args, "*args cannot be described"),
        ],
    )
    def test_things_that_are_not_types_get_a_schema_error(self, obj: Any, fragment: str) -> None:
        """Values, names and unannotated callables raise SchemaError with the fix."""
        for adapter in (STANDARD, OPENAI):
            with pytest.raises(SchemaError) as info:
                schema(obj, adapter)
            assert fragment in str(info.value)


def test_pydantic_v1_models_are_pointed_to_v2() -> None:
    """A pydantic v1 model is not read, and the error says to derive from pydantic 2's."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pydantic import v1

    class M(v1.BaseModel):
        x: int

    with pytest.raises(SchemaError, match=r"pydantic v1 model.*derive it from pydantic\.BaseModel"):
        schema(M)
