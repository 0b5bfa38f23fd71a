"""evaluate(): field-level scores of predictions against gold, by hand and by property."""

from __future__ import annotations

import datetime
import decimal
import enum
import itertools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Optional

import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typing_extensions import TypedDict

from describedtypes import (
    BatchResult,
    DecodeError,
    Evaluation,
    Extraction,
    Normalize,
    Usage,
    compare,
    decode_batch,
    evaluate,
)
from describedtypes._eval.assign import MAX_ASSIGNED, best_pairs

from .cli_support import EXAMPLES, run


class Unit(enum.Enum):
    PIECE = "piece"
    KG = "kg"


@attrs.define
class Item:
    sku: str
    qty: int
    unit: Unit = Unit.PIECE
    price: Optional[float] = None  # noqa: UP045 - evaluated at runtime on 3.10 too


@attrs.define
class Address:
    city: str
    zip: Optional[str] = None  # noqa: UP045


@attrs.define
class Invoice:
    number: str
    date: Optional[datetime.date] = None  # noqa: UP045
    total: Optional[decimal.Decimal] = None  # noqa: UP045
    tags: list[str] = attrs.Factory(list)
    items: list[Item] = attrs.Factory(list)
    address: Optional[Address] = None  # noqa: UP045
    note: Optional[str] = None  # noqa: UP045


@attrs.define
class Part:
    name: str
    parts: list[Part] = attrs.Factory(list)


@attrs.define
class Circle:
    kind: Literal["circle"]
    radius: float


@attrs.define
class Square:
    kind: Literal["square"]
    side: float


@attrs.define
class Drawing:
    shape: Optional[Circle | Square] = None  # noqa: UP045


def rows(ev: Evaluation) -> dict[str, tuple[int, int, int]]:
    return {r.path: (r.tp, r.fp, r.fn) for r in ev.rows}


GOLD = Invoice(
    number="INV-1",
    date=datetime.date(2024, 3, 1),
    total=decimal.Decimal("12.50"),
    tags=["paid", "eu"],
    items=[Item("A", 1, price=2.5), Item("B", 4, Unit.KG, 2.5)],
    address=Address("Bern"),
)


# -- hand-computed examples ------------------------------------------------------------


