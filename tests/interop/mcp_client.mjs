// The TypeScript MCP SDK's client against `describedtypes mcp`: over stdio (it starts the
// server) or over streamable HTTP (a URL). Prints one JSON line with what it saw.
// Run: node mcp_client.mjs stdio PYTHON TARGET | node mcp_client.mjs http URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, ...rest] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: rest[0], args: ["-m", "describedtypes", "mcp", rest[1]],
                               env: process.env, stderr: "ignore" })
  : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client({ name: "interop", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const add = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
const weather = await client.callTool({ name: "get_weather", arguments: { city: "Oslo" } });
const wrong = await client.callTool({ name: "add", arguments: { a: "two", b: 3 } });
let unknown = null;
try {
  await client.callTool({ name: "ad", arguments: {} });
} catch (error) {
  unknown = { code: error.code, message: String(error.message) };
}
console.log(JSON.stringify({
  version: client.getServerVersion(),
  names: listed.tools.map((t) => t.name),
  add: add.structuredContent,
  weather: weather.structuredContent,
  wrong: { isError: wrong.isError, text: wrong.content[0].text },
  unknown,
}));
await client.close();
