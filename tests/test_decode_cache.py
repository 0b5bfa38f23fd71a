"""decode()'s cached decoder: found in one step on a class, never stale, never borrowed.

A class decoded once keeps its decoder's cache entry in a slot of its own, which
``decode()`` checks by identity before anything else. These tests pin what that shortcut
must never change: a registration is seen at once, each registry and each subclass gets
its own decoder, and a cached hit is checked as strictly as a miss. Each runs with and
without msgspec (the fast path and the normal one).
"""

from __future__ import annotations

import sys
from typing import Any

import attrs
import pytest

from describedtypes import Annotation, DecodeError, Registry, annotate, decode
from describedtypes._codec import decode as _decode


@pytest.fixture(params=["msgspec", "no msgspec"])
def fast(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Both paths: decoders built with msgspec importable, and with it made unimportable."""
    if request.param == "no msgspec":
        monkeypatch.setitem(sys.modules, "msgspec", None)
    return bool(request.param == "msgspec")


def test_a_registration_after_decoding_is_seen_at_once(fast: bool) -> None:
    """A key renamed after the class was decoded (and cached) is the key from then on."""

    @attrs.define
    class Reading:
        value: int

    assert decode(Reading, b'{"value": 1}') == Reading(1)
    assert decode(Reading, b'{"value": 1}') == Reading(1)  # the cached hit
    annotate.register(Reading, Annotation(parameters={"value": Annotation(name="v")}))
    assert decode(Reading, b'{"v": 2}') == Reading(2)
    with pytest.raises(DecodeError, match="unknown"):
        decode(Reading, b'{"value": 2}')
    assert (_decode.decoder_for(Reading, None).fast is not None) is fast


def test_a_registration_elsewhere_keeps_the_decoder(fast: bool) -> None:
    """Registering an unrelated class does not rebuild this one's decoder."""

    @attrs.define
    class Kept:
        x: int

    @attrs.define
    class Elsewhere:
        y: int

    decode(Kept, b'{"x": 1}')
    built = _decode.decoder_for(Kept, None)
    annotate.register(Elsewhere, Annotation(description="unrelated"))
    assert decode(Kept, b'{"x": 2}') == Kept(2)
    assert _decode.decoder_for(Kept, None) is built


def test_a_subclass_never_uses_its_base_class_decoder(fast: bool) -> None:
    """The slot a subclass inherits names the base class: the subclass builds its own."""

    @attrs.define
    class Base:
        x: int

    @attrs.define
    class Child(Base):
        y: str = "-"

    assert decode(Base, b'{"x": 1}') == Base(1)
    got = decode(Child, b'{"x": 1, "y": "a"}')
    assert type(got) is Child
    assert got == Child(1, "a")
    with pytest.raises(DecodeError, match="unknown"):
        decode(Base, b'{"x": 1, "y": "a"}')
    assert type(decode(Base, b'{"x": 1}')) is Base


def test_registries_taking_turns_each_decode_by_their_own_keys(fast: bool) -> None:
    """One class decoded by two registries alternately: each call uses the registry given."""

    @attrs.define
    class Turns:
        value: int

    mine = Registry()
    mine.register(Turns, Annotation(parameters={"value": Annotation(name="v")}))
    for _ in range(3):
        assert decode(Turns, b'{"value": 1}') == Turns(1)
        assert decode(Turns, b'{"v": 2}', registry=mine) == Turns(2)
        with pytest.raises(DecodeError, match="unknown"):
            decode(Turns, b'{"value": 1}', registry=mine)
        with pytest.raises(DecodeError, match="unknown"):
            decode(Turns, b'{"v": 1}')


def test_a_cached_class_still_refuses_what_is_not_a_registry(fast: bool) -> None:
    """registry= is checked on a cached hit as on the first call."""

    @attrs.define
    class Checked:
        x: int

    decode(Checked, b'{"x": 1}')
    bad: Any = {}
    with pytest.raises(TypeError, match="registry must be a Registry"):
        decode(Checked, b'{"x": 1}', registry=bad)


def test_a_metaclass_getattr_that_raises_is_not_tripped_by_the_lookup() -> None:
    """The slot lookup swallows a user metaclass's error: decode reports as it would."""

    class Touchy(type):
        def __getattr__(cls, name: str) -> Any:
            raise RuntimeError(f"no {name}")

    @attrs.define
    class Plain:
        x: int

    class Odd(metaclass=Touchy):
        pass

    try:
        decode(Odd, b"{}")
    except Exception as exc:  # whatever inspecting Odd says; not a word about the slot
        message = str(exc)
    else:
        message = ""
    assert _decode._SLOT not in message
    assert decode(Plain, b'{"x": 1}') == Plain(1)


def test_no_slot_on_builtins_or_generic_aliases() -> None:
    """Only a class that holds its own cache gets a slot; int and list[...] decode as before."""
    assert decode(int, "5") == 5
    assert decode(list[int], "[1, 2]") == [1, 2]
    assert _decode._SLOT not in vars(int)
    assert _decode._SLOT not in vars(list)
