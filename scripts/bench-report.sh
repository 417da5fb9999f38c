#!/usr/bin/env bash
# What the endgame analysis (issue 26) adds to a tournament report's build time
# (docs/BENCHMARKS.md). Not a test: a benchmark, quoted with the command that produced it.
#   scripts/bench-report.sh GAMES VARIANT DIR [RUNS]
# Plays GAMES games of builtin:random against builtin:greedy (two seats, so that most games reach
# an endgame; VARIANT podkidnoy or prostoy) into the tournament directory DIR (must not exist;
# removed afterwards unless KEEP=1), then writes its report RUNS times (default 5) each way,
# alternating: `durak standings DIR --html` (with the analysis) and `... --no-analysis`. Prints one
# JSON line: the games, the medians (s) with and without, the difference per game (ms).
# DURAK: the binary (default target/release/durak).
set -euo pipefail
GAMES=$1; VARIANT=$2; DIR=$3; RUNS=${4:-5}
DURAK=${DURAK:-$(cd "$(dirname "$0")/.." && pwd)/target/release/durak}
[ ! -e "$DIR" ] || { echo "$DIR exists" >&2; exit 2; }
mkdir -p "$(dirname "$DIR")"
"$DURAK" tournament -q --variant "$VARIANT" --games "$GAMES" --seed 26 --out "$DIR" \
  builtin:random builtin:greedy >/dev/null
played=$(wc -l <"$DIR/results.jsonl")
times=$(mktemp)
for _ in $(seq "$RUNS"); do
  for mode in with without; do
    extra=()
    [ "$mode" = without ] && extra=(--no-analysis)
    s=$(date +%s.%N)
    "$DURAK" standings "$DIR" --html "${extra[@]}" >/dev/null 2>&1
    e=$(date +%s.%N)
    echo "$mode $s $e" >>"$times"
  done
done
python3 - "$played" "$VARIANT" "$times" <<'PY'
import json, statistics, sys
games, variant, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
t = {"with": [], "without": []}
for line in open(path):
    mode, s, e = line.split()
    t[mode].append(float(e) - float(s))
w, wo = statistics.median(t["with"]), statistics.median(t["without"])
print(json.dumps({
    "games": games, "variant": variant, "runs": len(t["with"]),
    "median_s_with_analysis": round(w, 3), "median_s_without": round(wo, 3),
    "added_s": round(w - wo, 3), "added_ms_per_game": round((w - wo) * 1000 / games, 3),
    "with_s": [round(x, 3) for x in t["with"]], "without_s": [round(x, 3) for x in t["without"]],
}))
PY
rm -f "$times"
[ "${KEEP:-0}" = 1 ] || rm -rf "$DIR"
