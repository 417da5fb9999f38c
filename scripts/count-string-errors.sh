#!/usr/bin/env bash
# Counts `Result<..., String>` in the workspace's non-test Rust code (issue 27: typed errors at
# crate boundaries, keeping the messages with their fix). Prints the total on the first line, then
# one line per crate ("CRATE COUNT", largest first). With `--list`, then each occurrence as
# `FILE:LINE: TEXT`.
#
# What counts: every `Result<T, String>` (also `std::result::Result`, `std::string::String`, a
# signature spread over several lines, a turbofish `collect::<Result<_, String>>()`), every type
# alias defined as one (`type Answer = Result<X, String>;`), and every use of such an alias (in its
# file, or in its crate when it is `pub`), since an alias hides the same string error.
# What does not: `tests/`, `benches/` and `examples/` folders, `target/`, items under
# `#[cfg(test)]` (a `mod tests { ... }` block, or a `mod tests;` and its file), comments and
# string literals.
#
# Usage: scripts/count-string-errors.sh [--list] [ROOT]   (ROOT: the workspace, by default the
# folder above this script). Needs bash and python3 only. docs/TESTING.md, "Checks that keep the
# code so"; tests/code_checks.rs fails when the total is above its ceiling.
set -euo pipefail
list=0
if [ "${1:-}" = "--list" ]; then
    list=1
    shift
fi
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
exec python3 - "$root" "$list" <<'PY'
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1])
LIST = sys.argv[2] == "1"
SKIP_DIRS = {"target", ".git", "tests", "benches", "examples", "node_modules"}


