"""A hostile turn: a reply with 100,000 tool calls runs 32 of them and answers every call id,
all within the turn's 400,000 characters.

Each scenario runs in a child process with a timeout (see isolated.py). The tool sleeps
50 ms on a handful of threads: a build that ran every call would take over ten minutes and
fail by the timeout, not by a clock reading.
"""

from __future__ import annotations

import pytest

from .isolated import run_isolated

_SETUP = """
    import asyncio, time
    from describedtypes import Toolbox, ToolCall

    N = 100_000
    ran = []

    def lookup(key: str) -> str:
        '''Look a key up (slowly).'''
        time.sleep(0.05)
        ran.append(key)
        return key

    def tool_use(i):
        return {"type": "tool_use", "id": f"toolu_{i}", "name": "lookup", "input": {"key": str(i)}}

    def message(content, stop):
        return {"id": "msg", "type": "message", "role": "assistant", "model": "m",
                "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}, "content": content}

    class Messages:
        '''The shape of anthropic.Anthropic().messages, answering from a list.'''

        def __init__(self, replies):
            self.replies, self.sent = list(replies), []

        def create(self, **request):
            self.sent.append(request)
            return self.replies.pop(0)

    class AsyncMessages(Messages):
        async def create(self, **request):
            return Messages.create(self, **request)

    class Client:
        def __init__(self, messages):
            self.messages = messages

    def replies():
        return [message([tool_use(i) for i in range(N)], "tool_use"),
                message([{"type": "text", "text": "done"}], "end_turn")]

    def check(answer, sent):
        results = sent[1]["messages"][-1]["content"]
        assert answer == "done", answer
        assert [r["tool_use_id"] for r in results] == [f"toolu_{i}" for i in range(N)]
        assert [r["is_error"] for r in results] == [False] * 32 + [True] * (N - 32)
        assert results[32]["content"].startswith("Not run: this turn made 100,000 tool calls")
        assert all(r["content"] for r in results)  # Anthropic refuses an empty error result
        assert sum(len(r["content"]) for r in results) <= 400_000  # the turn's budget
        return len(ran)
"""


@pytest.mark.slow  # 100,000 calls
def test_acall_many_with_100_000_calls_runs_32() -> None:
    out = run_isolated(
        _SETUP
        + """
    calls = [ToolCall("lookup", {"key": str(i)}, f"c{i}") for i in range(N)]
    with Toolbox([lookup]) as box:
        results = asyncio.run(box.acall_many(calls))
    assert [r.call_id for r in results] == [f"c{i}" for i in range(N)]
    assert sum(len(r.content) for r in results) <= 400_000  # error results included
    print(len(ran), sum(r.is_error for r in results))
    """,
        timeout=120,
    )
    assert out.split() == ["32", "99968"]


@pytest.mark.slow  # 100,000 calls, twice
def test_run_and_arun_with_a_reply_of_100_000_calls_run_32() -> None:
    out = run_isolated(
        _SETUP
        + """
    messages = Messages(replies())
    with Toolbox([lookup]) as box:
        print(check(box.run(Client(messages), model="m", messages="go"), messages.sent))
    ran.clear()
    messages = AsyncMessages(replies())
    with Toolbox([lookup]) as box:
        answer = asyncio.run(box.arun(Client(messages), model="m", messages="go"))
    print(check(answer, messages.sent))
    """,
        timeout=180,
    )
    assert out.split() == ["32", "32"]
