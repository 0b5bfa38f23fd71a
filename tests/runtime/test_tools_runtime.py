"""Tools under server conditions, each in a child process with a timeout (see isolated.py).

What would hang or leak on a broken build: a sync tool that never returns, sync tools
crowding the event loop's default executor, a Toolbox per request keeping sessions or
threads alive, a cancelled batch leaving threads nobody can see.
"""

from __future__ import annotations

import pytest

from .isolated import run_isolated


@pytest.mark.slow  # many toolboxes in a subprocess, memory measured
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


# -- a call past its time limit, a call that never started ---------------------------------


def test_a_timed_out_sync_call_gives_up_its_worker_slot() -> None:
    # Two hung calls on a pool of two threads; a quick tool must still run, through call,
    # acall and acall_many, while the hung calls stay listed in running_calls.
    out = run_isolated(
        """
        import asyncio, threading
        from describedtypes import Toolbox, ToolCall

        release = threading.Event()

        def hang(i: int) -> str:
            '''Hangs until released.'''
            release.wait(60)
            return "late"

        def quick() -> str:
            '''Quick.'''
            return "ran"

        box = Toolbox([hang, quick], max_workers=2, timeout=0.5)
        hung = [box.call("hang", {"i": i}) for i in range(2)]
        print(all("timed out" in r.content for r in hung))
        print(box.call("quick", {}).content)
        print(asyncio.run(box.acall("quick", {})).content)
        many = asyncio.run(box.acall_many([ToolCall("hang", {"i": 3}), ToolCall("quick", {})]))
        print(["timed out" in many[0].content, many[1].content])
        print(sorted(c.arguments["i"] for c in box.running_calls))
        print(box._rt.pool().threads <= 2)  # the hung threads are not counted any more
        release.set()
        """,
        timeout=60,
    )
    assert out.split("\n")[:6] == [
        "True", "ran", "ran", "[True, 'ran']", "[0, 1, 3]", "True"
    ], out


def test_a_call_that_never_started_is_not_said_to_time_out() -> None:
    # A concurrent=False tool whose one call hangs: the next call cannot start. It is
    # answered "not run", never "timed out", and it never runs later either.
    out = run_isolated(
        """
        import asyncio, threading, time
        from describedtypes import Toolbox

        release = threading.Event()
        runs = []

        def only(i: int) -> str:
            '''One call at a time.'''
            runs.append(i)
            if i == 0:
                release.wait(60)
            return "done"

        box = Toolbox(timeout=0.5)
        box.add(only, concurrent=False)
        print("timed out" in box.call("only", {"i": 0}).content)
        second = box.call("only", {"i": 1})
        print(second.content)
        print(type(second.exception).__name__, isinstance(second.exception, TimeoutError))
        third = asyncio.run(box.acall("only", {"i": 2}))
        print("timed out" in third.content, third.content.startswith("Tool 'only' was not run"))
        release.set()
        deadline = time.monotonic() + 30
        while box.running_calls and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # past the gate's polling interval: a given-up call would run now
        print(runs)
        print(box.call("only", {"i": 4}).content, runs)
        """,
        timeout=60,
    )
    assert out.split("\n")[:7] == [
        "True",
        "Tool 'only' was not run: another call of it was still running (it runs one call at "
        "a time). Call it again later.",
        "NotStarted False",
        "False True",
        "[0]",
        "done [0, 4]",
        "",
    ], out


def test_a_queued_call_is_timed_from_its_start() -> None:
    # One worker thread, two calls that each take two thirds of their limit: the second
    # waits for the first, then has its whole limit (timed from the submission it would
    # have overrun it by a second).
    out = run_isolated(
        """
        import asyncio, time
        from describedtypes import Toolbox, ToolCall

        def step(i: int) -> int:
            '''Takes two seconds.'''
            time.sleep(2)
            return i

        box = Toolbox([step], max_workers=1, timeout=3)
        calls = [ToolCall("step", {"i": i}) for i in range(2)]
        print([r.content for r in asyncio.run(box.acall_many(calls))])
        """,
        timeout=60,
    )
    assert out.split("\n")[0] == "['0', '1']", out


# -- async tools that ignore cancellation, from the sync entry points ------------------------

_STUBBORN = """
    import asyncio, threading
    from describedtypes import Toolbox, ToolCall

    stop = threading.Event()  # set by the scenario when it is done: the tool then returns

    async def stubborn() -> str:
        '''Ignores every cancellation until the scenario ends.'''
        while not stop.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                pass
        return "done"

    box = Toolbox([stubborn], timeout=0.2)
"""


