#!/usr/bin/env bash
# Submit a durak tournament to Slurm: a job array of N shards, then the merge once every shard
# succeeded. Prints the two job ids (array, merge).
#   deploy/slurm/submit.sh CONFIG OUT N [extra sbatch options...]
# DURAK (default: durak on PATH) must be reachable on every node; OUT must be a directory every
# node sees (a shared file system).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 CONFIG OUT N [sbatch options...]" >&2
  exit 2
fi
CONFIG=$(realpath "$1"); OUT=$(realpath -m "$2"); N=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
export DURAK=${DURAK:-durak} CONFIG OUT SHARDS=$N
array=$(sbatch --parsable --array=0-$((N - 1)) --chdir="$OUT" "$@" "$here/shards.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes \
  --chdir="$OUT" "$@" "$here/merge.sbatch")
echo "$array ${merge%%;*}"
