#!/usr/bin/env bash
# A large tournament of built-in bots on this machine (docs/SCALING.md): games per second, peak
# memory, disk per game. Not a test: a benchmark, quoted with the command that produced it.
#   scripts/bench-scale.sh GAMES REPLAYS DIR [-j N]
# GAMES: about how many games (18 built-in bots, 306 tables of 2, duplicate deals: the games per
# table are GAMES/306 rounded up); REPLAYS: zstd or plain; DIR: the tournament directory (must
# not exist; removed afterwards unless KEEP=1). DURAK: the binary (default target/release/durak).
# Prints one JSON line: games, seconds, games_per_s, peak RSS of the whole process (ru_maxrss,
# the standings at the end included) and of the run before the standings (VmHWM), disk per game
# (blocks allocated: replays, results), and the replays' apparent size per game.
set -euo pipefail
GAMES=$1; REPLAYS=$2; DIR=$3; shift 3
DURAK=${DURAK:-$(cd "$(dirname "$0")/.." && pwd)/target/release/durak}
BOTS=18
TABLES=$((BOTS * (BOTS - 1)))
PER=$(( (GAMES + TABLES - 1) / TABLES ))
[ ! -e "$DIR" ] || { echo "$DIR exists" >&2; exit 2; }
mkdir -p "$(dirname "$DIR")"
conf=$(mktemp --suffix=.toml)
{
  printf '[tournament]\nname = "bench"\nseed = 11\nmax_consecutive_faults = 0\ngames = %d\n\n' "$PER"
  for i in $(seq 0 $((BOTS - 1))); do
    if ((i % 2 == 0)); then k=random; else k=greedy; fi
    printf '[[bot]]\nname = "%s-%d"\ncommand = "builtin:%s"\n\n' "$k" "$i" "$k"
  done
} >"$conf"
stats=$(mktemp)
start=$(date +%s.%N)
DURAK_RUN_STATS=1 /usr/bin/time -f 'maxrss_kib=%M' -o "$stats.time" \
  "$DURAK" tournament -q -c "$conf" --replays "$REPLAYS" --out "$DIR" "$@" >/dev/null 2>"$stats"
end=$(date +%s.%N)
played=$(wc -l <"$DIR/results.jsonl")
hwm=$(sed -n 's/.*"vm_hwm_kib": \([0-9]*\).*/\1/p' "$stats")
maxrss=$(sed -n 's/maxrss_kib=//p' "$stats.time")
replay_kib=$(du -sk "$DIR/replays" | cut -f1)
apparent=$(du -sb --apparent-size "$DIR/replays" | cut -f1)
results_kib=$(du -sk "$DIR/results.jsonl" | cut -f1)
python3 - "$played" "$start" "$end" "$hwm" "$maxrss" "$replay_kib" "$apparent" "$results_kib" "$REPLAYS" <<'PY'
import json, sys
g, s, e, hwm, rss, rk, ap, resk, fmt = sys.argv[1:]
g = int(g); secs = float(e) - float(s)
print(json.dumps({"games": g, "replays": fmt, "seconds": round(secs, 1),
                  "games_per_s": round(g / secs, 1),
                  "peak_rss_mib": round(int(rss) / 1024, 1),
                  "run_vm_hwm_mib": round(int(hwm or 0) / 1024, 1),
                  "disk_per_game_kib": round((int(rk) + int(resk)) / g, 2),
                  "replay_disk_per_game_kib": round(int(rk) / g, 2),
                  "replay_bytes_per_game": round(int(ap) / g)}))
PY
rm -f "$conf" "$stats" "$stats.time"
[ "${KEEP:-0}" = 1 ] || rm -rf "$DIR"
