#!/usr/bin/env bash
# The Slurm recipe (tools/slurm/kdbgen-slurm-build) refuses, before it submits anything, what would
# fail on every node or let another user run code in the chain (issue #46): --kdbgen that is no
# executable file, a target kdbgen does not know, a shared folder others can write. sbatch, squeue
# and scancel are stand-ins that record any call: none may come.
#   slurm_recipe_checks_test.sh RECIPE KDBGEN
set -uo pipefail
recipe=$1 kdbgen=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
for tool in sbatch squeue scancel; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/called"\necho 1\n' "$tool" "$work" > "$work/bin/$tool"
  chmod +x "$work/bin/$tool"
done
export PATH="$work/bin:$PATH"
passed=0 failed=0
# expect NAME WORDS -- ARGS...: exit 2, stderr holds WORDS, nothing submitted.
expect() {
  local name=$1 words=$2; shift 3
  rm -f "$work/called"
  local err; err=$("$recipe" "$@" 2>&1 >/dev/null); local code=$?
  if [ "$code" = 2 ] && [[ $err == *"$words"* ]] && [ ! -e "$work/called" ]; then
    echo "ok:   $name: exit 2, '$words'"; passed=$((passed + 1))
  else
    echo "FAIL: $name: exit $code, stderr: $err; called: $(cat "$work/called" 2>/dev/null)"; failed=$((failed + 1))
  fi
}
mkdir -p "$work/shared" && chmod 700 "$work/shared"
expect "--kdbgen a folder" "not an executable file" -- --shards 2 --shared "$work/shared" --targets gfx1030_36 --kdbgen /tmp
expect "--kdbgen missing" "not an executable file" -- --shards 2 --shared "$work/shared" --targets gfx1030_36 --kdbgen "$work/none"
expect "an unknown target" "gfx9999" -- --shards 2 --shared "$work/shared" --targets gfx9999_1 --kdbgen "$kdbgen"
printf 'gfx1030_36\ngfx9999_1\n' > "$work/targets.txt"
expect "an unknown target in a file" "gfx9999" -- --shards 2 --shared "$work/shared" --targets-file "$work/targets.txt" --kdbgen "$kdbgen"
mkdir -p "$work/open" && chmod 777 "$work/open"
expect "a shared folder others can write" "writable by others" -- --shards 2 --shared "$work/open" --targets gfx1030_36 --kdbgen "$kdbgen"
mkdir -p "$work/group/chain" && chmod 755 "$work/group" && chmod 775 "$work/group/chain" && touch "$work/group/chain/config.sh"
# A job of a chain whose folder others can write: it sources nothing from there.
rm -f "$work/called"
err=$("$recipe" --run-shard "$work/group" 1 2>&1); code=$?
if [ "$code" = 2 ] && [[ $err == *"writable by others"* ]]; then
  echo "ok:   a job refuses a chain folder others can write"; passed=$((passed + 1))
else
  echo "FAIL: a job of a chain others can write: exit $code: $err"; failed=$((failed + 1))
fi
# And a good submission goes through to sbatch.
rm -f "$work/called"
"$recipe" --shards 2 --shared "$work/shared" --targets gfx1030_36 --kdbgen "$kdbgen" > /dev/null 2>&1
if grep -q '^sbatch' "$work/called" 2>/dev/null; then
  echo "ok:   a good submission calls sbatch"; passed=$((passed + 1))
else
  echo "FAIL: a good submission did not reach sbatch"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
