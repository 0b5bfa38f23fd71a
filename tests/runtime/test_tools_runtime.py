"""Tools under server conditions, each in a child process with a timeout (see isolated.py).

What would hang or leak on a broken build: a sync tool that never returns, sync tools
crowding the event loop's default executor, a Toolbox per request keeping sessions or
threads alive, a cancelled batch leaving threads nobody can see.
"""

from __future__ import annotations

from .isolated import run_isolated


def test_a_toolbox_per_request_keeps_no_session_or_service_alive() -> None:
    out = run_isolated(
        """
        import asyncio, functools, gc, weakref
        from describedtypes import OPENAI_TOOLS, Toolbox

        class Session:
            pass

        def lookup(query: str, limit: int, session: Session) -> str:
            '''Look something up.'''
            return query

        class Service:
            def __init__(self):
                self.session = Session()

            def find(self, query: str) -> str:
                '''Find something.'''
                return query

        alive = weakref.WeakSet()
        for i in range(2000):
            session, service = Session(), Service()
            alive.add(session); alive.add(service); alive.add(service.session)

            def nearby(city: str) -> str:
                '''A closure made per request.'''
                return f"{city} {session}"

            box = Toolbox([functools.partial(lookup, session=session), service.find, nearby])
            box.definitions(OPENAI_TOOLS)
            assert not box.call("lookup", {"query": "a", "limit": 1}).is_error
            assert not box.call("find", '{"query": "a"}').is_error
            assert not box.call("nearby", {"city": "Oslo"}).is_error
            if i % 200 == 0:
                assert not asyncio.run(box.acall("find", {"query": "b"})).is_error
            del box, session, service, nearby
        gc.collect()
        print(len(alive))
        """,
        timeout=240,
    )
    assert out.split() == ["0"]


def test_a_sync_tool_that_never_returns_cannot_hang_the_batch_or_the_exit() -> None:
    out = run_isolated(
        """
        import asyncio, threading
        from describedtypes import Toolbox, ToolCall

        never = threading.Event()

        def stuck(x: int) -> int:
            '''Never returns.'''
            never.wait()
            return x

        async def fine(x: int) -> int:
            '''Returns.'''
            return x

        box = Toolbox([fine])
        box.add(stuck, timeout=0.2)
        calls = [ToolCall("stuck", {"x": 1}), ToolCall("fine", {"x": 2})]
        results = asyncio.run(box.acall_many(calls))
        print(results[0].is_error, "0.2 seconds" in results[0].content, results[1].value)
        print([c.name for c in box.running_calls])
        """,
        timeout=60,
    )
    assert out.split("\n")[:2] == ["True True 2", "['stuck']"]


def test_slow_sync_tools_do_not_hold_up_the_default_executor() -> None:
    # Sixty tools blocked on an event that is set only once the event loop's default
    # executor has run other work: with the tools on that executor this would hang.
    out = run_isolated(
        """
        import asyncio, threading
        from describedtypes import Toolbox, ToolCall

        release = threading.Event()

        def slow(i: int) -> str:
            '''Waits for the release.'''
            release.wait(60)
            return threading.current_thread().name.rsplit("-", 1)[0]

        async def main():
            loop = asyncio.get_running_loop()
            box = Toolbox([slow], max_workers=64, max_calls_per_turn=None)
            calls = [ToolCall("slow", {"i": i}) for i in range(60)]
            batch = asyncio.create_task(box.acall_many(calls))
            for _ in range(5):
                await asyncio.sleep(0.01)
            await loop.getaddrinfo("localhost", 80)
            answer = await loop.run_in_executor(None, lambda: 42)
            release.set()
            results = await batch
            print(answer, {r.content for r in results}, all(not r.is_error for r in results))
            box.close()

        asyncio.run(main())
        """,
        timeout=120,
    )
    assert out.split("\n")[0] == "42 {'describedtypes'} True"


def test_a_cancelled_batch_leaves_only_visible_threads_and_no_thread_pile_up() -> None:
    out = run_isolated(
        """
        import asyncio, gc, threading, time
        from describedtypes import Toolbox, ToolCall

        release = threading.Event()
        started = threading.Semaphore(0)

        def work(i: int) -> int:
            '''Works until released.'''
            started.release()
            release.wait(60)
            return i

        async def main(box):
            calls = [ToolCall("work", {"i": i}) for i in range(3)]
            batch = asyncio.create_task(box.acall_many(calls))
            for _ in range(3):
                while not started.acquire(blocking=False):
                    await asyncio.sleep(0.005)
            batch.cancel()
            try:
                await batch
            except asyncio.CancelledError:
                print("cancelled")

        box = Toolbox([work])
        asyncio.run(main(box))
        print(sorted(c.arguments["i"] for c in box.running_calls))
        release.set()
        deadline = time.monotonic() + 30
        while box.running_calls and time.monotonic() < deadline:
            time.sleep(0.01)
        print(box.running_calls)

        # One toolbox per request: threads go with their toolbox.
        def quick(i: int) -> int:
            '''Quick.'''
            return i

        base = threading.active_count()
        for i in range(200):
            request_box = Toolbox([quick])
            assert asyncio.run(request_box.acall("quick", {"i": i})).value == i
            del request_box
        gc.collect()
        deadline = time.monotonic() + 30
        while threading.active_count() > base and time.monotonic() < deadline:
            time.sleep(0.01)
        print(threading.active_count() <= base)
        """,
        timeout=120,
    )
    assert out.split("\n")[:4] == ["cancelled", "[0, 1, 2]", "[]", "True"]
