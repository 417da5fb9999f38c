#!/bin/sh
# Load benchmark of `durak serve` (issue 14), bounded in time: a server on loopback with its
# ladder playing (house bots, 1 table), then wrk with 100 connections on the JSON leaderboard,
# the HTML leaderboard and a version page, one after the other. Prints the ladder's games per
# second without load and during each run, and wrk's latency percentiles.
#
#   cargo build --release --bin durak && service/bench/load.sh
#
# Environment: DURAK (the binary, default target/release/durak), SECONDS_PER_RUN (default 20),
# CONNECTIONS (default 100), THREADS (wrk's, default 2). Needs wrk (apt-get install wrk) and curl.
set -eu
DURAK=${DURAK:-target/release/durak}
RUN=${SECONDS_PER_RUN:-20}
CONN=${CONNECTIONS:-100}
THREADS=${THREADS:-2}
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 2; }
[ -x "$DURAK" ] || { echo "$DURAK: build it first: cargo build --release --bin durak" >&2; exit 2; }
tmp=$(mktemp -d)
"$DURAK" serve --data-dir "$tmp/data" --listen 127.0.0.1:0 --concurrency 1 --sandbox default \
    --house-bots builtin:greedy,builtin:random 2>"$tmp/log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
i=0
until grep -q "listening on" "$tmp/log"; do
    i=$((i + 1)); [ $i -lt 100 ] || { cat "$tmp/log" >&2; exit 1; }
    sleep 0.1
done
url=$(sed -n 's/.*listening on \(http:\/\/[0-9.:]*\)\/.*/\1/p' "$tmp/log" | head -1)
games() { curl -s "$url/api/status" | sed -n 's/.*"games":\([0-9]*\),.*/\1/p'; }
rate() { # games per second over $1 seconds, with $2 running meanwhile (or nothing)
    g0=$(games); t0=$(date +%s.%N)
    sleep "$1"
    g1=$(games); t1=$(date +%s.%N)
    echo "$g0 $g1 $t0 $t1" | awk '{ printf "%.1f", ($2 - $1) / ($4 - $3) }'
}
echo "server $url (ladder: 1 table, house bots greedy and random; $(nproc) cores)"
sleep 3
echo "ladder without load: $(rate "$RUN") games/s"
for path in /api/leaderboard / /bots/house-greedy/versions/1; do
    wrk -t"$THREADS" -c"$CONN" -d"${RUN}s" --latency "$url$path" >"$tmp/wrk" &
    w=$!
    r=$(rate "$RUN")
    wait $w
    req=$(sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' "$tmp/wrk")
    p50=$(awk '$1 == "50%" { print $2 }' "$tmp/wrk")
    p99=$(awk '$1 == "99%" { print $2 }' "$tmp/wrk")
    errors=$(grep -E "Non-2xx|Socket errors" "$tmp/wrk" || true)
    echo "GET $path with $CONN connections: $req requests/s, p50 $p50, p99 $p99; ladder meanwhile: $r games/s ${errors:+($errors)}"
done
