#!/usr/bin/env bash
# Games an SPRT needs (docs/BENCHMARKS.md, "Games an SPRT needs"): one pair of bots, on paired
# duplicate deals (`durak tournament --format gauntlet --sprt`, which stops itself) and unpaired
# (a round-robin of the same two bots, independent deals, played to the cap; the
# tournaments crate's example `sprt_stop` says after how many games the same test over single
# games would have stopped). Not a test: a measurement, quoted with the command.
#   scripts/sprt-games.sh PAIR CAP DIR SEED...
# PAIR: heuristic-random (the Python heuristic sample bot against builtin:random) or
# greedy-greedy (builtin:greedy against itself); CAP: the most games of a run (both tests);
# DIR: where the tournaments go (must not exist). SPRT: H0 0 Elo, H1 20 Elo, alpha = beta = 0.05
# (SPRT=elo0,elo1[,alpha,beta] to change). DURAK: the binary (default target/debug/durak);
# SPRT_STOP: the example (default target/debug/examples/sprt_stop; build it with
# `cargo build -p durak-tournaments --example sprt_stop`).
# Prints one line per run: PAIR SEED paired|unpaired GAMES H0|H1|undecided.
set -euo pipefail
PAIR=$1; CAP=$2; DIR=$3; shift 3
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURAK=${DURAK:-$ROOT/target/debug/durak}
SPRT_STOP=${SPRT_STOP:-$ROOT/target/debug/examples/sprt_stop}
SPRT=${SPRT:-0,20}
[ ! -e "$DIR" ] || { echo "$DIR exists" >&2; exit 2; }
mkdir -p "$DIR"
case $PAIR in
  heuristic-random)
    A='name = "heuristic"
command = "python3 heuristic_bot.py"
cwd = "'"$ROOT"'/sample-bots/python"'
    B='name = "random"
command = "builtin:random"';;
  greedy-greedy)
    A='name = "greedy-a"
command = "builtin:greedy"'
    B='name = "greedy-b"
command = "builtin:greedy"';;
  *) echo "PAIR: heuristic-random or greedy-greedy" >&2; exit 2;;
esac
CHALLENGER=$(printf '%s\n' "$A" | sed -n 's/^name = "\(.*\)"/\1/p')
PER=$((CAP / 2))   # two seatings of the two bots: CAP games
for SEED in "$@"; do
  for MODE in paired unpaired; do
    conf=$DIR/$MODE-$SEED.toml
    if [ "$MODE" = paired ]; then
      FORMAT='format = "gauntlet"
challenger = "'"$CHALLENGER"'"'
      EXTRA=(--sprt "$SPRT")
    else
      FORMAT='format = "round-robin"'
      EXTRA=()
    fi
    printf '[tournament]\nname = "%s"\n%s\ngames = %d\nseed = %d\nmax_consecutive_faults = 0\n\n[[bot]]\n%s\n\n[[bot]]\n%s\n' \
      "$PAIR-$MODE" "$FORMAT" "$PER" "$SEED" "$A" "$B" >"$conf"
    "$DURAK" tournament -q -c "$conf" --out "$DIR/$MODE-$SEED" "${EXTRA[@]}" >/dev/null 2>"$DIR/$MODE-$SEED.log"
    line=$("$SPRT_STOP" "$DIR/$MODE-$SEED" "$CHALLENGER" "$SPRT")
    games=$(sed -n 's/.* after \([0-9]*\) games.*/\1/p' <<<"$line")
    case $line in
      *"decided after"*"(H0"*) verdict=H0;;
      *"decided after"*"(H1"*) verdict=H1;;
      *) verdict=undecided;;
    esac
    if [ "$MODE" = paired ]; then
      # The tournament stopped where its own SPRT decided: the same count as the re-count.
      played=$(wc -l <"$DIR/$MODE-$SEED/results.jsonl")
      [ "$verdict" = undecided ] || [ "$played" -eq "$games" ] || {
        echo "paired $SEED: the tournament played $played games, the re-count says $games" >&2
        exit 1
      }
    fi
    echo "$PAIR $SEED $MODE $games $verdict"
  done
done
