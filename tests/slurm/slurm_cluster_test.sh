#!/bin/bash
# Issue #38: tools/slurm/kdbgen-slurm-build on a real single-node Slurm cluster started here.
#
#   tests/slurm/slurm_cluster_test.sh KDBGEN [--miopen-src DIR] [--miopen-root DIR] [--find-db-dir DIR]
#
# Starts munge (a fresh key) and Debian's slurmctld and slurmd with a generated slurm.conf (one node
# with this machine's CPUs and memory, every state, spool, log and socket file in one temporary
# folder, no systemd, no cgroups, no accounting daemon) and, on it, runs the recipe with 4 shards:
#   (a) kdbgen's demo kernels; shard 2 is cancelled mid-run (scancel <array>_2) and must be
#       resubmitted by the chain;
#   (b) a native build for gfx1030_36 over the first lines of its find-db (needs a MIOpen tree);
#   (c) an engine build with Debian's MIOpen 3.4.0 root (tools/miopen-roots);
#   (d) a chain whose shards always fail: it must end failed, with no kdb.
# (a)-(c) compare the merged kdbs byte for byte (cmp) with one unsharded build done directly.
# Stops and removes everything at the end, whatever happened. Exit 0 passed, 1 failed, 77 skipped
# (not root, slurm-wlm or munge missing, the daemons cannot start here).
# Defaults: --miopen-src $KDBGEN_MIOPEN_SRC, --miopen-root $KDBGEN_MIOPEN_ROOTS/sid (else
# build-miopen/sid of this checkout), --find-db-dir $KDBGEN_SHARED_DB_DIR (else ../shared/miopen-db
# next to the checkout). KDBGEN_SLURM_TEST_KEEP=1 keeps the temporary folder (daemons still stop).
set -uo pipefail

me=slurm_cluster_test
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
recipe=$source_dir/tools/slurm/kdbgen-slurm-build
SHARDS=4
DEMO_TARGETS=gfx900_56,gfx906_60,gfx908_120,gfx90a_110,gfx942_304,gfx1030_36,gfx1100_48,gfx1200_32
FDB_LINES=${KDBGEN_SLURM_TEST_FDB_LINES:-60}
ENGINE_TARGET=${KDBGEN_SLURM_TEST_ENGINE_TARGET:-gfx1030}

log() { echo "$me: $*"; }
skip() { echo "$me: SKIPPED: $*"; exit 77; }
fail() { echo "$me: FAILED: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# --- arguments ---
kdbgen="" miopen_src=${KDBGEN_MIOPEN_SRC:-} miopen_root="" find_db_dir=${KDBGEN_SHARED_DB_DIR:-}
if [ -n "${KDBGEN_MIOPEN_ROOTS:-}" ]; then miopen_root=$KDBGEN_MIOPEN_ROOTS/sid; else miopen_root=$source_dir/build-miopen/sid; fi
[ -n "$find_db_dir" ] || find_db_dir=$source_dir/../shared/miopen-db
while [ $# -gt 0 ]; do
  case $1 in
    --miopen-src) miopen_src=${2:-}; shift 2 ;;
    --miopen-root) miopen_root=${2:-}; shift 2 ;;
    --find-db-dir) find_db_dir=${2:-}; shift 2 ;;
    -*) echo "usage: $0 KDBGEN [--miopen-src DIR] [--miopen-root DIR] [--find-db-dir DIR]" >&2; exit 2 ;;
    *) [ -z "$kdbgen" ] || { echo "$me: one kdbgen binary, please" >&2; exit 2; }; kdbgen=$1; shift ;;
  esac
done
[ -n "$kdbgen" ] || { echo "usage: $0 KDBGEN [--miopen-src DIR] [--miopen-root DIR] [--find-db-dir DIR]" >&2; exit 2; }
[ -x "$kdbgen" ] || fail "$kdbgen: no such executable"
kdbgen=$(cd "$(dirname "$kdbgen")" && pwd)/$(basename "$kdbgen")
[ -x "$recipe" ] || fail "$recipe: missing or not executable"