class TestByHand:
    def test_one_record_with_every_kind_of_mistake(self) -> None:
        """Each path's counts are the ones worked out by hand below."""
        pred = Invoice(
            number="  inv-1 ",  # case and whitespace: the same number -> tp
            date=datetime.date(2024, 3, 2),  # a wrong date: fp + fn
            total=decimal.Decimal("12.5"),  # the same Decimal by value -> tp
            tags=["EU", "late"],  # "eu" found (tp 1), "late" extra (fp 1), "paid" missed (fn 1)
            # listed in the other order: B pairs with B, A with A (the best assignment)
            items=[Item("B", 4, Unit.KG, 2.5000001), Item("A", 2, price=2.5)],
            address=None,  # the gold has Bern: fn 1 at city; zip empty on both sides
            note="urgent",  # the gold has no note: fp 1, and fabricated
        )
        ev = evaluate(Invoice, [pred], [GOLD])
        assert rows(ev) == {
            "$.number": (1, 0, 0),
            "$.date": (0, 1, 1),
            "$.total": (1, 0, 0),
            "$.tags[]": (1, 1, 1),
            "$.items[]": (2, 0, 0),  # two pairs of items
            "$.items[].sku": (2, 0, 0),
            "$.items[].qty": (1, 1, 1),  # A: 1 vs 2
            "$.items[].unit": (2, 0, 0),
            "$.items[].price": (2, 0, 0),  # 2.5000001 is within 1e-6 of 2.5
            "$.address.city": (0, 0, 1),
            "$.address.zip": (0, 0, 0),
            "$.note": (0, 1, 0),
        }
        # micro over the value rows (not $.items[]):
        # tp = 1+0+1+1+2+1+2+2+0+0+0 = 10; fp = 0+1+0+1+0+1+0+0+0+0+1 = 4;
        # fn = 0+1+0+1+0+1+0+0+1+0+0 = 4
        assert ev.micro.precision == pytest.approx(10 / 14)
        assert ev.micro.recall == pytest.approx(10 / 14)
        assert ev.micro.f1 == pytest.approx(10 / 14)
        # empty gold fields: $.address.zip (1, the prediction leaves it empty too) and
        # $.note (1, filled by the prediction): fabricated = 1 / 2
        assert ev["$.note"].empty == 1
        assert ev["$.note"].filled == 1
        assert ev.fabricated == pytest.approx(0.5)
        # macro: the rows with something in them, F1 each:
        # number 1, date 0, total 1, tags 0.5, sku 1, qty 0.5, unit 1, price 1, city 0,
        # note 0 -> 6 / 10 (zip holds nothing in either and is left out)
        assert ev.macro.f1 == pytest.approx(6 / 10)
        assert ev.records == 1
        assert ev.failed == {}

    def test_a_failed_prediction_misses_every_path(self) -> None:
        """A prediction that does not decode is a miss on every path the gold fills."""
        ev = evaluate(Invoice, ['{"number": 7}'], [GOLD])
        assert list(ev.failed) == [0]
        assert isinstance(ev.failed[0], DecodeError)
        # every gold value is a false negative: number, date, total, 2 tags, 2 items
        # (each: sku, qty, unit, price), city -> 1+1+1+2+4*2+1 = 14, and nothing else
        assert sum(r.fn for r in ev.rows if r.kind == "value") == 14
        assert sum(r.tp + r.fp for r in ev.rows if r.kind == "value") == 0
        assert ev["$.items[]"].fn == 2
        assert ev.micro.recall == 0.0
        assert ev.micro.precision == 1.0  # nothing claimed, nothing wrong
        assert ev.micro.f1 == 0.0

    def test_items_without_agreement_stay_unpaired(self) -> None:
        """Items that agree on nothing are not paired: an extra item is fp, a missing one
        fn, and the invented item's fields count as fabricated."""
        gold = Invoice("N", items=[Item("A", 1)])
        pred = Invoice("N", items=[Item("Z", 9, Unit.KG, 1.0)])
        ev = evaluate(Invoice, [pred], [gold])
        assert ev["$.items[]"].tp == 0
        assert (ev["$.items[]"].fp, ev["$.items[]"].fn) == (1, 1)
        # the gold item's price is empty; the predicted item's fields have no gold at all:
        # price empty twice (gold A's, and Z's missing gold), filled once (Z's 1.0)
        assert (ev["$.items[].price"].empty, ev["$.items[].price"].filled) == (2, 1)
        assert rows(ev)["$.items[].sku"] == (0, 1, 1)

    def test_key_fields_pair_items(self) -> None:
        """match= pairs items by their key, even where another pairing agrees more."""
        gold = Invoice("N", items=[Item("A", 1, price=9.0), Item("B", 2, price=1.0)])
        pred = Invoice("N", items=[Item("A", 2, price=1.0), Item("B", 1, price=9.0)])
        best = evaluate(Invoice, [pred], [gold])
        # without keys: A pairs with B and B with A (qty and price agree: 2 each, more
        # than the 1 sku each of the keyed pairing)
        assert rows(best)["$.items[].qty"] == (2, 0, 0)
        keyed = evaluate(Invoice, [pred], [gold], match={"$.items[]": "sku"})
        assert rows(keyed)["$.items[].sku"] == (2, 0, 0)
        assert rows(keyed)["$.items[].qty"] == (0, 2, 2)
        assert rows(keyed)["$.items[].price"] == (0, 2, 2)

    def test_repeated_keys_and_keyless_items(self) -> None:
        """A key repeated on one side is paired by the best assignment within it; an
        item without its key pairs with nothing."""
        gold = Invoice("N", items=[Item("A", 1), Item("A", 2), Item("", 3)])
        pred = Invoice("N", items=[Item("A", 2), Item("A", 1)])
        ev = evaluate(Invoice, [pred], [gold], match={"$.items[]": ("sku", "unit")})
        assert rows(ev)["$.items[]"] == (2, 0, 1)
        assert rows(ev)["$.items[].qty"] == (2, 0, 1)

    def test_normalisation_is_configurable(self) -> None:
        """Strings match by case, whitespace and Unicode form unless told not to."""
        gold = Address("Zürich", "\uff18\uff10\uff10\uff11")  # full-width digits
        pred = Address(" ZU\u0308RICH ", "8001")  # decomposed ü, upper case, spaces
        assert rows(evaluate(Address, [pred], [gold])) == {
            "$.city": (1, 0, 0), "$.zip": (1, 0, 0),
        }
        exact = evaluate(Address, [pred], [gold], normalize=None)
        assert rows(exact) == {"$.city": (0, 1, 1), "$.zip": (0, 1, 1)}
        # NFC joins the ü but keeps full-width digits apart from ASCII ones
        nfc = evaluate(Address, [pred], [gold], normalize=Normalize(unicode="NFC"))
        assert rows(nfc) == {"$.city": (1, 0, 0), "$.zip": (0, 1, 1)}
        cased = evaluate(Address, [pred], [gold], normalize=Normalize(case=False))
        assert rows(cased)["$.city"] == (0, 1, 1)

    def test_numbers_dates_and_decimals(self) -> None:
        """Floats within the relative tolerance match; Decimals and dates exactly."""
        tight = Normalize(rel_tol=1e-3)
        gold = Item("A", 1, price=100.0)
        assert rows(evaluate(Item, [Item("A", 1, price=100.09)], [gold], normalize=tight))[
            "$.price"
        ] == (1, 0, 0)  # |100.09 - 100| = 0.09 <= 1e-3 * 100.09
        assert rows(evaluate(Item, [Item("A", 1, price=100.2)], [gold], normalize=tight))[
            "$.price"
        ] == (0, 1, 1)  # 0.2 > 0.1
        # qty is an int: exact, whatever the tolerance
        loose = Normalize(rel_tol=0.5)
        assert rows(evaluate(Item, [Item("A", 2)], [Item("A", 1)], normalize=loose))[
            "$.qty"
        ] == (0, 1, 1)

        @attrs.define
        class Money:
            amount: decimal.Decimal
            day: datetime.date

        ev = evaluate(
            Money,
            [Money(decimal.Decimal("1.000"), datetime.date(2024, 1, 1)),
             Money(decimal.Decimal("1.001"), datetime.date(2024, 1, 2))],
            [Money(decimal.Decimal("1"), datetime.date(2024, 1, 1))] * 2,
            normalize=Normalize(rel_tol=0.1),
        )
        assert rows(ev) == {"$.amount": (1, 1, 1), "$.day": (1, 1, 1)}

    @pytest.mark.parametrize(
        ("normalize", "expected"), [(Normalize(), (2, 1, 1)), (None, (1, 2, 2))]
    )
    def test_scalar_lists_are_multisets(
        self, normalize: Normalize | None, expected: tuple[int, int, int]
    ) -> None:
        """A list of strings is matched as a multiset after normalisation: a repeated
        value counts as often as it is listed."""
        gold = Invoice("N", tags=["a", "a", "b"])
        pred = Invoice("N", tags=["A", "a", "c"])
        assert rows(evaluate(Invoice, [pred], [gold], normalize=normalize))[
            "$.tags[]"
        ] == expected

    def test_float_lists_within_tolerance(self) -> None:
        """Floats in a list pair within the tolerance, each at most once."""

        @attrs.define
        class Series:
            points: list[float]

        ev = evaluate(Series, [Series([1.0000001, 2.0, 2.0, 7.0])], [Series([2.0, 1.0, 5.0])])
        assert rows(ev)["$.points[]"] == (2, 2, 1)  # 1~1, 2=2; 2.0 and 7.0 extra; 5.0 missed

    def test_fabricated_counts_empty_lists_once(self) -> None:
        """An empty gold list the prediction fills is one fabricated field; its items are
        false positives."""
        ev = evaluate(Invoice, [Invoice("N", tags=["x", "y"]), Invoice("N")],
                      [Invoice("N"), Invoice("N")])
        assert rows(ev)["$.tags[]"] == (0, 2, 0)
        assert (ev["$.tags[]"].empty, ev["$.tags[]"].filled) == (2, 1)

    def test_typed_dicts_tuples_dicts_and_unions(self) -> None:
        """TypedDict keys, tuple positions, dict values and union options have paths."""

        class Row(TypedDict):
            name: str
            point: tuple[int, int]
            extra: dict[str, int]
            value: int | list[str]

        gold = [Row(name="a", point=(1, 2), extra={"k": 1, "j": 2}, value=["x"])]
        pred = [{"name": "A", "point": [1, 3], "extra": {"k": 1, "m": 5}, "value": 4}]
        ev = evaluate(Row, pred, gold)
        assert rows(ev) == {
            "$.name": (1, 0, 0),
            "$.point[0]": (1, 0, 0),
            "$.point[1]": (0, 1, 1),
            "$.extra.*": (1, 1, 1),  # k agrees, j missed, m extra
            "$.value": (0, 1, 0),  # the prediction gives an int where the gold has a list
            "$.value[]": (0, 0, 1),
        }

    def test_recursive_types_count_at_the_outer_paths(self) -> None:
        """A class met again inside itself is counted at its outer occurrence's paths."""
        gold = Part("a", [Part("b", [Part("c")])])
        pred = Part("a", [Part("b", [Part("x")])])
        ev = evaluate(Part, [pred], [gold])
        # a = a and b = b (tp 2), c missed (fn), x invented (fp); the parts: b paired
        # with b (agreeing on the name), c and x agree on nothing, so stay unpaired
        assert rows(ev) == {"$.name": (2, 1, 1), "$.parts[]": (1, 1, 1)}

    def test_unions_of_classes_compare_the_fields_they_share(self) -> None:
        """A Circle predicted as a Square: their shared tag is one wrong value (fp and fn,
        not fabricated); each class's own fields are that side's alone."""
        gold = [Drawing(Circle("circle", 1.0)), Drawing()]
        pred = [Drawing(Square("square", 1.0)), Drawing(Circle("circle", 5.0))]
        ev = evaluate(Drawing, pred, gold)
        assert rows(ev) == {
            # record 1: "circle" vs "square" (fp, fn); record 2: invented (fp)
            "$.shape.kind": (0, 2, 1),
            # record 1: the gold radius has no partner (fn); record 2: invented (fp)
            "$.shape.radius": (0, 1, 1),
            # record 1: a side the gold does not have (fp)
            "$.shape.side": (0, 1, 0),
        }
        # empty in the gold and filled: kind once (record 2), radius once (record 2),
        # side once (record 1: the gold shape has no side)
        assert [(r.empty, r.filled) for r in ev.rows] == [(1, 1), (1, 1), (1, 1)]

    def test_list_root(self) -> None:
        """A list type is scored as a list at $[]."""
        ev = evaluate(list[Item], [[Item("A", 1)]], [[Item("A", 1), Item("B", 2)]])
        assert rows(ev)["$[]"] == (1, 0, 1)
        assert rows(ev)["$[].sku"] == (1, 0, 1)


