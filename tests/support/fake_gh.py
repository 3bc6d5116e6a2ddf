#!/usr/bin/env python3
"""A stand-in for the GitHub CLI (`gh`) in tests/examples.rs.

It answers exactly the calls the example scripts in examples/github/ckb make, against a JSON state
file named by $FAKE_GH_STATE, and appends every call to the state's "calls" list so the test can
check what the scripts asked for:

  gh run list --workflow W --branch B --status S --limit N --json databaseId [--jq EXPR]
  gh run download ID --name ARTIFACT --dir DIR          (copies the artifact's folder)
  gh api repos/O/R/issues/N/comments --paginate         (lists the issue's comments)
  gh api --method POST repos/O/R/issues/N/comments -F body=@FILE
  gh api --method PATCH repos/O/R/issues/comments/ID -F body=@FILE

Anything else fails loudly, so a script that starts calling something new breaks the test.
"""
import json
import os
import shutil
import subprocess
import sys

state_path = os.environ["FAKE_GH_STATE"]
with open(state_path) as f:
    state = json.load(f)
args = sys.argv[1:]
state.setdefault("calls", []).append(args)


def opt(name):
    return args[args.index(name) + 1]


def save():
    with open(state_path, "w") as f:
        json.dump(state, f, indent=1, sort_keys=True)


if args[:2] == ["run", "list"]:
    runs = [
        r
        for r in state.get("runs", [])
        if r["workflow"] == opt("--workflow")
        and r["branch"] == opt("--branch")
        and r["status"] == opt("--status")
    ]
    runs.sort(key=lambda r: -r["databaseId"])
    out = json.dumps([{"databaseId": r["databaseId"]} for r in runs[: int(opt("--limit"))]])
    if "--jq" in args:
        out = subprocess.run(
            ["jq", "-r", opt("--jq")], input=out, capture_output=True, text=True, check=True
        ).stdout
    sys.stdout.write(out)
elif args[:2] == ["run", "download"]:
    run = next(r for r in state["runs"] if str(r["databaseId"]) == args[2])
    shutil.copytree(run["artifacts"][opt("--name")], opt("--dir"), dirs_exist_ok=True)
elif args and args[0] == "api":
    method = opt("--method") if "--method" in args else "GET"
    path = next(a for a in args[1:] if a.startswith("repos/"))
    parts = path.split("/")
    comments = state.setdefault("comments", [])
    if method == "GET" and parts[3:4] == ["issues"] and parts[5:] == ["comments"]:
        assert "--paginate" in args, "list every page"
        print(json.dumps([c for c in comments if c["issue"] == int(parts[4])]))
    elif method in ("POST", "PATCH"):
        field = opt("-F")
        assert field.startswith("body=@"), field
        with open(field[len("body=@"):]) as f:
            body = f.read()
        if method == "POST" and parts[5:] == ["comments"]:
            new_id = max([c["id"] for c in comments] + [100]) + 1
            comments.append({"id": new_id, "issue": int(parts[4]), "body": body})
        elif method == "PATCH" and parts[3:5] == ["issues", "comments"]:
            target = [c for c in comments if c["id"] == int(parts[5])]
            assert target, "no comment " + parts[5]
            target[0]["body"] = body
        else:
            sys.exit("fake gh: unsupported api call %r" % args)
    else:
        sys.exit("fake gh: unsupported api call %r" % args)
else:
    sys.exit("fake gh: unsupported call %r" % args)
save()
