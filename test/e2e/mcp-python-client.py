"""The MCP Python SDK as an agent runs it: connect to the hosted /mcp with one header, list the
tools, call one, and print what came back as JSON on one line.

Usage: python mcp-python-client.py URL HEADER VALUE TOOL ARGUMENTS_JSON
Version 2 of the SDK takes an httpx2 client; version 1 takes the headers itself.
"""

import asyncio
import json
import sys

from mcp.client.session import ClientSession

try:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    def connect(url, headers):
        return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))

except ImportError:
    from mcp.client.streamable_http import streamablehttp_client

    def connect(url, headers):
        return streamablehttp_client(url, headers=headers)


def field(result, snake, camel):
    return getattr(result, snake, None) if hasattr(result, snake) else getattr(result, camel, None)


async def main(url, header, value, tool, arguments):
    async with connect(url, {header: value}) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool(tool, json.loads(arguments))
            print(
                json.dumps(
                    {
                        "tools": [t.name for t in tools.tools],
                        "is_error": bool(field(result, "is_error", "isError")),
                        "structured": field(result, "structured_content", "structuredContent"),
                    }
                )
            )


asyncio.run(main(*sys.argv[1:6]))