# -- inputs ----------------------------------------------------------------------------


def _json(inv: Invoice) -> bytes:
    from describedtypes import encode

    return encode(inv)


def _extraction(value: Any) -> Extraction[Any]:
    return Extraction(value=value, usage=Usage(), attempts=(), messages=(), seconds=0.0)


class TestInputs:
    @pytest.mark.parametrize(
        "shape",
        [
            lambda inv: inv,
            lambda inv: orjson.loads(_json(inv)),
            lambda inv: _json(inv).decode(),
            _json,
            _extraction,
            lambda inv: BatchResult(1, None, inv),
        ],
        ids=["instance", "dict", "text", "bytes", "Extraction", "BatchResult"],
    )
    def test_every_record_form_scores_the_same(self, shape: Callable[[Any], Any]) -> None:
        """Instances, dicts, JSON texts, Extraction and BatchResult records agree."""
        pred = Invoice("inv-1", tags=["eu"], items=[Item("A", 1)])
        want = evaluate(Invoice, [pred], [GOLD]).table()
        assert evaluate(Invoice, [shape(pred)], [shape(GOLD)]).table() == want

    def test_mappings_align_by_key_and_report_the_unmatched(self) -> None:
        """Keys pair records whatever their order; the odd ones are listed."""
        ev = evaluate(
            Invoice,
            {"b": Invoice("2"), "a": Invoice("1"), "z": Invoice("9")},
            {"a": Invoice("1"), "b": Invoice("2"), "c": Invoice("3")},
        )
        assert rows(ev)["$.number"] == (2, 0, 1)  # c has no prediction: a miss
        assert ev.unmatched_predictions == ("z",)
        assert ev.unmatched_gold == ("c",)
        assert ev.records == 3

    def test_lists_of_different_lengths_align_by_position(self) -> None:
        """The longer side's extra records are reported, never skipped."""
        ev = evaluate(Invoice, [Invoice("1")], [Invoice("1"), Invoice("2"), Invoice("3")])
        assert ev.unmatched_gold == (1, 2)
        assert rows(ev)["$.number"] == (1, 0, 2)
        ev = evaluate(Invoice, [Invoice("1"), Invoice("2")], [Invoice("1")])
        assert ev.unmatched_predictions == (1,)
        assert ev.records == 1

    def test_batch_files_align_by_custom_id(self, tmp_path: Path) -> None:
        """An OpenAI Batch output file pairs with gold lines by custom_id, in any order."""
        results = tmp_path / "results.jsonl"
        lines = [
            _openai_line("r2", '{"number": "2"}'),
            _openai_line("r1", '{"number": "one"}'),
            _openai_line("r3", '{"number": 3}'),  # does not decode
            "{not json\n",
        ]
        results.write_text("".join(lines))
        gold = tmp_path / "gold.jsonl"
        gold.write_text("".join(
            orjson.dumps({"custom_id": f"r{i}", "value": {"number": str(i)}}).decode() + "\n"
            for i in (1, 2, 3)
        ))
        ev = evaluate(Invoice, results, gold)
        assert rows(ev)["$.number"] == (1, 1, 2)  # r2 right, r1 wrong, r3 failed
        assert list(ev.failed) == ["r3"]
        assert ev.unmatched_predictions == (3,)  # the unreadable line, by position
        assert any("could not be read" in note for note in ev.notes)
        # decode_batch's own results are read the same way
        again = evaluate(Invoice, list(decode_batch(Invoice, results)), gold)
        assert again.table() == ev.table()

    def test_bare_replies_align_by_line(self, tmp_path: Path) -> None:
        """Files without ids pair line by line; a blank or broken line is a failure."""
        pred = tmp_path / "pred.jsonl"
        pred.write_text('{"number": "1"}\n\n{"number": "3"\n')
        gold = tmp_path / "gold.jsonl"
        gold.write_text('{"number": "1"}\n{"number": "2"}\n{"number": "3"}\n')
        ev = evaluate(Invoice, str(pred), str(gold))
        assert sorted(ev.failed) == [1, 2]
        assert rows(ev)["$.number"] == (1, 0, 2)

    def test_gold_that_does_not_decode_is_an_error(self, tmp_path: Path) -> None:
        """Bad gold stops the evaluation with the record and the reason."""
        gold = tmp_path / "gold.jsonl"
        gold.write_text('{"number": "1"}\n{"number": 2}\n')
        with pytest.raises(ValueError, match=r"gold line 2 does not decode into Invoice: .*"
                           r"\$\.number: expected string"):
            evaluate(Invoice, [Invoice("1"), Invoice("2")], gold)

    def test_repeated_ids_and_partial_ids_are_errors(self) -> None:
        """An id twice on one side, or gold with ids in part only, cannot be aligned."""
        twice = [BatchResult(1, "a", Invoice("1")), BatchResult(2, "a", Invoice("1"))]
        with pytest.raises(ValueError, match="the id 'a' appears twice in the predictions"):
            evaluate(Invoice, twice, {"a": Invoice("1")})
        partial = [BatchResult(1, "a", Invoice("1")), BatchResult(2, None, Invoice("1"))]
        with pytest.raises(ValueError, match="gold item 1 has no id"):
            evaluate(Invoice, {"a": Invoice("1")}, partial)

    def test_ids_on_one_side_only_align_by_position_with_a_note(self) -> None:
        """Ids on one side only: aligned by position, and the evaluation says so."""
        ev = evaluate(Invoice, [BatchResult(1, "x", Invoice("1"))], [Invoice("1")])
        assert rows(ev)["$.number"] == (1, 0, 0)
        assert ev.notes == ("only the predictions carry ids (custom_id): the records were "
                            "aligned by position",)

    @pytest.mark.parametrize(
        ("kwargs", "error", "message"),
        [
            ({"predictions": b"{}"}, TypeError, "predictions must be a list"),
            ({"predictions": 5}, TypeError, "predictions must be a list"),
            ({"match": {"$.item[]": "sku"}}, ValueError,
             r"'\$.item\[\]' is not the path of a list of objects .* are \$.items\[\]"),
            ({"match": {"$.items[]": "code"}}, ValueError,
             "items have no field 'code'; their fields are sku, qty, unit, price"),
            ({"match": {"$.items[]": ""}}, ValueError, "items have no field ''"),
            ({"match": {"$.items[]": 5}}, TypeError, "needs a key field name"),
            ({"match": ["$.items[]"]}, TypeError, "match must be a mapping"),
            ({"normalize": "exact"}, TypeError, "normalize must be a Normalize"),
        ],
    )
    def test_bad_arguments_name_the_fix(
        self, kwargs: dict[str, Any], error: type[Exception], message: str
    ) -> None:
        """A wrong argument is one clear error, raised before any record is read."""
        args: dict[str, Any] = {"predictions": [GOLD], "gold": [GOLD]} | kwargs
        with pytest.raises(error, match=message):
            evaluate(Invoice, **args)

    def test_missing_file(self, tmp_path: Path) -> None:
        """A file that cannot be opened fails at once."""
        with pytest.raises(FileNotFoundError):
            evaluate(Invoice, tmp_path / "nope.jsonl", [GOLD])

    def test_normalize_checks_its_values(self) -> None:
        """A negative tolerance or an unknown Unicode form is refused when made."""
        with pytest.raises(ValueError, match="rel_tol must be a number >= 0"):
            Normalize(rel_tol=-1)
        with pytest.raises(ValueError, match="unicode must be one of NFC"):
            Normalize(unicode="nfc")  # type: ignore[arg-type]


