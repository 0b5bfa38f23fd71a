"""Caches never keep a user's types or functions alive; registration never deadlocks.

Each scenario runs in a fresh interpreter with a timeout (``run_isolated``), so a leak is
measured from a clean start and a deadlock fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from .isolated import run_isolated


@pytest.mark.slow  # a subprocess that builds and drops many types
def test_dropped_types_are_collected_with_everything_built_for_them() -> None:
    """2,000 classes made at run time, described, decoded, encoded and dropped: all freed."""
    out = run_isolated(
        """
        import gc, json, linecache, weakref
        import attrs
        from describedtypes import OPENAI, STANDARD, decode, encode, schema, schema_json

        @attrs.define
        class Shared:
            x: int

        refs = []
        for i in range(2000):
            cls = attrs.make_class(f"T{i}", {"a": attrs.field(type=int),
                                             "b": attrs.field(type=list[Shared])})
            schema(cls)
            schema(cls, OPENAI)
            schema_json(cls, STANDARD)
            schema(list[cls])
            schema(cls | None)
            decode(cls, '{"a": 1, "b": [{"x": 2}]}')
            decode(list[cls], '[{"a": 1, "b": []}]')
            encode(decode(cls, {"a": 1, "b": []}))
            refs.append(weakref.ref(cls))
            del cls
        gc.collect()
        alive = sum(r() is not None for r in refs)
        sources = sum("describedtypes decode T" in k for k in linecache.cache)
        print(json.dumps({"alive": alive, "sources": sources}))
        """,
        timeout=240,
    )
    result = json.loads(out.strip().splitlines()[-1])
    assert result == {"alive": 0, "sources": 0}


def test_functions_partials_and_bound_methods_are_collected() -> None:
    """Schemas and argument decoders of per-request callables do not keep them alive."""
    out = run_isolated(
        """
        import functools, gc, json, weakref
        from describedtypes import OPENAI_TOOLS, schema
        from describedtypes import inspect as ni
        from describedtypes._codec.decode import decode_arguments

        class Session:
            pass

        class Service:
            def __init__(self):
                self.session = Session()

            def lookup(self, city: str, days: int = 1) -> str:
                return city

        def lookup(city: str, session: object = None) -> str:
            return city

        sessions = []
        for _ in range(1000):
            svc = Service()
            bound = svc.lookup
            part = functools.partial(lookup, session=Session())
            for fn in (bound, part):
                schema(fn, OPENAI_TOOLS)
                decode_arguments(ni.type_info(fn), '{"city": "Paris"}')
            sessions.append(weakref.ref(svc.session))
            sessions.append(weakref.ref(part.keywords["session"]))
            del svc, bound, part, fn
        gc.collect()
        print(json.dumps({"alive": sum(r() is not None for r in sessions)}))
        """,
        timeout=180,
    )
    assert json.loads(out.strip().splitlines()[-1]) == {"alive": 0}


@pytest.mark.slow  # measures memory over many rounds in a subprocess
def test_memory_stays_flat_over_many_dropped_types() -> None:
    """Peak traced memory does not grow with the number of dropped types."""
    out = run_isolated(
        """
        import gc, json, tracemalloc
        import attrs
        from describedtypes import OPENAI, decode, schema

        def churn(n, describe):
            for i in range(n):
                cls = attrs.make_class(f"C{i}", {"a": attrs.field(type=int)})
                if describe:
                    schema(cls, OPENAI)
                    decode(cls, '{"a": 1}')
            gc.collect()

        def growth(describe):
            churn(300, describe)  # warm up one-time state
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            churn(3000, describe)
            after = tracemalloc.get_traced_memory()[0]
            tracemalloc.stop()
            return after - base

        # attrs keeps the source of every class it generates in linecache: that growth
        # is attrs' own, so what describing adds on top of it is what is measured.
        attrs_only = growth(False)
        described = growth(True)
        print(json.dumps({"grew_kb": (described - attrs_only) / 1024}))
        """,
        timeout=240,
    )
    grew = json.loads(out.strip().splitlines()[-1])["grew_kb"]
    # 3,000 classes kept alive would be megabytes; a few hundred KB is interpreter noise
    # (interned names, the bounded table for anchorless expressions).
    assert grew < 1024, grew


def test_a_computed_annotation_that_registers_while_another_thread_registers() -> None:
    """The pattern that deadlocked: user code registering from inside an inspection."""
    out = run_isolated(
        """
        import threading
        import attrs
        from describedtypes import Annotation, annotate, decode, schema

        @attrs.define
        class Inner:
            x: int

        @attrs.define
        class Outer:
            inner: Inner

        def computed(tp):
            # User code run during inspection: it registers another type.
            annotate.register(Inner, Annotation(description="inner"))
            return Annotation(description="outer")

        annotate.register(Outer, computed)
        stop = threading.Event()

        def registrar():
            i = 0
            while not stop.is_set():
                annotate.register(Inner, Annotation(description=f"inner {i}"))
                i += 1

        def reader():
            for _ in range(300):
                schema(Outer)
                decode(Outer, '{"inner": {"x": 1}}')

        threads = [threading.Thread(target=registrar) for _ in range(2)]
        readers = [threading.Thread(target=reader) for _ in range(3)]
        for t in threads + readers:
            t.start()
        for t in readers:
            t.join()
        stop.set()
        for t in threads:
            t.join()
        print("done")
        """,
        timeout=120,
    )
    assert out.strip().endswith("done")


def test_a_registration_completes_while_another_thread_is_inside_a_build() -> None:
    """Registering and decoding never wait for another thread's schema build.

    The other thread is held inside its build (in a computed annotation, the user code a
    build runs) until this thread has registered, decoded and built a schema; if any of
    those needed a lock the build holds, the scenario would deadlock and time out.
    """
    out = run_isolated(
        """
        import threading
        import attrs
        from describedtypes import Annotation, annotate, decode, schema

        Big = attrs.make_class("Big", {f"f{i}": attrs.field(type=int) for i in range(500)})

        @attrs.define
        class Small:
            x: int

        inside, release = threading.Event(), threading.Event()

        def slow(tp):
            inside.set()
            assert release.wait(120), "the other thread never let the build finish"
            return Annotation(description="big")

        annotate.register(Big, slow)
        sample = {f"f{i}": i for i in range(500)}
        finished = []

        def build():
            decode(Big, sample)
            schema(Big)
            finished.append(True)

        worker = threading.Thread(target=build)
        worker.start()
        assert inside.wait(120)
        annotate.register(Small, Annotation(description="small"))
        assert decode(Small, '{"x": 1}') == Small(1)
        assert schema(Small)["description"] == "small"
        release.set()
        worker.join(120)
        assert finished, "the build failed: this thread was kept waiting until it gave up"
        print("done")
        """,
        timeout=120,
    )
    assert out.strip().endswith("done")


def _alive_after(scenario: str) -> dict[str, int]:
    """Run ``scenario`` (which fills ``refs``) in a child; how many of ``refs`` are alive."""
    out = run_isolated(
        textwrap.dedent("""
        import dataclasses, gc, json, weakref
        import attrs
        from describedtypes import (OPENAI, Annotation, Registry, annotate, decode,
                                    decode_stream, encode, schema)

        @attrs.define
        class Long:
            text: str

        refs = []
        """)
        + textwrap.dedent(scenario)
        + textwrap.dedent("""
        gc.collect()
        print(json.dumps({"alive": sum(r() is not None for r in refs), "of": len(refs)}))
        """),
        timeout=120,
    )
    result: dict[str, int] = json.loads(out.strip().splitlines()[-1])
    return result


def test_an_expression_with_a_run_time_class_does_not_keep_it_alive() -> None:
    """``Long | Short`` is cached on the run-time ``Short``, not on the module's ``Long``."""
    result = _alive_after(
        """
        for i in range(50):
            short = attrs.make_class("Short", {"n": attrs.field(type=int)})
            decode(Long | short, '{"n": 1}')
            schema(Long | short)
            schema(dict[str, Long | short])
            encode(decode(list[Long | short], '[{"n": 1}]'))
            refs.append(weakref.ref(short))
            del short
        """
    )
    assert result == {"alive": 0, "of": 50}


