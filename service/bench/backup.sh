#!/bin/bash
# service/bench/backup.sh: `durak backup` time and size for a data directory of many games (issue 24).
# A short ladder plays real games, then (server stopped) its games are multiplied to GAMES rows (default
# 100000), each with a replay file of its own (copies of the real ones), as a long-running ladder leaves them;
# then `durak backup` runs while a server serves it. Usage: service/bench/backup.sh [DURAK] (default
# target/release/durak); GAMES=100000 WORK=/tmp/durak-backup-bench by default.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd); D=${1:-$ROOT/target/release/durak}; W=${WORK:-/tmp/durak-backup-bench}
GAMES=${GAMES:-100000}
rm -rf $W; mkdir -p $W
$D serve --listen 127.0.0.1:0 --sandbox default --deals 4 --data-dir $W/data 2> $W/serve.log &
SP=$!
sleep 15
kill -TERM $SP; wait $SP || true
python3 - $W/data $GAMES <<'PY'
import sqlite3, os, sys, shutil
d, want = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(os.path.join(d, "service.db"))
rows = c.execute("select job, game, rotation, deal, seats, seed, dealer, loser, draw, faults, moves, duration_ms, move_limit, replay, recorded, played_by from games").fetchall()
assert rows, "the ladder played no game"
job = c.execute("select max(id) from jobs").fetchone()[0]
seats = rows[0][4]
n = len(rows)
while n < want:
    job += 1
    c.execute("insert into jobs(id, kind, seats, deals, state, created, finished) values (?, 'ladder', ?, '[]', 'done', 0, 0)", (job, seats))
    for g in range(100):
        r = rows[(n + g) % len(rows)]
        rel = f"replays/j{job}/g{g:04}.jsonl" + (".zst" if r[13].endswith(".zst") else "")
        os.makedirs(os.path.join(d, f"replays/j{job}"), exist_ok=True)
        shutil.copyfile(os.path.join(d, r[13]), os.path.join(d, rel))
        c.execute("insert into games values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (job, g) + r[2:13] + (rel, r[14], r[15]))
    n += 100
c.commit()
print(f"{n} games in the data directory")
PY
du -sh $W/data
$D serve --listen 127.0.0.1:0 --sandbox default --deals 4 --data-dir $W/data 2> $W/serve2.log &
SP=$!
sleep 3
/usr/bin/time -f "durak backup: %e s wall, %M KB max RSS" $D backup --data-dir $W/data --out $W/copy
kill -TERM $SP; wait $SP || true
echo "backup on disk: $(du -sh $W/copy | cut -f1) (replays and uploads hard-linked: du counts a linked file once, in whichever tree it meets it first)"
du -sh --apparent-size $W/copy/service.db