def _openai_line(custom_id: str, content: str) -> str:
    body = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
    }
    line = {"id": "batch_req_1", "custom_id": custom_id,
            "response": {"status_code": 200, "request_id": "r", "body": body}, "error": None}
    return orjson.dumps(line).decode() + "\n"


# -- hostile inputs --------------------------------------------------------------------


class TestBounds:
    def test_long_lists_are_paired_by_position_beyond_the_bound(self) -> None:
        """Past MAX_ASSIGNED unequal items a list is paired by position, with a note."""
        n = MAX_ASSIGNED * 20
        gold = Invoice("N", items=[Item(str(i), i) for i in range(n)])
        pred = Invoice("N", items=[Item(str(i), i + 1) for i in range(n)])
        ev = evaluate(Invoice, [pred], [gold])
        assert rows(ev)["$.items[].sku"] == (n, 0, 0)
        assert len(ev.notes) == 1
        assert "paired by position" in ev.notes[0]

    def test_equal_items_cost_no_assignment(self) -> None:
        """A long list given right, in any order within the bound, scores perfectly."""
        items = [Item(str(i), i) for i in range(MAX_ASSIGNED * 20)]
        shuffled = items[: -MAX_ASSIGNED][:] + list(reversed(items[-MAX_ASSIGNED:]))
        ev = evaluate(Invoice, [Invoice("N", items=shuffled)], [Invoice("N", items=items)])
        assert ev.micro.f1 == 1.0
        assert ev.notes == ()

    def test_huge_string_lists_are_linear(self) -> None:
        """Lists of plain values are matched as multisets (no pairing to bound)."""
        tags = [f"t{i}" for i in range(200_000)]
        ev = evaluate(Invoice, [Invoice("N", tags=tags[::-1])], [Invoice("N", tags=tags)])
        assert rows(ev)["$.tags[]"] == (200_000, 0, 0)

    def test_files_are_read_in_flat_memory(self, tmp_path: Path) -> None:
        """Ten times the records from files costs no more memory at its peak."""
        import tracemalloc

        def peak(n: int) -> int:
            lines = b"".join(_json(Invoice(str(i), tags=["a"], items=[Item("A", i)])) + b"\n"
                             for i in range(n))
            (tmp_path / "p.jsonl").write_bytes(lines)
            (tmp_path / "g.jsonl").write_bytes(lines)
            tracemalloc.start()
            try:
                evaluate(Invoice, tmp_path / "p.jsonl", tmp_path / "g.jsonl")
                return tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()

        small, large = peak(1_000), peak(10_000)
        assert large < 2 * small + 100_000, (small, large)

    def test_values_nested_past_the_stack_are_an_error(self) -> None:
        """An instance nested thousands deep is a clear error, not a RecursionError."""
        deep = Part("leaf")
        for _ in range(20_000):
            deep = Part("x", [deep])
        with pytest.raises(ValueError, match="record #0 is nested too deeply to score"):
            evaluate(Part, [deep], [deep])

    def test_model_text_is_escaped_in_every_display(self) -> None:
        """A reply's markup shows as text in HTML and Markdown, never as markup."""
        hostile = '{"number": 1, "<script>alert(1)</script>|x": "*b*"}'
        ev = evaluate(Invoice, [hostile], [GOLD])
        html = ev._repr_html_()
        assert "<script>" not in html
        assert "&lt;script&gt;" in html
        md = ev.to_markdown()
        assert "<script>" not in md
        assert "\\|x" in md
        assert "<script>" in orjson.loads(ev.to_json())["failed"][0]["message"]


