"""The servers bench_mcp.py starts over stdio: the same tools served by describedtypes
(``describedtypes mcp benchmarks/_mcp_servers.py:toolbox``) and by the MCP SDK's own
``MCPServer`` (``python benchmarks/_mcp_servers.py``).

``add`` is the small call; ``items(n)`` returns ``n`` small records, the large result.
"""

from __future__ import annotations

import dataclasses

from describedtypes import Toolbox


@dataclasses.dataclass
class Item:
    id: int
    name: str


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def items(n: int) -> list[Item]:
    """The first n items."""
    return [Item(i, f"item {i}") for i in range(n)]


toolbox = Toolbox([add, items])


def peer() -> None:
    """The SDK's MCPServer with the same tools (its results as it sends them)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("peer")
    server.tool()(add)
    server.tool()(items)
    server.run()


if __name__ == "__main__":
    peer()
