#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, in a directory of its own (tests/slurm.rs drives
# it): munged, slurmctld and slurmd with a generated slurm.conf (no cgroups: proctrack/linuxproc,
# task/none), then deploy/slurm/submit.sh of a tournament in N shards, waiting (bounded) for the
# merge job. Every daemon is stopped on exit, by the pid it was started with.
#   tests/slurm/single-node.sh WORK DURAK CONFIG N TIMEOUT_SECS
# Needs root (the daemons run as root here) and Debian's slurm-wlm and munge.
set -euo pipefail
WORK=$1; DURAK=$2; CONFIG=$3; N=$4; TIMEOUT=${5:-120}
repo=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$WORK"/{state,spool,munge,out}
chmod 700 "$WORK/munge"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# munge: a key of our own, a socket of our own.
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$WORK/munge/munge.key"
sock="$WORK/munge/munge.socket"
munged --foreground --force --socket="$sock" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/munge/munged.log" \
  --seed-file="$WORK/munge/munged.seed" 2>>"$WORK/munge/stderr" &
pids+=($!)
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "munged did not start: $(cat "$WORK/munge/stderr" "$WORK/munge/munged.log" 2>/dev/null)" >&2; exit 1; }

host=$(hostname -s)
cpus=$(nproc)
cat > "$WORK/slurm.conf" <<CONF
ClusterName=durak-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=600
NodeName=durak-node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=durak-node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$WORK/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$WORK/slurmctld.stderr" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N durak-node >"$WORK/slurmd.stderr" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 100); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then up=1; break; fi
  sleep 0.2
done
if [ -z "$up" ]; then
  echo "the cluster did not come up: sinfo says $(sinfo -h 2>&1)" >&2
  tail -n 20 "$WORK"/slurmctld.log "$WORK"/slurmd.log "$WORK"/*.stderr >&2 2>/dev/null || true
  exit 1
fi
echo "cluster up: $(sinfo -h -o '%P %D %T %c')"

# The tournament: N shards as a job array, then the merge.
read -r array merge < <(DURAK="$DURAK" "$repo/deploy/slurm/submit.sh" "$CONFIG" "$WORK/out" "$N" \
  --cpus-per-task=1)
echo "submitted: array $array, merge $merge"
state=""
for _ in $(seq $((TIMEOUT * 5))); do
  state=$(scontrol show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1)
  case "$state" in
    COMPLETED) break ;;
    FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;;
  esac
  sleep 0.2
done
echo "merge job $merge: $state"
for f in "$WORK"/out/durak-*.out; do echo "== $f"; cat "$f"; done
if [ "$state" != COMPLETED ]; then
  scontrol show job "$array" >&2 || true
  tail -n 30 "$WORK"/slurmctld.log "$WORK"/slurmd.log >&2 || true
  exit 1
fi
