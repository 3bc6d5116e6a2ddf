#!/usr/bin/env python3
"""The measuring client of ci/bench-mcp.sh: one `ckb mcp` session over raw JSON-RPC on pipes (no
SDK, so the client adds nothing but a pipe round trip), timed per call.

    bench_mcp.py CKB CALLS [mcp options…]

Starts `CKB mcp [options…]`, times the first answer (spawn → the `initialize` reply, and spawn →
the first `tools/call` reply), picks symbols with `search`, then makes CALLS calls of each of
`search`, `symbol` and `refs` (cycling through the picked names and IDs) and prints, as JSON, each
tool's p50 / p90 / p99 / max in milliseconds and the server's resident memory before and after.
Every answer must be a successful tool result: a failure aborts the benchmark.
"""

import json
import subprocess
import sys
import time

QUERIES = ["new", "poll", "read", "write", "spawn", "handle", "task", "time", "sync", "io", "run", "park"]


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


def rss_kib(pid):
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ckb, calls, options = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    start = time.perf_counter()
    proc = subprocess.Popen(
        [ckb, "mcp", *options], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    next_id = [0]

    def request(method, params):
        next_id[0] += 1
        line = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        if "error" in reply:
            sys.exit(f"{method}: {reply['error']}")
        return reply["result"]

    def call(tool, arguments):
        t = time.perf_counter()
        result = request("tools/call", {"name": tool, "arguments": arguments})
        elapsed = (time.perf_counter() - t) * 1000
        if result.get("isError"):
            sys.exit(f"{tool} {arguments}: {result['content'][0]['text']}")
        return result["structuredContent"], elapsed

    request(
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
    )
    initialize_ms = (time.perf_counter() - start) * 1000
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    first, _ = call("search", {"query": QUERIES[0], "limit": 20})
    first_call_ms = (time.perf_counter() - start) * 1000
    rss_start = rss_kib(proc.pid)

    ids = []
    for q in QUERIES:
        answer, _ = call("search", {"query": q, "limit": 20})
        ids.extend(r["id"] for r in answer["facts"]["results"])
    ids = ids or [r["id"] for r in first["facts"]["results"]]
    if not ids:
        sys.exit("search found no symbols to look up")

    times = {"search": [], "symbol": [], "refs": []}
    for i in range(calls):
        _, ms = call("search", {"query": QUERIES[i % len(QUERIES)]})
        times["search"].append(ms)
        _, ms = call("symbol", {"id": ids[i % len(ids)]})
        times["symbol"].append(ms)
        _, ms = call("refs", {"id": ids[i % len(ids)]})
        times["refs"].append(ms)
    rss_end = rss_kib(proc.pid)
    proc.stdin.close()
    code = proc.wait(timeout=30)
    print(
        json.dumps(
            {
                "initialize_ms": round(initialize_ms, 2),
                "first_call_ms": round(first_call_ms, 2),
                "calls_per_tool": calls,
                "symbols": len(ids),
                "tools": {
                    t: {
                        "p50": round(percentile(v, 50), 3),
                        "p90": round(percentile(v, 90), 3),
                        "p99": round(percentile(v, 99), 3),
                        "max": round(max(v), 3),
                    }
                    for t, v in times.items()
                },
                "rss_kib": {"after_setup": rss_start, "at_end": rss_end},
                "exit_code": code,
            }
        )
    )


main()
