#!/usr/bin/env bash
# Timeouts charged to good bots on a loaded machine (issue 23; docs/BENCHMARKS.md, "The decision
# clock"). Not a test: a benchmark, quoted with the command that produced it.
#   scripts/bench-clock.sh GAMES [MOVE_MS] [HOGS]
# Four good bots (the Python sample bots, random and heuristic, and the built-in greedy and
# random: each answers in a millisecond or two of CPU) play a duplicate round robin of about GAMES
# games at -j 2 (tables of 2, 12 tables), each with a move limit of MOVE_MS (default 30) and no
# bank, while HOGS (default 4) busy processes load the machine. DURAK: the binary (default
# target/release/durak); run it once with the binary before a change and once after.
# Prints one JSON line: games, timeouts charged, games voided (a bot starved past 10x its limit),
# seconds.
set -euo pipefail
GAMES=$1; MOVE_MS=${2:-30}; HOGS=${3:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURAK=${DURAK:-$ROOT/target/release/durak}
TABLES=12
PER=$(( (GAMES + TABLES - 1) / TABLES ))
dir=$(mktemp -d)
conf=$dir/clock.toml
cat >"$conf" <<TOML
[tournament]
name = "clock"
seed = 23
format = "duplicate"
games = $PER
concurrency = 2
max_consecutive_faults = 0
move_ms = $MOVE_MS
bank_ms = 0

[[bot]]
name = "random-py"
command = "python3 random_bot.py"
cwd = "$ROOT/sample-bots/python"

[[bot]]
name = "heuristic-py"
command = "python3 heuristic_bot.py"
cwd = "$ROOT/sample-bots/python"

[[bot]]
name = "greedy"
command = "builtin:greedy"

[[bot]]
name = "random"
command = "builtin:random"
TOML
hogs=()
for _ in $(seq 1 "$HOGS"); do
  sh -c 'while :; do :; done' &
  hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
start=$(date +%s.%N)
PYTHONDONTWRITEBYTECODE=1 "$DURAK" tournament -q -c "$conf" --out "$dir/out" >/dev/null 2>"$dir/stderr" || {
  cat "$dir/stderr" >&2; exit 1; }
end=$(date +%s.%N)
results=$dir/out/results.jsonl
[ -z "${KEEP:-}" ] || echo "kept $dir" >&2
games=$(wc -l <"$results")
timeouts=$(grep -o '"kind":"timeout"' "$results" | wc -l || true)
voided=$(grep -c '"voided":' "$results" || true)
printf '{"games": %d, "timeouts": %d, "voided_games": %d, "move_ms": %d, "hogs": %d, "seconds": %.1f}\n' \
  "$games" "$timeouts" "$voided" "$MOVE_MS" "$HOGS" "$(echo "$end - $start" | bc)"