# -- assignment ------------------------------------------------------------------------


@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=6), min_size=1, max_size=6)
       .flatmap(lambda rs: st.just([r[: min(len(x) for x in rs)] for r in rs])))
def test_best_pairs_is_optimal(matrix: list[list[int]]) -> None:
    """The assignment's total equals the best over every pairing (brute force)."""
    n, m = len(matrix), len(matrix[0])
    pairs = best_pairs(matrix)
    assert len(pairs) == min(n, m)
    assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
    got = sum(matrix[i][j] for i, j in pairs)
    if n <= m:
        best = max(sum(matrix[i][c] for i, c in enumerate(cols))
                   for cols in itertools.permutations(range(m), n))
    else:
        best = max(sum(matrix[r][j] for j, r in enumerate(rows_))
                   for rows_ in itertools.permutations(range(n), m))
    assert got == best


# -- properties ------------------------------------------------------------------------

texts = st.text(alphabet="abcAB é", max_size=4)
items = st.builds(Item, sku=texts, qty=st.integers(0, 3), unit=st.sampled_from(Unit),
                  price=st.none() | st.sampled_from([1.0, 2.5, 3.0]))
invoices = st.builds(
    Invoice,
    number=texts,
    date=st.none() | st.dates(datetime.date(2024, 1, 1), datetime.date(2024, 1, 3)),
    total=st.none() | st.sampled_from([decimal.Decimal("1.5"), decimal.Decimal("2")]),
    tags=st.lists(texts, max_size=4),
    items=st.lists(items, max_size=4),
    address=st.none() | st.builds(Address, city=texts, zip=st.none() | texts),
    note=st.none() | texts,
)


