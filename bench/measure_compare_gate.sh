#!/usr/bin/env bash
# Measures the `sectl bench memcpy --compare` gate on this machine:
#   1. false regressions: RUNS times, a baseline of sectl_cpu, then a run of
#      the same plugin compared with it; each gate that fails is a false
#      regression.
#   2. detection: RUNS times, a baseline of sectl_minimal, then a run of the
#      faulty plugin whose copies take 1.25x as long (reference_plugins/
#      faulty/bench_faults.c) compared with it; each gate that fails caught it.
# Every comparison has a fresh baseline, so a baseline that was itself a
# lucky (or unlucky) run counts as often as it happens, not once or never.
#
#   bench/measure_compare_gate.sh [BUILD_DIR] [RUNS] [-- EXTRA BENCH FLAGS...]
#
# With no extra flags every run uses bench's defaults (all sizes 4 KiB to
# 256 MiB, --budget 0.25, --tolerance 10%); e.g. `-- --budget 0.1` trades
# precision for time. Prints the counts, the regressed rows, the date, the
# machine and its load.
set -euo pipefail
build=${1:-build}
runs=${2:-10}
shift $(( $# >= 2 ? 2 : $# ))
[[ ${1:-} == -- ]] && shift
extra=("$@")
sectl=$build/bin/sectl
plugins=$build/lib/sectl/plugins
slow=$build/reference_plugins/faulty/faulty_copies_25_percent_slower.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs RUNS gates of $2, each against a fresh baseline of $1; prints one
# line per run and sets $failed to how many gates failed.
gate_runs() {
  local baseline_plugin=$1 plugin=$2 label=$3
  failed=0
  for run in $(seq "$runs"); do
    "$sectl" bench memcpy "$baseline_plugin" --no-progress "${extra[@]}" --report json \
      -o "$work/baseline.json"
    local status=0
    "$sectl" bench memcpy "$plugin" --no-progress "${extra[@]}" --compare "$work/baseline.json" \
      >"$work/run.txt" 2>&1 || status=$?
    local summary regressed
    summary=$(grep -E '^[0-9]+ compared:' "$work/run.txt" || echo "no comparison (exit $status)")
    regressed=$(grep 'REGRESSION' "$work/run.txt" | awk '{print $1, $2, $3, $4, $5}' |
      paste -sd ',' - || true)
    # What the re-measurement cleared: looked regressed in the first run only.
    cleared=$(grep -c 'not confirmed' "$work/run.txt" || true)
    [[ $status -ne 0 ]] && failed=$((failed + 1))
    echo "  $label run $run: exit $status; $summary; $cleared not confirmed${regressed:+ [regressed: $regressed]}"
  done
}

echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench flags: ${extra[*]:-(defaults)}"
started=$(date +%s)

gate_runs "$plugins/sectl_cpu.so" "$plugins/sectl_cpu.so" "same plugin (sectl_cpu)"
false_regressions=$failed
gate_runs "$plugins/sectl_minimal.so" "$slow" "25% slower (faulty vs sectl_minimal)"
caught=$failed

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - started )) s"
echo "false regressions: $false_regressions of $runs same-plugin comparisons"
echo "25% slowdown caught: $caught of $runs comparisons"