def test_call_returns_though_an_async_tool_ignores_cancellation() -> None:
    # With asyncio.run this never returned: the loop waits for the cancelled task.
    out = run_isolated(
        _STUBBORN
        + """
    result = box.call("stubborn", {})
    print(result.content)
    print([c.name for c in box.running_calls])
    async def inside():  # a sync call made from inside a running loop
        return box.call("stubborn", {}).content
    print(asyncio.run(inside()))
    stop.set()
    """,
        timeout=60,
    )
    timed_out = (
        "Tool 'stubborn' timed out: it did not finish within its time limit of 0.2 seconds."
    )
    assert out.split("\n")[:3] == [timed_out, "['stubborn']", timed_out], out


def test_run_returns_though_an_async_tool_ignores_cancellation() -> None:
    out = run_isolated(
        _STUBBORN
        + """
    class Completions:
        def __init__(self):
            self.replies = [
                {"id": "r1", "object": "chat.completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                     "role": "assistant", "content": None, "tool_calls": [
                         {"id": "c1", "type": "function",
                          "function": {"name": "stubborn", "arguments": "{}"}}]}}]},
                {"id": "r2", "object": "chat.completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": "ok"}}]},
            ]
            self.sent = []

        def create(self, **request):
            self.sent.append(request)
            return self.replies.pop(0)

    import openai
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9")
    fake = Completions()
    client.chat.completions.create = fake.create
    print(box.run(client, messages="go", model="m"))
    print(fake.sent[1]["messages"][-1]["content"])
    print([c.name for c in box.running_calls])
    stop.set()
    """,
        timeout=60,
    )
    assert out.split("\n")[:3] == [
        "ok",
        "Tool 'stubborn' timed out: it did not finish within its time limit of 0.2 seconds.",
        "['stubborn']",
    ], out


def test_an_unprintable_exception_leaves_asyncio_run_working() -> None:
    # asyncio.Runner formats its SIGINT handler, holding the main task, on the way out:
    # an exception whose repr raises broke that and every later asyncio.run().
    out = run_isolated(
        """
        import asyncio, signal
        from describedtypes import Toolbox

        class Bad(Exception):
            def __str__(self):
                raise RuntimeError("no str")

            def __repr__(self):
                raise RuntimeError("no repr")

        async def boom() -> str:
            '''Raises an unprintable exception.'''
            raise Bad()

        box = Toolbox([boom])
        handler = signal.getsignal(signal.SIGINT)
        for result in (box.call("boom", {}), Toolbox([boom], timeout=5).call("boom", {})):
            print(result.content, type(result.exception).__name__)

        async def main():
            return 1

        print(asyncio.run(main()), signal.getsignal(signal.SIGINT) is handler)
        """,
        timeout=60,
    )
    assert out.split("\n")[:3] == [
        "Tool 'boom' failed: Bad: (the Bad's message could not be read) Bad",
        "Tool 'boom' failed: Bad: (the Bad's message could not be read) Bad",
        "1 True",
    ], out


def test_a_one_at_a_time_async_tool_left_running_keeps_its_turn() -> None:
    # concurrent=False holds while a call that ignored its cancellation still runs: the
    # next call is "not run" rather than run beside it, through call and acall alike.
    out = run_isolated(
        _STUBBORN.replace("box = Toolbox([stubborn], timeout=0.2)", "")
        + """
    import time
    box = Toolbox(timeout=0.2)
    box.add(stubborn, concurrent=False)
    print(box.call("stubborn", {}).content.split(":")[0])
    print(box.call("stubborn", {}).content)
    print(asyncio.run(box.acall("stubborn", {})).content)
    stop.set()
    deadline = time.monotonic() + 30
    while box.running_calls and time.monotonic() < deadline:
        time.sleep(0.01)
    print(box.running_calls)
    async def a_turn():  # the gate is free again: this call runs (and ends at once)
        return (await box.acall("stubborn", {})).content
    print(asyncio.run(a_turn()))
    """,
        timeout=60,
    )
    not_run = (
        "Tool 'stubborn' was not run: another call of it was still running (it runs one call "
        "at a time). Call it again later."
    )
    assert out.split("\n")[:5] == ["Tool 'stubborn' timed out", not_run, not_run, "[]", "done"]