@given(st.lists(invoices, min_size=1, max_size=4))
def test_gold_against_itself_is_perfect(gold: list[Invoice]) -> None:
    """Every path scores 1.0 and nothing is fabricated when the prediction is the gold."""
    ev = evaluate(Invoice, gold, gold)
    assert all(r.fp == r.fn == 0 for r in ev.rows)
    assert all(r.precision == r.recall == r.f1 == 1.0 for r in ev.rows)
    assert ev.micro.f1 == ev.macro.f1 == 1.0
    assert ev.fabricated == 0.0


@given(st.lists(st.tuples(invoices, invoices), min_size=1, max_size=3), st.randoms())
def test_permuting_lists_changes_nothing(pairs: list[tuple[Invoice, Invoice]],
                                         rnd: random.Random) -> None:
    """Shuffling the items and tags of the predictions leaves every count as it was."""
    preds = [p for p, _ in pairs]
    gold = [g for _, g in pairs]
    shuffled = [
        attrs.evolve(p, tags=rnd.sample(p.tags, len(p.tags)),
                     items=rnd.sample(p.items, len(p.items)))
        for p in preds
    ]
    before = evaluate(Invoice, preds, gold)
    after = evaluate(Invoice, shuffled, gold)
    # totals always; path by path too, when the best pairing is unique
    assert after.micro == before.micro
    assert [(r.path, r.tp + r.fn) for r in after.rows] == [
        (r.path, r.tp + r.fn) for r in before.rows
    ]


