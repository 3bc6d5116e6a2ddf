"""Drives `ckb mcp` with the official MCP Python SDK (PyPI `mcp`), for tests/cli_mcp.rs.

Usage: mcp_client.py CASES_JSON

CASES_JSON names the server command and the calls to make:
  {"command": [...], "cwd": "...", "tools": [...every tool name...],
   "cases": [{"tool": ..., "arguments": {...}, "expected": "<ckb query --format json stdout>",
              "error": false}],
   "resources": {"<uri>": "<expected text>"}}

For each protocol era (`auto`: 2026-07-28 through server/discover; `legacy`: the initialize
handshake) the script starts the server, checks that tools/list names exactly the given tools
with an object input schema each, calls every case and checks that the result's text equals the
expected bytes and its structured content equals the expected JSON (facts and all), with
`isError` as expected, then reads every resource. It prints one line per check and exits 1 on
the first mismatch.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def fail(message: str) -> None:
    print(f"FAIL: {message}", flush=True)
    sys.exit(1)


async def run_era(spec: dict, mode: str) -> None:
    params = StdioServerParameters(
        command=spec["command"][0], args=spec["command"][1:], cwd=spec["cwd"], env=spec.get("env")
    )
    async with Client(params, mode=mode) as client:
        version = client.protocol_version
        expected_version = "2026-07-28" if mode == "auto" else "2025-11-25"
        if version != expected_version:
            fail(f"{mode}: negotiated {version}, expected {expected_version}")
        if client.server_info is None or client.server_info.name != "ckb":
            fail(f"{mode}: server info {client.server_info}")
        listed = await client.list_tools()
        names = [t.name for t in listed.tools]
        if sorted(names) != sorted(spec["tools"]):
            fail(f"{mode}: tools/list gave {names}, expected {spec['tools']}")
        for tool in listed.tools:
            schema = tool.input_schema if hasattr(tool, "input_schema") else tool.inputSchema
            schema = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True)
            if schema.get("type") != "object" or not tool.description:
                fail(f"{mode}: tool {tool.name} has schema {schema} and description {tool.description!r}")
        print(f"ok {mode} {version}: {len(names)} tools listed", flush=True)
        for case in spec["cases"]:
            result = await client.call_tool(case["tool"], case["arguments"])
            label = f"{mode} {case['tool']} {json.dumps(case['arguments'], sort_keys=True)}"
            texts = [c.text for c in result.content if getattr(c, "type", None) == "text"]
            if len(texts) != 1:
                fail(f"{label}: {len(texts)} text blocks")
            if texts[0] != case["expected"]:
                fail(f"{label}: text differs from the CLI's bytes\n--- mcp\n{texts[0]}\n--- cli\n{case['expected']}")
            if bool(result.is_error if hasattr(result, "is_error") else result.isError) != case["error"]:
                fail(f"{label}: isError is not {case['error']}")
            structured = result.structured_content if hasattr(result, "structured_content") else result.structuredContent
            try:
                want = json.loads(case["expected"])
            except json.JSONDecodeError:
                want = None
            if isinstance(want, dict):
                if structured != want:
                    fail(f"{label}: structured content differs from the CLI's JSON")
            elif structured is not None:
                fail(f"{label}: structured content for a text answer")
            print(f"ok {label}", flush=True)
        for uri, expected in spec.get("resources", {}).items():
            read = await client.read_resource(uri)
            text = read.contents[0].text
            if text != expected:
                fail(f"{mode} {uri}: text differs\n--- mcp\n{text[:2000]}\n--- expected\n{expected[:2000]}")
            print(f"ok {mode} resource {uri}", flush=True)


async def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    for mode in ("auto", "legacy"):
        await run_era(spec, mode)
    print("all ok", flush=True)


asyncio.run(main())
