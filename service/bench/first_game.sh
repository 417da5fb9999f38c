#!/bin/bash
# service/bench/first_game.sh: time from upload to first rated game (release build, default config, strict sandbox), and
# replay bytes per game of the ladder. Usage: service/bench/first_game.sh [DURAK] (default target/release/durak); WORK=/tmp/durak-first-game by default.
# WORKERS=1: the server plays nothing itself (--no-local-play); two `durak worker` processes (same sandbox) play the ladder.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); D=${1:-$ROOT/target/release/durak}; W=${WORK:-/tmp/durak-first-game}; rm -rf $W; mkdir -p $W
PLAY=""; [ "${WORKERS:-0}" = 1 ] && PLAY="--no-local-play"
$D serve --listen 127.0.0.1:0 --data-dir $W/data $PLAY 2> $W/serve.log &
SP=$!
for i in $(seq 100); do grep -q "organiser token" $W/serve.log && break; sleep 0.1; done
URL=$(sed -n 's|.*listening on \(http://[0-9.:]*\)/.*|\1|p' $W/serve.log)
ORG=$(grep -o 'dk_[0-9a-f]*' $W/serve.log | head -1)
WP=""
if [ "${WORKERS:-0}" = 1 ]; then
  for w in a b; do
    WT=$(curl -s -X POST -H "Authorization: Bearer $ORG" -H 'Content-Type: application/json' -d "{\"label\":\"$w\"}" $URL/api/worker-tokens | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
    $D worker --server $URL --token $WT --cache $W/cache-$w 2> $W/worker-$w.log &
    WP="$WP $!"
  done
fi
INV=$(curl -s -X POST -H "Authorization: Bearer $ORG" $URL/api/invites | python3 -c 'import json,sys; print(json.load(sys.stdin)["invite"])')
TOK=$(curl -s -X POST -d "{\"name\":\"ada\",\"invite\":\"$INV\"}" $URL/api/accounts | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
sleep 20   # the house bots' ladder runs a while first
for n in 1 2 3; do
  B=$W/py$n; mkdir -p $B; cp $ROOT/sample-bots/python/random_bot.py $B/
  printf 'name = "py%s"\ncommand = "python3 random_bot.py"\nlanguage = "python"\nauthor = "ada"\n' $n > $B/bot.toml
  t0=$(date +%s%3N)
  $D submit --server $URL --token $TOK $B --wait-s 0 > /dev/null 2>&1
  t1=$(date +%s%3N)
  while :; do
    r=$(curl -s $URL/api/leaderboard | python3 -c "import json,sys; rows=json.load(sys.stdin)['rows']; print(next((r['games'] for r in rows if r['bot']=='py$n'), 0))")
    [ "$r" -gt 0 ] && break; sleep 0.02
  done
  t2=$(date +%s%3N)
  v=$(curl -s $URL/api/bots/py$n/versions/1)
  echo "py$n: upload acknowledged $((t1-t0)) ms; first rated game (on the leaderboard) $((t2-t0)) ms after the upload began; $(echo "$v" | python3 -c 'import json,sys; v=json.load(sys.stdin); print("checked->entered", v["entered"]-v["submitted"], "ms after submit; first game recorded", v["first_game"]-v["entered"], "ms after entering")')"
done
sleep 30
for p in $WP; do kill -TERM $p; done
kill -TERM $SP; wait $SP
python3 - $W/data <<'PY'
import sqlite3, os, sys
d = sys.argv[1]
c = sqlite3.connect(os.path.join(d, "service.db"))
n, size, zst = c.execute("select count(*), sum(length(bytes)), sum(substr(bytes, 1, 4) = x'28b52ffd') from game_replays").fetchone()
db = sum(os.path.getsize(os.path.join(d, f)) for f in ("service.db", "service.db-wal") if os.path.exists(os.path.join(d, f)))
print(f"{n} games ({zst} zstd): {size/n:.0f} bytes of replay a game; the database {db/n/1024:.2f} KiB a game, every row and replay")
PY