# --- can it run here? ---
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs jobs as their users; this test starts its own cluster as root)"
missing=()
for tool in munged mungekey munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  path=$(PATH=$PATH:/usr/sbin:/sbin type -P "$tool") && [ -f "$path" ] && [ -x "$path" ] || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] || skip "not installed: ${missing[*]} (Debian: apt-get install slurmctld slurmd slurm-client munge)"
export PATH=$PATH:/usr/sbin:/sbin

# Nothing of an outer Slurm (the test may itself run in a job) or of the caller's defaults.
for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SQUEUE|SINFO|SCANCEL|SALLOC|SRUN|SACCT)_'); do unset "$v"; done

T=$(mktemp -d "${TMPDIR:-/tmp}/kdbgen-slurm-test.XXXXXX") || fail "mktemp"
chmod 711 "$T"  # munged wants every folder above its socket searchable by all
mkdir -p "$T/munge" "$T/munge-run" "$T/etc" "$T/slurm/state" "$T/slurm/spool" "$T/slurm/run" "$T/log" "$T/tmp" \
         "$T/direct" "$T/shared" "$T/cache"
chmod 700 "$T/munge"; chmod 755 "$T/munge-run"
export SLURM_CONF=$T/etc/slurm.conf TMPDIR=$T/tmp XDG_CACHE_HOME=$T/xdg-cache
# Every process this test starts (daemons, and through them every job and what it runs) carries
# this variable, so the clean-up can find anything left over without guessing by name.
marker=KDBGEN_SLURM_TEST_RUN=$T
ctld_pid="" slurmd_pid="" munged_pid=""
t_start=$(now)
declare -A times=()
# One budget for everything, below ctest's TIMEOUT (1800), so that a hang still ends in the
# clean-up below and not in ctest's SIGKILL.
deadline=$(($(date +%s) + ${KDBGEN_SLURM_TEST_BUDGET:-1500}))
budget_left() {  # sets $limit: seconds left of the budget, at most $1; fails when none is left
  limit=$((deadline - $(date +%s)))
  [ "$limit" -gt 0 ] || fail "out of time: the test's budget of ${KDBGEN_SLURM_TEST_BUDGET:-1500} s is spent (KDBGEN_SLURM_TEST_BUDGET)"
  [ "$limit" -le "$1" ] || limit=$1
}

our_processes() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" != "$$" ] && [ "$p" != "${BASHPID:-}" ] || continue
    tr '\0' '\n' 2>/dev/null < "/proc/$p/environ" | grep -qxF "$marker" && echo "$p"
  done
}

