#!/bin/sh
# The ladder's pace against a tournament's (issue 23), bounded in time: games per second of
# `durak tournament -j 2` and of a `durak serve` ladder at 2 tables (`--concurrency 2`), the
# same bots and the default sandbox, RUNS times each, alternating, and the ratio of the medians.
# House bots (builtin:greedy, builtin:random) by default; with PY=1 three Python sample bots
# (sample-bots/python/random_bot.py, uploaded as py1..py3) join them, in both. With WORKERS=1
# the server plays nothing itself (`--no-local-play`): two `durak worker` processes
# (`--concurrency 1` each, the default sandbox) play the ladder instead.
#
#   cargo build --release --bin durak && service/bench/pace.sh
#
# Environment: DURAK (the binary, default target/release/durak), SECONDS_PER_RUN (default 10),
# RUNS (default 3), GAMES (the tournament's --games, default 600), PY (0 or 1), WORKERS (0 or
# 1), KEEP (set: the temporary folder, with the server's and workers' logs, is kept). Needs curl
# and python3.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DURAK=${DURAK:-$ROOT/target/release/durak}
RUN=${SECONDS_PER_RUN:-10}
RUNS=${RUNS:-3}
GAMES=${GAMES:-600}
PY=${PY:-0}
WORKERS=${WORKERS:-0}
[ -x "$DURAK" ] || { echo "$DURAK: build it first: cargo build --release --bin durak" >&2; exit 2; }
DURAK=$(cd "$(dirname "$DURAK")" && pwd)/$(basename "$DURAK")
tmp=$(mktemp -d /tmp/durak-bench-pace.XXXXXX)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    [ -n "${KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
bots="builtin:greedy builtin:random"
if [ "$PY" = 1 ]; then
    for n in 1 2 3; do
        b=$tmp/py$n; mkdir -p "$b"; cp "$ROOT/sample-bots/python/random_bot.py" "$b/"
        printf 'name = "py%s"\ncommand = "python3 random_bot.py"\nlanguage = "python"\nauthor = "ada"\n' $n >"$b/bot.toml"
    done
fi
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
tournament() { # games/s of one tournament
    rm -rf "$tmp/t"
    t0=$(date +%s.%N)
    if [ "$PY" = 1 ]; then
        (cd "$tmp" && "$DURAK" tournament $bots "python3 py1/random_bot.py" "python3 py2/random_bot.py" \
            "python3 py3/random_bot.py" --games "$GAMES" -j 2 --sandbox default --out "$tmp/t" --no-html -q >/dev/null 2>&1)
    else
        "$DURAK" tournament $bots --games "$GAMES" -j 2 --sandbox default --out "$tmp/t" --no-html -q >/dev/null 2>&1
    fi
    t1=$(date +%s.%N)
    n=$(wc -l <"$tmp/t/results.jsonl")
    echo "$n $t0 $t1" | awk '{ printf "%.1f", $1 / ($3 - $2) }'
}
# The ladder: one server for all runs.
if [ "$WORKERS" = 1 ]; then play="--no-local-play"; who="2 workers"; else play="--concurrency 2"; who="ladder at 2 tables"; fi
# shellcheck disable=SC2086
"$DURAK" serve --data-dir "$tmp/data" --listen 127.0.0.1:0 --sandbox default $play \
    --check-long-games 0 --house-bots builtin:greedy,builtin:random >/dev/null 2>"$tmp/log" &
pids="$!"
touch "$tmp/log"
i=0
until grep -q "organiser token" "$tmp/log"; do
    i=$((i + 1)); [ $i -lt 200 ] || { cat "$tmp/log" >&2; exit 1; }
    sleep 0.1
done
url=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\)\/.*/\1/p' "$tmp/log" | head -1)
org=$(grep -o 'dk_[0-9a-f]*' "$tmp/log" | head -1)
games() { curl -s "$url/api/status" | sed -n 's/.*"games":\([0-9]*\),.*/\1/p'; }
if [ "$PY" = 1 ]; then
    inv=$(curl -s -X POST -H "Authorization: Bearer $org" "$url/api/invites" | python3 -c 'import json,sys; print(json.load(sys.stdin)["invite"])')
    tok=$(curl -s -X POST -d "{\"name\":\"ada\",\"invite\":\"$inv\"}" "$url/api/accounts" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
    for n in 1 2 3; do
        "$DURAK" submit --server "$url" --token "$tok" "$tmp/py$n" --wait-s 120 >/dev/null
    done
fi
if [ "$WORKERS" = 1 ]; then
    for w in a b; do
        wt=$(curl -s -X POST -H "Authorization: Bearer $org" -H 'Content-Type: application/json' \
            -d "{\"label\":\"$w\"}" "$url/api/worker-tokens" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
        "$DURAK" worker --server "$url" --token "$wt" --sandbox default --cache "$tmp/cache-$w" \
            >/dev/null 2>"$tmp/worker-$w.log" &
        pids="$pids $!"
    done
fi
ladder() { # games/s over $RUN seconds
    curl -s -X POST -H "Authorization: Bearer $org" "$url/api/ladder/resume" >/dev/null
    sleep 2
    g0=$(games); t0=$(date +%s.%N)
    sleep "$RUN"
    g1=$(games); t1=$(date +%s.%N)
    curl -s -X POST -H "Authorization: Bearer $org" "$url/api/ladder/pause" >/dev/null
    echo "$g0 $g1 $t0 $t1" | awk '{ printf "%.1f", ($2 - $1) / ($4 - $3) }'
}
echo "$(nproc) cores; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); bots: $bots$([ "$PY" = 1 ] && echo ' py1 py2 py3')"
tt="" ll=""
for r in $(seq "$RUNS"); do
    curl -s -X POST -H "Authorization: Bearer $org" "$url/api/ladder/pause" >/dev/null
    sleep 1
    x=$(tournament); tt="$tt $x"
    y=$(ladder); ll="$ll $y"
    echo "run $r: tournament -j 2 $x games/s, $who $y games/s"
done
mt=$(echo "$tt" | median); ml=$(echo "$ll" | median)
echo "median: tournament $mt games/s, $who $ml games/s, ratio $(echo "$mt $ml" | awk '{ printf "%.2f", $2 / $1 }')"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
