#!/bin/bash
# service/bench/upload.sh: what an upload costs the server (issue 24: unpack it once), for bots of FILES
# files of 1 KiB (default "2 100 1000"): the time of `POST /api/submit` until its 201 (unpack, hash,
# fsync, keep: curl's time_total), and the time from upload to the end of its check (the checker's
# work; the bot exits at once, so its check fails in its first game and little else is counted).
# RUNS uploads of each (default 9), medians. The organiser uploads (no quota); the ladder of house
# bots plays meanwhile, as on a real server. Usage: service/bench/upload.sh [DURAK] (default
# target/release/durak); WORK=/tmp/durak-upload-bench.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); D=${1:-$ROOT/target/release/durak}; W=${WORK:-/tmp/durak-upload-bench}
RUNS=${RUNS:-9}; FILES=${FILES:-2 100 1000}
rm -rf $W; mkdir -p $W
$D serve --listen 127.0.0.1:0 --sandbox default --data-dir $W/data 2> $W/serve.log > $W/serve.out &
SP=$!
trap 'kill -TERM $SP 2>/dev/null; wait $SP' EXIT
for i in $(seq 100); do grep -q "organiser token" $W/serve.log $W/serve.out 2>/dev/null && break; sleep 0.1; done
URL=$(grep -ho 'http://127.0.0.1:[0-9]*' $W/serve.log $W/serve.out | head -1)
ORG=$(grep -ho 'dk_[0-9a-f]\{64\}' $W/serve.log $W/serve.out | head -1)
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for n in $FILES; do
  b=$W/bot$n; mkdir -p $b
  printf 'name = "b%s"\ncommand = "sh bot.sh"\nlanguage = "sh"\nauthor = "x"\n' $n > $b/bot.toml
  echo 'exit 0' > $b/bot.sh
  for i in $(seq 3 $n); do head -c 1024 /dev/urandom > $b/data$i; done
  tar czf $W/bot$n.tar.gz -C $b .
  : > $W/post$n; : > $W/check$n
  for r in $(seq $RUNS); do
    curl -s -o $W/answer -w '%{time_total}\n' -H "Authorization: Bearer $ORG" \
      -H 'Content-Type: application/gzip' --data-binary @$W/bot$n.tar.gz $URL/api/submit >> $W/post$n
    api=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["api"])' $W/answer)
    while :; do
      v=$(curl -s $URL$api)
      s=$(echo "$v" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')
      case $s in queued|building|checking) sleep 0.05;; *) break;; esac
    done
    echo "$v" | python3 -c 'import json,sys; v=json.load(sys.stdin); print(v["checked"]-v["submitted"])' >> $W/check$n
  done
  echo "$n files ($(du -k $W/bot$n.tar.gz | cut -f1) KiB archive): POST /api/submit median $(median < $W/post$n) s, upload to checked median $(median < $W/check$n) ms ($RUNS uploads)"
done