dump() {
  echo "===== $me: diagnostics ($T) ====="
  for f in "$T"/log/*; do [ -f "$f" ] && { echo "--- $f (last 80 lines)"; tail -n 80 "$f"; }; done
  if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
    echo "--- squeue -t all"; squeue -t all -o '%.18i %.12j %.10T %.10M %.30R' 2>&1
    echo "--- scontrol show node"; scontrol show node 2>&1
    echo "--- sacct --completion (jobcomp/filetxt)"; sacct --completion -a -P -o jobid,jobname,state 2>/dev/null
  fi
  local d f
  for d in "$T"/shared/*/; do
    [ -d "$d/chain" ] || continue
    echo "--- $d chain/jobs"; cat "$d/chain/jobs" 2>/dev/null
    echo "--- $d chain/status"; cat "$d/chain/status" 2>/dev/null || echo "(none)"
    for f in "$d"/logs/*.log; do [ -f "$f" ] && { echo "--- $f (last 25 lines)"; tail -n 25 "$f" | cut -c1-300; }; done
  done
  echo "===== end of diagnostics ====="
}

stop_pid() {  # pid, seconds to wait after TERM
  local pid=$1 i
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < $2 * 10; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

cleanup() {
  local rc=$? i left
  trap - EXIT INT TERM HUP
  set +e
  [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || dump
  local t0; t0=$(now)
  if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
    scancel --quiet --user="$(id -un)" 2>/dev/null
    for ((i = 0; i < 150; i++)); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
    scontrol shutdown >/dev/null 2>&1
    for ((i = 0; i < 100; i++)); do
      kill -0 "$ctld_pid" 2>/dev/null || { [ -n "$slurmd_pid" ] && kill -0 "$slurmd_pid" 2>/dev/null; } || break
      sleep 0.2
    done
  fi
  stop_pid "$slurmd_pid" 5
  stop_pid "$ctld_pid" 5
  stop_pid "$munged_pid" 5
  # Anything still carrying this run's marker (a job step slurmd did not reap): ours; stop it.
  left=$(our_processes)
  if [ -n "$left" ]; then
    echo "$me: stopping leftover processes of this run: $(echo $left)"
    for i in $left; do echo "  $i: $(tr '\0' ' ' < /proc/$i/cmdline 2>/dev/null | cut -c1-150)"; done
    kill -KILL $left 2>/dev/null
    sleep 0.5
  fi
  left=$(our_processes)
  if [ -n "$left" ]; then
    echo "$me: FAILED: processes of this run survive the clean-up: $(echo $left)"
    [ "$rc" -ne 0 ] || rc=1
  fi
  if [ "${KDBGEN_SLURM_TEST_KEEP:-0}" = 1 ]; then
    echo "$me: kept $T (KDBGEN_SLURM_TEST_KEEP=1)"
  else
    rm -rf "$T"
  fi
  echo "$me: cluster stopped and removed in $(elapsed "$t0") s; total $(elapsed "$t_start") s"
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "$me: interrupted"; exit 130' INT TERM HUP

# --- munge, with a key of its own ---
t0=$(now)
mungekey --create --keyfile="$T/munge/munge.key" >/dev/null 2>"$T/log/mungekey.log" || skip "mungekey cannot create a key: $(cat "$T/log/mungekey.log")"
msock=$T/munge-run/munge.socket.2
env "$marker" munged --foreground --key-file="$T/munge/munge.key" --seed-file="$T/munge/munged.seed" \
  --pid-file="$T/munge-run/munged.pid" --socket="$msock" 2>"$T/log/munged.log" &
munged_pid=$!
for ((i = 0; i < 100; i++)); do [ -S "$msock" ] && break; kill -0 "$munged_pid" 2>/dev/null || break; sleep 0.1; done
munge --socket="$msock" --no-input 2>/dev/null | unmunge --socket="$msock" >/dev/null 2>&1 ||
  { cat "$T/log/munged.log"; skip "munged does not start here (log above)"; }

# --- slurm.conf: one node, this machine's CPUs and memory, everything under $T ---
free_port() {
  local p i
  for ((i = 0; i < 100; i++)); do
    p=$((20000 + RANDOM % 30000))
    [ "$p" != "${1:-}" ] || continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}
ctld_port=$(free_port) && slurmd_port=$(free_port "$ctld_port") || skip "no free TCP port found for slurmctld and slurmd"
host=$(hostname -s)
# slurmd -C: what slurmd finds on this machine (CPUs, sockets, cores, threads, memory in MB).
hw=$(slurmd -C 2>/dev/null | head -n 1)
[ -n "$hw" ] || skip "slurmd -C cannot describe this machine"
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<" $hw"; }
cpus=$(field CPUs) boards=$(field Boards) sockets=$(field SocketsPerBoard) cores=$(field CoresPerSocket) threads=$(field ThreadsPerCore) mem=$(field RealMemory)
[ -n "$cpus" ] && [ -n "$mem" ] || skip "cannot read CPUs and memory from slurmd -C: $hw"
cat > "$SLURM_CONF" <<EOF
# Generated by tests/slurm/slurm_cluster_test.sh: a throw-away single-node cluster.
ClusterName=kdbgentest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$msock
StateSaveLocation=$T/slurm/state
SlurmdSpoolDir=$T/slurm/spool
SlurmctldPidFile=$T/slurm/run/slurmctld.pid
SlurmdPidFile=$T/slurm/run/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$T/etc/plugstack.conf
# No systemd, no cgroups: processes tracked through their parents, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
# No slurmdbd (Debian 12's Slurm 22.05 has no file-based accounting storage; sacct needs slurmdbd
# and a MariaDB): finished jobs stay in slurmctld's memory for MinJobAge seconds, where squeue -t all
# and scontrol show job see their final state, and jobcomp/filetxt keeps a record of each.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$T/log/jobcomp.txt
MinJobAge=3600
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
KillWait=5
InactiveLimit=0
SlurmctldTimeout=60
SlurmdTimeout=60
NodeName=kdbgen-node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus Boards=${boards:-1} SocketsPerBoard=${sockets:-1} CoresPerSocket=${cores:-$cpus} ThreadsPerCore=${threads:-1} RealMemory=$mem State=UNKNOWN
# Each core may hold 4 jobs at once: the 4 shard tasks run side by side on a 2-core machine.
PartitionName=kdbgen Nodes=kdbgen-node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
: > "$T/etc/plugstack.conf"

env "$marker" slurmctld -D -f "$SLURM_CONF" > "$T/log/slurmctld.stderr" 2>&1 &
ctld_pid=$!
for ((i = 0; i < 300; i++)); do
  scontrol ping 2>/dev/null | grep -q 'is UP' && break
  kill -0 "$ctld_pid" 2>/dev/null || break
  sleep 0.2
done
scontrol ping 2>/dev/null | grep -q 'is UP' ||
  { tail -n 30 "$T/log/slurmctld.stderr" "$T/log/slurmctld.log" 2>/dev/null; skip "slurmctld does not start here (logs above)"; }
env "$marker" slurmd -D -f "$SLURM_CONF" -N kdbgen-node > "$T/log/slurmd.stderr" 2>&1 &
slurmd_pid=$!
state=""
for ((i = 0; i < 450; i++)); do
  state=$(sinfo -h -N -n kdbgen-node -o %T 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  kill -0 "$slurmd_pid" 2>/dev/null || break
  sleep 0.2
done
if [ "$state" != idle ]; then
  kill -0 "$slurmd_pid" 2>/dev/null ||
    { tail -n 30 "$T/log/slurmd.stderr" "$T/log/slurmd.log" 2>/dev/null; skip "slurmd does not start here (logs above)"; }
  fail "the node is '$state', not idle, after 90 s: $(scontrol show node kdbgen-node 2>&1 | grep -E 'State|Reason')"
fi
times[cluster_up]=$(elapsed "$t0")
log "cluster up in ${times[cluster_up]} s: slurmctld port $ctld_port, slurmd port $slurmd_port, node kdbgen-node ($cpus CPUs, $mem MB), $(slurmctld -V)"

# --- helpers ---
same_kdbs() {  # merged folder, direct folder
  local a=$1 b=$2 f n=0
  local la lb
  la=$(cd "$a" 2>/dev/null && ls *.kdb 2>/dev/null) lb=$(cd "$b" && ls *.kdb 2>/dev/null)
  [ -n "$lb" ] || fail "the direct build wrote no kdb in $b"
  [ "$la" = "$lb" ] || fail "merged kdbs ($(echo $la)) are not the direct build's ($(echo $lb))"
  for f in $lb; do
    cmp "$a/$f" "$b/$f" || fail "$f: the chain's merged kdb differs from the unsharded build's"
    n=$((n + 1))
  done
  log "  $n merged kdbs identical (cmp) to the unsharded build: $(echo $lb)"
}

# The first attempt's 4 tasks ran side by side: each started before any of them ended.
side_by_side() {  # shared dir, a task to leave out of the end times (the one cancelled), or ""
  local d=$1 skip_k=${2:-} k s e latest_start=0 first_end=""
  for ((k = 1; k <= SHARDS; k++)); do
    s=$(sed -n 's/.* start \([0-9.]*\)$/\1/p' "$d/logs/shard-$k.attempt-1.log" | head -n 1)
    [ -n "$s" ] || fail "shard $k's attempt 1 log has no start time"
    latest_start=$(awk -v a="$latest_start" -v b="$s" 'BEGIN { print (b > a ? b : a) }')
    [ "$k" = "$skip_k" ] && continue
    e=$(sed -n 's/.* end \([0-9.]*\)$/\1/p' "$d/logs/shard-$k.attempt-1.log" | head -n 1)
    [ -n "$e" ] || fail "shard $k's attempt 1 log has no end time"
    if [ -z "$first_end" ] || awk -v a="$first_end" -v b="$e" 'BEGIN { exit !(b < a) }'; then first_end=$e; fi
  done
  awk -v s="$latest_start" -v e="$first_end" 'BEGIN { exit !(s < e) }' ||
    fail "the $SHARDS shard tasks did not run side by side (last start $latest_start, first end $first_end)"
  log "  the $SHARDS tasks of attempt 1 ran side by side (all started $(awk -v s="$latest_start" -v e="$first_end" 'BEGIN { printf "%.1f", e - s }') s before the first ended)"
}

chain_ok() {  # shared dir
  local d=$1 k
  [ "$(cat "$d/chain/status" 2>/dev/null)" = ok ] || fail "chain in $d: status '$(cat "$d/chain/status" 2>/dev/null)'"
  for ((k = 1; k <= SHARDS; k++)); do
    [ -s "$d/reports/shard-$k.json" ] || fail "no --json report of shard $k"
    grep -q ' kdbgen exit 0 ' "$d"/logs/shard-$k.attempt-*.log || fail "no attempt of shard $k logs kdbgen exit 0"
  done
  [ -s "$d/reports/verify.json" ] || fail "no verify report"
}

# direct_build NAME kdbgen-build-args...: the unsharded build the chain is compared with, with an
# empty cache of its own.
direct_build() {
  local name=$1; shift
  local t0
  log "($name) unsharded build: kdbgen build $*"
  t0=$(now)
  local limit; budget_left 1800
  timeout "$limit" "$kdbgen" build "$@" --cache-dir "$T/cache/direct-$name" -o "$T/direct/$name" -q > "$T/log/direct-$name.out" 2>&1 ||
    { cat "$T/log/direct-$name.out"; fail "($name) the unsharded build failed (exit $?; stopped after $limit s if 124)"; }
  times[${name}_direct]=$(elapsed "$t0")
  log "  unsharded build: ${times[${name}_direct]} s"
}

submit() {  # shared dir, recipe args...; prints nothing, sets array_job and merge_job
  local shared=$1; shift
  local out
  out=$(env "$marker" "$recipe" --kdbgen "$kdbgen" --shards "$SHARDS" --shared "$shared" "$@" 2>"$T/log/submit.err") ||
    { cat "$T/log/submit.err"; fail "kdbgen-slurm-build could not submit"; }
  array_job=$(sed -n 's/^array_job=//p' <<<"$out") merge_job=$(sed -n 's/^merge_job=//p' <<<"$out")
  [ -n "$array_job" ] && [ -n "$merge_job" ] || fail "kdbgen-slurm-build printed no job ids: $out"
  log "  submitted: array $array_job, merge $merge_job"
}

wait_chain() {  # shared dir, seconds; returns the recipe's exit code
  local rc limit
  budget_left "$2"
  timeout $((limit + 30)) "$recipe" --wait "$1" --timeout "$limit" > "$T/log/wait.out" 2>&1
  rc=$?
  sed 's/^/    /' "$T/log/wait.out"
  [ "$rc" -ne 124 ] || fail "the chain in $1 did not end within $limit s"
  return "$rc"
}

# --- (a) the demo, one task cancelled mid-run ---
direct_build demo --targets "$DEMO_TARGETS" -j 1
shared=$T/shared/demo
t0=$(now)
submit "$shared" --targets "$DEMO_TARGETS" -- -j 1
# Cancel task 2 once its kdbgen has started, and before it ends.
kill_k=2 klog=$shared/logs/shard-2.attempt-1.log
for ((i = 0; i < 1200; i++)); do grep -q "kdbgen-slurm-build: .* build " "$klog" 2>/dev/null && break; sleep 0.1; done
grep -q "kdbgen-slurm-build: .* build " "$klog" 2>/dev/null || fail "task ${array_job}_$kill_k did not start within 120 s"
sleep 0.3
grep -q ' kdbgen exit ' "$klog" && fail "task ${array_job}_$kill_k ended before it could be cancelled"
scancel "${array_job}_$kill_k" || fail "scancel ${array_job}_$kill_k"
log "  cancelled task ${array_job}_$kill_k while its kdbgen ran"
wait_chain "$shared" 600 || fail "(demo) the chain failed"
times[demo_chain]=$(elapsed "$t0")
chain_ok "$shared"
grep -q ' kdbgen exit ' "$klog" && fail "task ${array_job}_$kill_k was not stopped by scancel: $(grep ' kdbgen exit ' "$klog")"
kstate=$(squeue -h -t all -j "${array_job}_$kill_k" -o %T 2>/dev/null | head -n 1)
[ "$kstate" = CANCELLED ] || fail "task ${array_job}_$kill_k ended as '$kstate', not CANCELLED"
grep -q "attempt=2 .* tasks=$kill_k merge=" "$shared/chain/jobs" || fail "shard $kill_k was not resubmitted: $(cat "$shared/chain/jobs")"
[ "$(grep -c . "$shared/chain/jobs")" -eq 2 ] || fail "expected 2 rounds: $(cat "$shared/chain/jobs")"
grep -q ' kdbgen exit 0 ' "$shared/logs/shard-$kill_k.attempt-2.log" || fail "shard $kill_k's second attempt did not succeed"
# The job completion log (jobcomp/filetxt, read by sacct --completion) says the same.
kraw=$(squeue -h -t all -j "${array_job}_$kill_k" -o %A 2>/dev/null | head -n 1)
kcomp=$(sacct --completion -n -P -j "$kraw" -o jobid,state 2>/dev/null | head -n 1)
[ "$kcomp" = "$kraw|CANCELLED" ] || fail "sacct --completion -j $kraw: '$kcomp', not '$kraw|CANCELLED'"
log "  task $kill_k: CANCELLED in attempt 1 (squeue and sacct --completion agree), resubmitted by the merge job, built in attempt 2"
side_by_side "$shared" "$kill_k"
same_kdbs "$shared/kdb" "$T/direct/demo"
"$recipe" --status "$shared" > "$T/log/status.out" 2>&1 && grep -qx 'status: ok' "$T/log/status.out" ||
  { cat "$T/log/status.out"; fail "--status of the finished demo chain"; }
"$recipe" --kdbgen "$kdbgen" --shards "$SHARDS" --shared "$shared" --targets "$DEMO_TARGETS" > "$T/log/again.out" 2>&1
[ $? -eq 2 ] && grep -q 'already holds a chain' "$T/log/again.out" ||
  { cat "$T/log/again.out"; fail "a second chain in the same folder without --force was not refused"; }
log "(demo) passed: chain ${times[demo_chain]} s"

# --- (d) a chain whose shards all fail ends failed, after its retries, with no kdb ---
shared=$T/shared/failing
log "(failing) an unknown target is refused before anything is submitted"
if "$recipe" --kdbgen "$kdbgen" --shards "$SHARDS" --shared "$T/shared/refused" --targets gfx9999_1 > "$T/log/refused.out" 2>&1; then
  fail "(failing) a chain with the unknown target gfx9999_1 was submitted"
fi
grep -q "gfx9999" "$T/log/refused.out" || fail "(failing) the refusal does not name the target: $(cat "$T/log/refused.out")"
[ ! -e "$T/shared/refused/chain/jobs" ] || fail "(failing) jobs were submitted for an unknown target"
log "(failing) a chain whose every shard fails on the nodes (a network file no node has), 1 retry"
t0=$(now)
submit "$shared" --targets "$DEMO_TARGETS" --retries 1 -- --network "$T/no-such-network.toml" -j 1
wait_chain "$shared" 300 && fail "(failing) the chain succeeded"
times[failing_chain]=$(elapsed "$t0")
case $(cat "$shared/chain/status" 2>/dev/null) in
  "failed: shards 1,2,3,4 did not finish in 2 attempts"*) ;;
  *) fail "(failing) unexpected status: $(cat "$shared/chain/status" 2>/dev/null)" ;;
esac
[ ! -e "$shared/kdb" ] || fail "(failing) a failed chain left kdbs in $shared/kdb"
[ "$(grep -c . "$shared/chain/jobs")" -eq 2 ] || fail "(failing) expected 2 rounds: $(cat "$shared/chain/jobs")"
log "(failing) passed: the chain failed as it must (${times[failing_chain]} s): $(cat "$shared/chain/status")"

# --- (e) --cancel stops a running chain for good: no resubmission, no kdb ---
shared=$T/shared/cancelled
log "(cancel) a demo chain cancelled with kdbgen-slurm-build --cancel while its shards run"
t0=$(now)
submit "$shared" --targets "$DEMO_TARGETS" -- -j 1
for ((i = 0; i < 1200; i++)); do grep -qs "kdbgen-slurm-build: .* build " "$shared"/logs/shard-*.attempt-1.log && break; sleep 0.1; done
"$recipe" --cancel "$shared" > "$T/log/cancel.out" 2>&1 || { cat "$T/log/cancel.out"; fail "(cancel) --cancel failed"; }
wait_chain "$shared" 120 && fail "(cancel) a cancelled chain succeeded"
case $(cat "$shared/chain/status") in "failed: cancelled"*) ;; *) fail "(cancel) status: $(cat "$shared/chain/status")" ;; esac
for ((i = 0; i < 150; i++)); do
  [ -z "$(squeue -h -t PENDING,RUNNING,COMPLETING -j "$array_job,$merge_job" -o %i 2>/dev/null)" ] && break
  sleep 0.2
done
left=$(squeue -h -t PENDING,RUNNING,COMPLETING -j "$array_job,$merge_job" -o %i 2>/dev/null)
[ -z "$left" ] || fail "(cancel) jobs of the cancelled chain still queued or running after 30 s: $left"
[ "$(grep -c . "$shared/chain/jobs")" -eq 1 ] || fail "(cancel) the cancelled chain submitted more jobs: $(cat "$shared/chain/jobs")"
[ ! -e "$shared/kdb" ] || fail "(cancel) a cancelled chain wrote kdbs"
times[cancel_chain]=$(elapsed "$t0")
log "(cancel) passed (${times[cancel_chain]} s): $(cat "$shared/chain/status")"

# --- (b) native, gfx1030_36 over a find-db slice ---
fdb=$find_db_dir/gfx1030_36.HIP.fdb.txt.bz2
if [ -z "$miopen_src" ] || [ ! -d "$miopen_src/src/kernels" ]; then
  log "(native) SKIPPED: no MIOpen source tree (set KDBGEN_MIOPEN_SRC or --miopen-src)"
elif [ ! -f "$fdb" ]; then
  log "(native) SKIPPED: no $fdb (KDBGEN_SHARED_DB_DIR)"
else
  mkdir -p "$T/fdb"
  bzcat "$fdb" | head -n "$FDB_LINES" > "$T/fdb/gfx1030_36.HIP.fdb.txt"
  direct_build native --miopen-src "$miopen_src" --find-db "$T/fdb/gfx1030_36.HIP.fdb.txt" --targets gfx1030_36 -j 1
  shared=$T/shared/native
  t0=$(now)
  submit "$shared" --miopen-src "$miopen_src" --targets gfx1030_36 -- --find-db "$T/fdb/gfx1030_36.HIP.fdb.txt" -j 1
  wait_chain "$shared" 1800 || fail "(native) the chain failed"
  times[native_chain]=$(elapsed "$t0")
  chain_ok "$shared"
  side_by_side "$shared" ""
  same_kdbs "$shared/kdb" "$T/direct/native"
  log "(native) passed: $FDB_LINES find-db lines, chain ${times[native_chain]} s"
fi

# --- (c) the MIOpen engine, Debian's MIOpen 3.4.0 ---
if [ -z "$miopen_root" ] || [ ! -f "$miopen_root/.kdbgen-done" ]; then
  log "(engine) SKIPPED: no MIOpen root at '${miopen_root}' (tools/miopen-roots; KDBGEN_MIOPEN_ROOTS or --miopen-root)"
else
  # Four small problems, one per shard (an engine shard with no problem is an error).
  cat > "$T/net.log" <<'EOF'
MIOpenDriver pool -W 2x16x16x16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1
MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1
MIOpenDriver bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 2 -b 0 -r 1
MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1
EOF
  direct_build engine --engine miopen --miopen-root "$miopen_root" --driver-log "$T/net.log" --targets "$ENGINE_TARGET" -j 1
  shared=$T/shared/engine
  t0=$(now)
  submit "$shared" --engine miopen --miopen-root "$miopen_root" --targets "$ENGINE_TARGET" -- --driver-log "$T/net.log" -j 1
  wait_chain "$shared" 1800 || fail "(engine) the chain failed"
  times[engine_chain]=$(elapsed "$t0")
  chain_ok "$shared"
  side_by_side "$shared" ""
  same_kdbs "$shared/kdb" "$T/direct/engine"
  log "(engine) passed: $ENGINE_TARGET, 4 problems, chain ${times[engine_chain]} s"
fi

log "wall times (s):$(for k in $(printf '%s\n' "${!times[@]}" | sort); do printf ' %s=%s' "$k" "${times[$k]}"; done)"
log "PASSED"