def test_a_per_request_registry_is_collected_with_what_was_built_for_it() -> None:
    result = _alive_after(
        """
        for i in range(50):
            registry = Registry(parent=annotate)
            registry.register(Long, Annotation(description=f"request {i}"))
            assert schema(Long, OPENAI, registry=registry)["description"] == f"request {i}"
            schema(list[Long], registry=registry)
            schema(list[str], registry=registry)  # an expression with no class of yours
            decode(Long, '{"text": "a"}', registry=registry)
            decode(list[int], '[1]', registry=registry)
            list(decode_stream(Long, ['{"text": "a"}'], registry=registry))
            refs.append(weakref.ref(registry))
            del registry
        gc.collect()
        # What was built for the dead registries went with them.
        left = len(Long.__dict__.get("__describedtypes_cache__", {}))
        assert left < 10, left
        """
    )
    assert result == {"alive": 0, "of": 50}


def test_a_dataclass_made_by_make_dataclass_is_collected() -> None:
    """On Python 3.11 its ``__module__`` is ``types``: it is still the user's class."""
    result = _alive_after(
        """
        for i in range(50):
            row = dataclasses.make_dataclass("Row", [("id", int)])
            schema(list[row])
            schema(row | None)
            decode(list[row], '[{"id": 1}]')
            refs.append(weakref.ref(row))
            del row
        """
    )
    assert result == {"alive": 0, "of": 50}


def test_registrations_hold_classes_weakly() -> None:
    """Registering (and unregistering) an annotation keeps no class alive."""
    result = _alive_after(
        """
        mine = Registry()
        for i in range(20):
            cls = attrs.make_class("Reg", {"n": attrs.field(type=int)})
            mine.register(cls, Annotation(description="a row"))
            assert schema(cls, registry=mine)["description"] == "a row"
            annotate.register(cls, Annotation(description="a row"))
            schema(cls)
            annotate.unregister(cls)
            refs.append(weakref.ref(cls))
            del cls
        """
    )
    assert result == {"alive": 0, "of": 20}


def test_a_registry_parent_cycle_is_refused() -> None:
    """``parent`` is fixed when a registry is made, so its parents can never form a cycle."""
    out = run_isolated(
        """
        from describedtypes import Registry
        a = Registry()
        b = Registry(parent=a)
        try:
            a.parent = b
        except TypeError as exc:
            print("refused:", exc)
        else:
            print("accepted")
        """,
        timeout=30,
    )
    assert out.startswith("refused:"), out
    assert "Registry(parent=" in out
