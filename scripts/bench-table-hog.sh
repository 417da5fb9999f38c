#!/usr/bin/env bash
# Tables that cannot touch each other (issue 23; docs/SECURITY.md). Not a test: a benchmark,
# quoted with the command that produced it.
#   scripts/bench-table-hog.sh [GAMES]
# A round robin of three bots, two seats, GAMES games per table (default 8), -j 2, move_ms 100:
# `hog` starts 32 children, each in a session of its own (setsid), asking for CPUs 0-1 (taskset)
# and spinning, then plays as builtin:random; the others are builtin:random and builtin:greedy.
# Played twice: with the bots' cgroups (cpuset and CPU weight where the machine allows: as root)
# and with DURAK_NO_CGROUP=1 (table pinning by sched_setaffinity only, as before issue 23).
# Prints one JSON line per run: the wall time, the games of the table without the hog (their
# faults, median and max duration in ms) and the faults of the hog's opponents.
# DURAK: the binary (default target/release/durak).
set -euo pipefail
GAMES=${1:-8}
DURAK=${DURAK:-$(cd "$(dirname "$0")/.." && pwd)/target/release/durak}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cat >"$DIR/hog.sh" <<'SH'
i=0; while [ $i -lt 32 ]; do setsid sh -c 'taskset -p -c 0-1 $$ >/dev/null 2>&1; while :; do :; done' & i=$((i+1)); done
exec "$1" bot random
SH
cat >"$DIR/t.toml" <<TOML
[tournament]
name = "hog"
variant = "podkidnoy"
format = "round-robin"
table_size = 2
games = $GAMES
seed = 7
concurrency = 2
max_consecutive_faults = 0
move_ms = 100
bank_ms = 1000

[[bot]]
name = "hog"
command = "sh $DIR/hog.sh $DURAK"

[[bot]]
name = "random"
command = "builtin:random"

[[bot]]
name = "greedy"
command = "builtin:greedy"
TOML
for mode in cgroups no-cgroups; do
  env=()
  [ "$mode" = no-cgroups ] && env=(DURAK_NO_CGROUP=1)
  s=$(date +%s.%N)
  env "${env[@]}" "$DURAK" tournament -q -c "$DIR/t.toml" --out "$DIR/$mode" >/dev/null 2>&1
  e=$(date +%s.%N)
  python3 - "$mode" "$DIR/$mode/results.jsonl" "$s" "$e" <<'PY'
import json, sys
mode, path, s, e = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = [json.loads(l) for l in open(path)]
other = [r for r in rows if "hog" not in r["seats"]]
hog = [r for r in rows if "hog" in r["seats"]]
d = sorted(r["duration_ms"] for r in other)
print(json.dumps({
    "mode": mode, "wall_s": round(e - s, 1), "games": len(rows),
    "other_table_games": len(other),
    "other_table_faults": sum(len(r["faults"]) for r in other),
    "other_table_median_ms": d[len(d) // 2] if d else None,
    "other_table_max_ms": d[-1] if d else None,
    "hog_opponent_faults": sum(1 for r in hog for f in r["faults"]
                               if r["seats"][f["seat"]] != "hog"),
}))
PY
done
