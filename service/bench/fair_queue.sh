#!/bin/bash
# service/bench/fair_queue.sh: how long an author's Python bot takes from upload to a passed check,
# alone and while another author's 90 s build runs (release build, default configuration: strict
# sandbox, [check] concurrency = the cores). Usage: service/bench/fair_queue.sh [DURAK] (default
# target/release/durak); WORK=/tmp/durak-fair-queue, BUILD_S=90, RUNS=3 by default.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); D=${1:-$ROOT/target/release/durak}; W=${WORK:-/tmp/durak-fair-queue}
BUILD_S=${BUILD_S:-90}; RUNS=${RUNS:-3}
rm -rf $W; mkdir -p $W
$D serve --listen 127.0.0.1:0 --data-dir $W/data 2> $W/serve.log &
SP=$!
trap 'kill -TERM $SP 2>/dev/null; wait $SP' EXIT
for i in $(seq 100); do grep -q "organiser token" $W/serve.log && break; sleep 0.1; done
URL=$(sed -n 's|.*listening on \(http://[0-9.:]*\)/.*|\1|p' $W/serve.log)
ORG=$(grep -o 'dk_[0-9a-f]*' $W/serve.log | head -1)
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
author() {
  local inv; inv=$(curl -s -X POST -H "Authorization: Bearer $ORG" $URL/api/invites | json '["invite"]')
  curl -s -X POST -d "{\"name\":\"$1\",\"invite\":\"$inv\"}" $URL/api/accounts | json '["token"]'
}
ADA=$(author ada); BOB=$(author bob)
bot() { # NAME [BUILD]: a folder with the Python sample bot
  local b=$W/$1; mkdir -p $b; cp $ROOT/sample-bots/python/random_bot.py $b/
  printf 'name = "%s"\ncommand = "python3 random_bot.py"\nlanguage = "python"\nauthor = "x"\n' $1 > $b/bot.toml
  [ -n "${2:-}" ] && printf 'build = "%s"\n' "$2" >> $b/bot.toml
  echo $b
}
state() { curl -s $URL/api/bots/$1/versions/1 | json '["state"]'; }
# Upload NAME as TOKEN, wait for its check: prints the ms from submitted to checked.
check_ms() {
  $D submit --server $URL --token $2 $(bot $1) --wait-s 0 > /dev/null 2>&1
  while :; do s=$(state $1); case $s in queued|building|checking) sleep 0.1;; *) break;; esac; done
  curl -s $URL/api/bots/$1/versions/1 | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["state"], v["checked"]-v["submitted"])'
}
sleep 10   # the house bots' ladder runs a while first
for n in $(seq $RUNS); do
  echo "alone $n: $(check_ms alone$n $BOB) ms"
  $D submit --server $URL --token $ADA $(bot slow$n "sleep $BUILD_S") --wait-s 0 > /dev/null 2>&1
  while [ "$(state slow$n)" != building ]; do sleep 0.1; done
  echo "during ada's ${BUILD_S} s build $n: $(check_ms during$n $BOB) ms (ada's build then: $(state slow$n))"
  while [ "$(state slow$n)" = building ]; do sleep 1; done
done
