#!/usr/bin/env bash
# Measures `sectl conform` on a plugin: the wall time of the whole suite with
# isolation, and the cost isolation adds per check (a process per check
# against running every check inside sectl).
#
#   bench/measure_conform.sh [BUILD_DIR] [PLUGIN] [RUNS]
#
# Prints medians over RUNS runs (default 20) of each configuration.
set -euo pipefail
build=${1:-build}
plugin=${2:-$build/lib/sectl/plugins/sectl_cpu.so}
runs=${3:-20}
sectl=$build/bin/sectl

median_seconds() {  # median wall time of "$@" over $runs runs
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(( end - start )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.4f", a[int((NR+1)/2)]/1e9}'
}

checks=$("$sectl" conform --list --format json "$plugin" | grep -c '"id"')
repeat=5
isolated=$(median_seconds "$sectl" conform "$plugin" --report json)
isolated_one_job=$(median_seconds "$sectl" conform "$plugin" --report json --jobs 1 --repeat $repeat)
in_process=$(median_seconds "$sectl" conform "$plugin" --report json --jobs 1 --repeat $repeat --isolation none)
per_check_ms=$(awk -v a="$isolated_one_job" -v b="$in_process" -v n=$((checks * repeat)) \
  'BEGIN {printf "%.2f", (a - b) / n * 1000}')

echo "plugin: $plugin ($checks checks, $(nproc) cores, median of $runs runs)"
echo "full suite, isolated, default jobs:        ${isolated} s"
echo "$((checks * repeat)) check runs, 1 job, isolated:     ${isolated_one_job} s"
echo "$((checks * repeat)) check runs, 1 job, in process:   ${in_process} s"
echo "isolation overhead per check:               ${per_check_ms} ms"