@given(st.lists(st.tuples(invoices, invoices), min_size=1, max_size=3))
def test_swapping_sides_swaps_precision_and_recall(pairs: list[tuple[Invoice, Invoice]]) -> None:
    """Predictions and gold swapped: fp and fn trade places, so do precision and recall."""
    a = [p for p, _ in pairs]
    b = [g for _, g in pairs]
    forward = evaluate(Invoice, a, b)
    backward = evaluate(Invoice, b, a)
    assert backward.micro.precision == pytest.approx(forward.micro.recall)
    assert backward.micro.recall == pytest.approx(forward.micro.precision)
    for f, r in zip(forward.rows, backward.rows, strict=True):
        if not f.path.startswith("$.items[]"):  # pairing ties may differ inside items
            assert (f.tp, f.fp, f.fn) == (r.tp, r.fn, r.fp), f.path


@given(st.lists(st.tuples(invoices, invoices), min_size=1, max_size=3))
def test_metrics_are_shares(pairs: list[tuple[Invoice, Invoice]]) -> None:
    """Every precision, recall, F1 and fabricated share lies in [0, 1]."""
    ev = evaluate(Invoice, [p for p, _ in pairs], [g for _, g in pairs])
    figures = [ev.micro.precision, ev.micro.recall, ev.micro.f1, ev.macro.f1, ev.fabricated]
    for r in ev.rows:
        figures += [r.precision, r.recall, r.f1, r.fabricated]
    assert all(0.0 <= x <= 1.0 for x in figures)


@given(st.lists(st.tuples(invoices, invoices), min_size=1, max_size=3), texts)
def test_a_fabricated_field_only_adds_fp_and_fabricated(
    pairs: list[tuple[Invoice, Invoice]], note: str
) -> None:
    """Filling a field the gold leaves empty raises fp and fabricated, nothing else."""
    gold = [attrs.evolve(g, note=None) for _, g in pairs]
    plain = [attrs.evolve(p, note=None) for p, _ in pairs]
    filled = [attrs.evolve(p, note=note) for p, _ in pairs]
    before = evaluate(Invoice, plain, gold)
    after = evaluate(Invoice, filled, gold)
    for b, a in zip(before.rows, after.rows, strict=True):
        if b.path == "$.note":
            assert (a.tp, a.fp, a.fn) == (0, len(pairs), 0)
            assert a.filled == len(pairs) > b.filled == 0
        else:
            assert (a.tp, a.fp, a.fn, a.empty, a.filled) == (b.tp, b.fp, b.fn, b.empty, b.filled)
    assert after.fabricated > before.fabricated or before.fabricated == 1.0


# -- reports ---------------------------------------------------------------------------


def test_reports_agree() -> None:
    """table(), to_json() and to_markdown() carry the same figures."""
    pred = Invoice("inv-1", tags=["eu"], items=[Item("A", 1)], note="x")
    ev = evaluate(Invoice, [pred, "[]"], [GOLD, GOLD])
    data = orjson.loads(ev.to_json())
    assert data["paths"] == ev.table()
    assert data["micro"]["f1"] == ev.micro.f1
    assert data["failed"][0]["id"] == 1
    assert data["failed"][0]["errors"]
    md = ev.to_markdown()
    assert "| \\$.note | value | 0 | 1 | 0 | 0.000 | 1.000 | 0.000 | 0.500 (1/2) |" in md
    assert "failed predictions, counted as misses: 1" in md
    assert "Evaluation of Invoice: 2 records, 1 failed" in ev._repr_html_()


def test_evaluations_pickle() -> None:
    """An evaluation (failures included) pickles, for process pools and Dask."""
    import pickle

    ev = evaluate(Invoice, ['{"number": 7}', GOLD], [GOLD, GOLD])
    back = pickle.loads(pickle.dumps(ev))
    assert back.table() == ev.table()
    assert str(back.failed[0]) == str(ev.failed[0])


def test_any_values_compare_whole_with_strings_normalised() -> None:
    """An Any field is one value: its strings normalised, its lists in order."""

    @attrs.define
    class Loose:
        data: Any

    gold = [Loose({"a": ["X  y", 1.0]}), Loose({"a": [1, 2]}), Loose([])]
    pred = [Loose({"a": ["x y", 1]}), Loose({"a": [2, 1]}), Loose({})]
    assert rows(evaluate(Loose, pred, gold)) == {"$.data": (1, 1, 1)}
    # the empty list and the empty dict are both empty: nothing counted but "empty"
    assert evaluate(Loose, pred, gold)["$.data"].empty == 1


