#!/usr/bin/env bash
# Lists the workspace's long functions (issue 27: short functions, focused files): every
# non-test Rust function of at least MIN lines (150 by default), longest first, as
# `LINES FILE:LINE NAME`, after a first line with their number.
#
# A function's length runs from its `fn` line to its closing brace at the same indentation (the
# code is kept `cargo fmt` clean, so that brace is there). What does not count: `tests/`,
# `benches/` and `examples/` folders, `target/`, and everything after a file's first
# `#[cfg(test)]` (its tests module, at the end of the file by the project's habit).
#
# Usage: scripts/long-functions.sh [MIN] [ROOT]   (ROOT: the workspace, by default the folder
# above this script). Needs bash and python3 only. docs/TESTING.md, "Checks that keep the code
# so"; tests/code_checks.rs fails when there are more than its ceiling.
set -euo pipefail
min="${1:-150}"
root="${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
exec python3 - "$root" "$min" <<'PY'
import os
import re
import sys

root, least = os.path.abspath(sys.argv[1]), int(sys.argv[2])
SKIP = {"tests", "benches", "examples", "target", ".git", "node_modules"}
FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?(default\s+)?(async\s+)?(const\s+)?(unsafe\s+)?"
                r"(extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)")

found = []
for dirpath, dirnames, filenames in os.walk(root):
    dirnames[:] = sorted(d for d in dirnames if d not in SKIP)
    for name in sorted(filenames):
        if not name.endswith(".rs"):
            continue
        path = os.path.join(dirpath, name)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            if re.match(r"\s*#\[cfg\(test\)\]", lines[i]):
                break
            m = FN.match(lines[i])
            if not m:
                i += 1
                continue
            indent = len(m.group(1))
            # The body opens on the signature's last line; a declaration without one ends in `;`.
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
                j += 1
            if j >= len(lines) or lines[j].rstrip().endswith(";"):
                i = j + 1
                continue
            k = j + 1
            close = " " * indent + "}"
            while k < len(lines) and not (
                lines[k].startswith(close) and len(lines[k]) - len(lines[k].lstrip()) == indent
            ):
                k += 1
            length = k - i + 1
            if length >= least:
                found.append((length, os.path.relpath(path, root), i + 1, m.group(9)))
            i = k + 1

found.sort(key=lambda f: (-f[0], f[1], f[2]))
print(len(found))
for length, path, line, name in found:
    print(f"{length} {path}:{line} {name}")
PY