def strip(src):
    """The source with comments, string and char literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c in "br" and re.match(r'b?r#*"', src[i:i + 260]) and not (i and (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'(b?r)(#*)"', src[i:])
            end = '"' + m.group(2)
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == '"' or (c == "b" and src.startswith('b"', i) and not (i and (src[i - 1].isalnum() or src[i - 1] == "_"))):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F600}'); otherwise a lifetime or a label.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", src[i:i + 12])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def item_end(code, i):
    """The end of the item starting at `i`: after its `{ ... }` block, or its `;`."""
    depth = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth == 0:
            return i + 1
        elif c == "{":
            d = 0
            while i < n:
                if code[i] == "{":
                    d += 1
                elif code[i] == "}":
                    d -= 1
                    if d == 0:
                        return i + 1
                i += 1
            return n
        i += 1
    return n


CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")


def drop_cfg_test(code, path, excluded):
    """`code` with the items under `#[cfg(test)]` blanked; files of `#[cfg(test)] mod x;` noted."""
    while True:
        m = CFG_TEST.search(code)
        if not m:
            return code
        start, i = m.start(), m.end()
        # Further attributes of the same item.
        while True:
            a = re.match(r"\s*#\s*\[", code[i:])
            if not a:
                break
            depth, j = 0, i + a.end() - 1
            while j < len(code):
                if code[j] == "[":
                    depth += 1
                elif code[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            i = j + 1
        decl = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code[i:])
        if decl:
            name = decl.group(1)
            base = os.path.dirname(path)
            stem = os.path.splitext(os.path.basename(path))[0]
            if stem not in ("mod", "lib", "main"):
                base = os.path.join(base, stem)
            excluded.add(os.path.normpath(os.path.join(base, name + ".rs")))
            excluded.add(os.path.normpath(os.path.join(base, name, "mod.rs")))
        end = item_end(code, i)
        code = code[:start] + re.sub(r"[^\n]", " ", code[start:end]) + code[end:]


RESULT = re.compile(r"(?<![\w:])(?:(?:std|core)\s*::\s*result\s*::\s*)?Result\s*<")
STRING = re.compile(r"^(?:(?:::)?(?:std|alloc)\s*::\s*string\s*::\s*)?String$")


def generic_args(code, i):
    """The top-level arguments of the `<...>` opening at `code[i]`, and the index after it."""
    depth, args, cur, j, n = 0, [], [], i, len(code)
    while j < n:
        c = code[j]
        if code.startswith("->", j) or code.startswith("=>", j):
            cur.append(code[j:j + 2])
            j += 2
            continue
        if c in "<([":
            depth += 1
            if depth == 1:
                j += 1
                continue
        elif c in ">)]":
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                return args, j + 1
        elif c == "," and depth == 1:
            args.append("".join(cur))
            cur = []
            j += 1
            continue
        elif c in ";{}":
            return None, j
        cur.append(c)
        j += 1
    return None, n


def string_results(code):
    """(offset, alias name or None) of each `Result<_, String>` in `code`."""
    found = []
    for m in RESULT.finditer(code):
        args, end = generic_args(code, m.end() - 1)
        if not args:
            continue
        args = [a.strip() for a in args if a.strip()]
        if len(args) >= 2 and STRING.match(re.sub(r"\s+", "", args[-1])):
            line_start = code.rfind(";", 0, m.start())
            before = code[max(line_start, code.rfind("}", 0, m.start()), code.rfind("{", 0, m.start())) + 1:m.start()]
            alias = re.search(r"(pub(?:\([^)]*\))?\s+)?type\s+(\w+)\s*(?:<[^=]*>)?\s*=\s*$", before)
            found.append((m.start(), (alias.group(2), bool(alias.group(1))) if alias else None))
    return found


def crate_of(path):
    d = os.path.dirname(path)
    while True:
        toml = os.path.join(d, "Cargo.toml")
        if os.path.isfile(toml):
            with open(toml, encoding="utf-8") as f:
                text = f.read()
            m = re.search(r'^\[package\][^\[]*?^name\s*=\s*"([^"]+)"', text, re.M | re.S)
            if m:
                return m.group(1)
        if os.path.abspath(d) == ROOT or d == os.path.dirname(d):
            return os.path.relpath(os.path.dirname(path), ROOT)
        d = os.path.dirname(d)


files = []
for d, dirs, names in os.walk(ROOT):
    dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not x.startswith("."))
    files += [os.path.normpath(os.path.join(d, x)) for x in sorted(names) if x.endswith(".rs")]

excluded = set()
codes = {}
for p in files:
    with open(p, encoding="utf-8", errors="replace") as f:
        codes[p] = drop_cfg_test(strip(f.read()), p, excluded)

hits = []  # (crate, file, line)
aliases = []  # (crate, file, name, public, offset of the definition)
for p in files:
    if p in excluded:
        continue
    code = codes[p]
    for off, alias in string_results(code):
        hits.append((crate_of(p), p, code.count("\n", 0, off) + 1))
        if alias:
            aliases.append((crate_of(p), p, alias[0], alias[1], off))

for crate, where, name, public, defined in aliases:
    use_stmt = re.compile(r"\buse\b[^;]*$")
    for p in files:
        if p in excluded or (p != where if not public else crate_of(p) != crate):
            continue
        code = codes[p]
        for m in re.finditer(r"(?<![\w])" + re.escape(name) + r"(?!\w)", code):
            if p == where and abs(m.start() - defined) < 200 and re.search(r"type\s+$", code[:m.start()]):
                continue
            if use_stmt.search(code[max(0, code.rfind(";", 0, m.start())):m.start()]):
                continue
            hits.append((crate, p, code.count("\n", 0, m.start()) + 1))

per = {}
for crate, _, _ in hits:
    per[crate] = per.get(crate, 0) + 1
print(len(hits))
for crate, k in sorted(per.items(), key=lambda x: (-x[1], x[0])):
    print(f"{crate} {k}")
if LIST:
    srcs = {}
    for crate, p, line in sorted(hits, key=lambda h: (h[1], h[2])):
        if p not in srcs:
            with open(p, encoding="utf-8", errors="replace") as f:
                srcs[p] = f.read().split("\n")
        print(f"{os.path.relpath(p, ROOT)}:{line}: {srcs[p][line - 1].strip()}")
PY