def test_compare_puts_runs_side_by_side() -> None:
    """compare() has a column per run and the totals below the paths."""
    good = evaluate(Invoice, [GOLD], [GOLD])
    bad = evaluate(Invoice, [Invoice("INV-1")], [GOLD])
    both = compare({"good": good, "bad": bad})
    table = both.table()
    assert table[0] == {"path": "$.number", "good": 1.0, "bad": 1.0}
    assert {"path": "micro f1", "good": 1.0, "bad": pytest.approx(2 / 15)} in table
    # micro for "bad": tp 1 (number), fn 14 -> recall 1/15, precision 1, F1 2/16
    assert both.table("fn")[1] == {"path": "$.date", "good": 0, "bad": 1}
    assert "| path | good | bad |" in both.to_markdown()
    assert set(orjson.loads(both.to_json())) == {"good", "bad"}
    with pytest.raises(TypeError, match="non-empty mapping"):
        compare({})
    with pytest.raises(ValueError, match="metric must be one of"):
        both.table("accuracy")  # type: ignore[arg-type]


# -- the command line ------------------------------------------------------------------


class TestCommandLine:
    def test_report_and_exit_status_1_when_records_fail(self) -> None:
        """The example batch has a failure and an unmatched request: exit 1, a report."""
        done = run("eval", "examples/weather.py:Weather", "examples/batch_results.jsonl",
                   "examples/weather_gold.jsonl", cwd=EXAMPLES.parent)
        assert done.returncode == 1, done.stderr
        assert "| \\$.location | value | 3 | 0 | 2 |" in done.stdout
        assert "predictions without gold, not scored: 1 ('request-x')" in done.stdout

    def test_json_and_exit_status_0(self, tmp_path: Path) -> None:
        """Everything decoded and paired: exit 0, JSON on request."""
        gold = EXAMPLES / "weather_gold.jsonl"
        done = run("eval", "examples/weather.py:Weather", str(gold), str(gold),
                   "--format", "json", cwd=EXAMPLES.parent)
        assert done.returncode == 0, done.stderr
        assert orjson.loads(done.stdout)["micro"]["f1"] == 1.0

    def test_match_pairs_by_key_and_standard_input_is_read(self, tmp_path: Path) -> None:
        """--match pairs the days of a forecast by date; - reads the gold from stdin."""
        gold = {"location": {"city": "Bern"}, "days": [
            {"date": "2025-01-01", "high": 3.0, "low": -2.0},
            {"date": "2025-01-02", "high": 5.0, "low": 0.0},
        ]}
        pred = {"location": {"city": "bern"}, "days": [
            {"date": "2025-01-02", "high": 3.0, "low": -2.0},  # the first day's figures
            {"date": "2025-01-01", "high": 5.0, "low": 0.0},  # on the wrong dates
        ]}
        (tmp_path / "pred.jsonl").write_bytes(orjson.dumps(pred) + b"\n")
        line = orjson.dumps(gold).decode() + "\n"
        target = str(EXAMPLES / "forecast.py") + ":Forecast"
        by_date = run("eval", target, str(tmp_path / "pred.jsonl"), "-", "--format", "json",
                      "--match", "$.days[]=date", input=line)
        assert by_date.returncode == 0, by_date.stderr
        paths = {r["path"]: r for r in orjson.loads(by_date.stdout)["paths"]}
        assert (paths["$.days[].high"]["tp"], paths["$.days[].high"]["fn"]) == (0, 2)
        assert paths["$.location.city"]["tp"] == 1
        best = run("eval", target, str(tmp_path / "pred.jsonl"), "-", "--format", "json",
                   input=line)
        paths = {r["path"]: r for r in orjson.loads(best.stdout)["paths"]}
        assert paths["$.days[].high"]["tp"] == 2  # paired by content: the dates are wrong
        assert paths["$.days[].date"]["fn"] == 2
        both = run("eval", target, "-", "-", input=line)
        assert both.returncode == 2
        assert "cannot both be standard input" in both.stderr

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["examples/weather.py:Wether", "x", "y"], "has no attribute 'Wether'"),
            (["examples/weather.py:Weather", "missing.jsonl", "examples/weather_gold.jsonl"],
             "cannot read missing.jsonl"),
            (["examples/weather.py:Weather", "examples/weather_gold.jsonl",
              "examples/weather_gold.jsonl", "--match", "$.x[]=id"], "not the path of a list"),
            (["examples/weather.py:Weather", "examples/weather_gold.jsonl",
              "examples/weather_gold.jsonl", "--match", "nokey"], "expected PATH=KEY"),
            (["examples/weather.py:Weather", "examples/weather_gold.jsonl",
              "examples/batch_results.jsonl"], "gold line 3 (custom_id 'request-3') does not"),
        ],
    )
    def test_usage_errors_exit_2_with_one_line(self, args: list[str], message: str) -> None:
        """Bad targets, files, --match and gold: one line on stderr, exit 2."""
        done = run("eval", *args, cwd=EXAMPLES.parent)
        assert done.returncode == 2
        assert message in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stdout == ""
