#!/bin/bash
# service/bench/backup.sh: `durak backup` time and size, and the cost of a `/metrics` scrape, for a data
# directory of many games (issue 24).
#
# How the data directory is made: a short ladder plays real games (house bots, 2 seats); then, with the
# server stopped, its games are multiplied to GAMES rows (default 100000) by SQL, in jobs of 100 games
# copied from its real ones (every column of `jobs`, `games` and `game_seats` as the server wrote them,
# only the job and the replay's name new), each game with a replay of its own in `game_replays` (a
# copy of a real one), as a long-running ladder leaves them. Then a server serves it, and while it runs:
#   - `durak backup --data-dir DATA --out COPY` RUNS times (default 3), each to a new COPY: the wall time
#     and peak memory of each, their median, and the copy's size (du);
#   - SCRAPES scrapes of `GET /metrics` (default 100) with the organiser's token, timed by curl: median
#     and 90th percentile.
# Usage: service/bench/backup.sh [DURAK] (default target/release/durak); GAMES, RUNS, SCRAPES, and
# WORK=/tmp/durak-backup-bench by default.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd); D=${1:-$ROOT/target/release/durak}; W=${WORK:-/tmp/durak-backup-bench}
GAMES=${GAMES:-100000}; RUNS=${RUNS:-3}; SCRAPES=${SCRAPES:-100}
rm -rf $W; mkdir -p $W
$D serve --listen 127.0.0.1:0 --sandbox default --deals 4 --data-dir $W/data 2> $W/serve.log > $W/serve.out &
SP=$!
sleep 15
kill -TERM $SP; wait $SP || true
TOKEN=$(grep -ho 'dk_[0-9a-f]\{64\}' $W/serve.out $W/serve.log | head -1)
python3 - $W/data $GAMES <<'PY'
import sqlite3, os, sys
d, want = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(os.path.join(d, "service.db"))
cols = lambda t: [r[1] for r in c.execute(f"pragma table_info({t})")]
gcols, jcols = cols("games"), cols("jobs")
rows = c.execute(f"select {','.join(gcols)} from games").fetchall()
assert rows, "the ladder played no game"
seats = {}
for job, game, version, seat in c.execute("select job, game, version, seat from game_seats"):
    seats.setdefault((job, game), []).append((version, seat))
jobrow = dict(zip(jcols, c.execute(f"select {','.join(jcols)} from jobs where id = ?", (rows[0][0],)).fetchone()))
gi = {k: i for i, k in enumerate(gcols)}
job = c.execute("select max(id) from jobs").fetchone()[0]
n = len(rows)
ins_game = f"insert into games ({','.join(gcols)}) values ({','.join('?' * len(gcols))})"
ins_job = f"insert into jobs ({','.join(jcols)}) values ({','.join('?' * len(jcols))})"
while n < want:
    job += 1
    jr = dict(jobrow, id=job, state="done")
    c.execute(ins_job, [jr[k] for k in jcols])
    for g in range(100):
        r = list(rows[(n + g) % len(rows)])
        src = r[gi["replay"]]
        rel = f"db:replays/j{job}/g{g:04}.jsonl" + (".zst" if src.endswith(".zst") else "")
        key = (r[gi["job"]], r[gi["game"]])
        c.execute("insert into game_replays (job, game, bytes) select ?, ?, bytes from game_replays where job = ? and game = ?", (job, g) + key)
        r[gi["job"]], r[gi["game"]], r[gi["replay"]] = job, g, rel
        c.execute(ins_game, r)
        for version, seat in seats.get(key, []):
            c.execute("insert into game_seats (version, job, game, seat) values (?, ?, ?, ?)", (version, job, g, seat))
    n += 100
c.commit()
print(f"{n} games in the data directory")
PY
echo "data directory: $(du -sh $W/data | cut -f1) on disk, $(du -sh $W/data/service.db | cut -f1) of it the database with every replay"
$D serve --listen 127.0.0.1:0 --sandbox default --deals 4 --data-dir $W/data 2> $W/serve2.log > $W/serve2.out &
SP=$!
for _ in $(seq 100); do grep -q 'listening on' $W/serve2.out $W/serve2.log 2>/dev/null && break; sleep 0.1; done
URL=$(grep -ho 'http://127.0.0.1:[0-9]*' $W/serve2.out $W/serve2.log | head -1)
for i in $(seq $RUNS); do
  /usr/bin/time -f "%e %M" -o $W/time.$i $D backup --data-dir $W/data --out $W/copy$i > /dev/null
  echo "durak backup run $i: $(cut -d' ' -f1 $W/time.$i) s wall, $(cut -d' ' -f2 $W/time.$i) KB max RSS"
done
echo "durak backup: median $(cat $W/time.* | cut -d' ' -f1 | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p") s of $RUNS runs"
for i in $(seq $SCRAPES); do
  curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $TOKEN" $URL/metrics
done | sort -n > $W/scrapes
echo "GET /metrics: median $(sed -n "$(( (SCRAPES + 1) / 2 ))p" $W/scrapes) s, p90 $(sed -n "$(( SCRAPES * 9 / 10 ))p" $W/scrapes) s over $SCRAPES scrapes (curl time_total)"
curl -s -H "Authorization: Bearer $TOKEN" $URL/metrics | grep -E '^durak_games_recorded_total|^durak_jobs\{state="done"\}'
kill -TERM $SP; wait $SP || true
echo "backup on disk: $(du -sh $W/copy1 | cut -f1) (uploads hard-linked: du counts a linked file once, in whichever tree it meets it first)"
echo "backup apart from the original: $(du -sh $W/data $W/copy1 | tail -1 | cut -f1) more than the original"
du -sh --apparent-size $W/copy1/service.db
