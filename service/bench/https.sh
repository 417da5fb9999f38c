#!/bin/sh
# HTTPS beside plain HTTP (issue 22), bounded in time: `durak serve` on loopback twice, once
# plain and once with --tls-cert/--tls-key (a self-signed P-256 certificate made here with
# openssl), its ladder playing (house bots, 1 table); wrk with 100 connections on the JSON
# leaderboard and a version page over each. wrk keeps its connections open, so this measures
# requests on established TLS sessions (encryption), not handshakes. Prints requests/s, p50 and
# p99 per run.
#
#   cargo build --release --bin durak && service/bench/https.sh
#
# Environment: DURAK (the binary, default target/release/durak), SECONDS_PER_RUN (default 15),
# CONNECTIONS (default 100), THREADS (wrk's, default 2). Needs wrk (apt-get install wrk),
# openssl and curl. Listens on 127.0.0.1 only.
set -eu
DURAK=${DURAK:-target/release/durak}
RUN=${SECONDS_PER_RUN:-15}
CONN=${CONNECTIONS:-100}
THREADS=${THREADS:-2}
command -v wrk >/dev/null || { echo "needs wrk: apt-get install wrk" >&2; exit 2; }
command -v openssl >/dev/null || { echo "needs openssl: apt-get install openssl" >&2; exit 2; }
[ -x "$DURAK" ] || { echo "$DURAK: build it first: cargo build --release --bin durak" >&2; exit 2; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null

run() { # $1: plain or tls
    data="$tmp/data-$1"
    : >"$tmp/log-$1"
    if [ "$1" = tls ]; then tls="--tls-cert $tmp/cert.pem --tls-key $tmp/key.pem"; else tls=; fi
    # shellcheck disable=SC2086 # $tls is two flags or none
    "$DURAK" serve --data-dir "$data" --listen 127.0.0.1:0 --concurrency 1 --sandbox default \
        --house-bots builtin:greedy,builtin:random $tls 2>"$tmp/log-$1" &
    pid=$!
    i=0
    until grep -q "listening on" "$tmp/log-$1"; do
        i=$((i + 1)); [ $i -lt 100 ] || { cat "$tmp/log-$1" >&2; exit 1; }
        sleep 0.1
    done
    url=$(sed -n 's/.*listening on \(https*:\/\/[0-9.:]*\)\/.*/\1/p' "$tmp/log-$1" | head -1)
    sleep 3
    for path in /api/leaderboard /bots/house-greedy/versions/1; do
        wrk -t"$THREADS" -c"$CONN" -d"${RUN}s" --latency "$url$path" >"$tmp/wrk"
        req=$(sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' "$tmp/wrk")
        p50=$(awk '$1 == "50%" { print $2 }' "$tmp/wrk")
        p99=$(awk '$1 == "99%" { print $2 }' "$tmp/wrk")
        errors=$(grep -E "Non-2xx|Socket errors" "$tmp/wrk" || true)
        echo "$1 GET $path with $CONN connections: $req requests/s, p50 $p50, p99 $p99 ${errors:+($errors)}"
    done
    kill $pid; wait $pid 2>/dev/null || true; pid=
}
echo "durak serve on 127.0.0.1, ladder: 1 table, house bots; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
run plain
run tls
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
