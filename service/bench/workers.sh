#!/bin/sh
# Benchmark of remote workers (issue 16), bounded in time: a `durak serve` on loopback with no
# local play (`--no-local-play`, house bots greedy and random, 2 deals per job), then the
# ladder's games per second with one `durak worker` process and with two (each playing one
# game at a time, `--concurrency 1`), RUNS times each, alternating, and the ratio of the
# medians. With LOCAL=1 it measures the server's own tables instead (local play, 1 table, no
# worker): the figure of the group commit in docs/SERVICE.md.
#
#   cargo build --release -p durak && service/bench/workers.sh
#
# Environment: DURAK (the binary, default target/release/durak), SECONDS_PER_RUN (default 10),
# RUNS (default 3), LOCAL (0 or 1), DEALS (deals per job, default 2: each job plays every deal
# at both seat rotations, in one match over the same bot processes), DATA (where the data
# directory goes, default a temporary directory under /tmp). Needs curl.
set -eu
DURAK=${DURAK:-target/release/durak}
RUN=${SECONDS_PER_RUN:-10}
RUNS=${RUNS:-3}
LOCAL=${LOCAL:-0}
DEALS=${DEALS:-2}
[ -x "$DURAK" ] || { echo "$DURAK: build it first: cargo build --release -p durak" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }
tmp=$(mktemp -d "${DATA:-/tmp}/durak-bench-workers.XXXXXX")
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
if [ "$LOCAL" = 1 ]; then
    play="--concurrency 1"
else
    play="--no-local-play"
fi
# shellcheck disable=SC2086
"$DURAK" serve --data-dir "$tmp/data" --listen 127.0.0.1:0 --sandbox default $play --deals "$DEALS" \
    --house-bots builtin:greedy,builtin:random >/dev/null 2>"$tmp/log" &
pids="$!"
i=0
until grep -q "organiser token" "$tmp/log"; do
    i=$((i + 1)); [ $i -lt 200 ] || { cat "$tmp/log" >&2; exit 1; }
    sleep 0.1
done
url=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\)\/.*/\1/p' "$tmp/log" | head -1)
org=$(sed -n 's/^organiser token[^:]*: \(dk_[0-9a-f]*\).*/\1/p' "$tmp/log" | head -1)
games() { curl -s "$url/api/status" | sed -n 's/.*"games":\([0-9]*\),.*/\1/p'; }
batches() { # the recorder's group commits so far: games per commit
    curl -s "$url/api/status" | sed -n 's/.*"commits":\([0-9]*\),"committed_games":\([0-9]*\).*/\1 \2/p' |
        awk '{ printf "%d commits for %d games (%.2f games per commit)", $1, $2, $1 ? $2 / $1 : 0 }'
}
rate() { # games per second over $1 seconds
    g0=$(games); t0=$(date +%s.%N)
    sleep "$1"
    g1=$(games); t1=$(date +%s.%N)
    echo "$g0 $g1 $t0 $t1" | awk '{ printf "%.1f", ($2 - $1) / ($4 - $3) }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "server $url ($DEALS deals per job; $(nproc) cores; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$LOCAL" = 1 ]; then
    sleep 3
    all=""
    for r in $(seq "$RUNS"); do
        x=$(rate "$RUN"); all="$all $x"
        echo "run $r: local play, 1 table: $x games/s"
    done
    echo "median: $(echo "$all" | median) games/s (local play, 1 table)"
    echo "recorder: $(batches || echo "no figures from this binary")"
    exit 0
fi
token() {
    curl -s -X POST -H "Authorization: Bearer $org" -H 'Content-Type: application/json' \
        -d "{\"label\":\"$1\"}" "$url/api/worker-tokens" | sed -n 's/.*"token":"\(dk_[0-9a-f]*\)".*/\1/p'
}
start_worker() { # $1: label; sets $wpid
    t=$(token "$1")
    "$DURAK" worker --server "$url" --token "$t" --sandbox default \
        --cache "$tmp/cache-$1" >/dev/null 2>"$tmp/worker-$1.log" &
    wpid=$!
    pids="$pids $wpid"
}
stop_worker() {
    kill -TERM "$1"
    wait "$1" 2>/dev/null || true
}
one="" two=""
for r in $(seq "$RUNS"); do
    start_worker "r$r-a"; w1=$wpid
    sleep 3
    x=$(rate "$RUN"); one="$one $x"
    start_worker "r$r-b"; w2=$wpid
    sleep 3
    y=$(rate "$RUN"); two="$two $y"
    stop_worker "$w2"; stop_worker "$w1"
    echo "run $r: 1 worker $x games/s, 2 workers $y games/s"
done
m1=$(echo "$one" | median); m2=$(echo "$two" | median)
echo "median: 1 worker $m1 games/s, 2 workers $m2 games/s, ratio $(echo "$m1 $m2" | awk '{ printf "%.2f", $2 / $1 }')"
echo "recorder: $(batches)"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
