#!/usr/bin/env bash
# measure_on_gpu.sh RESULTS_DIR [PACK_DIR]
#
# Issue 31 in one run on a machine with an NVIDIA GPU: the CUDA reference
# plugin under `sectl probe` and `sectl conform`, `sectl bench` against raw
# CUDA (sectl-cuda-baseline), and the validation layer over the plugin. It
# runs the programs of a bundle made by make_gpu_bundle.sh (this script's own
# directory when it is inside one, else SECTL_GPU_BUNDLE), so the machine
# needs only the NVIDIA driver; nothing is built there.
#
#   bash build-gpu-bundle/measure_on_gpu.sh /tmp/gpu-results "$OUT"
#
# Every step's stdout and stderr go to RESULTS_DIR/<step>.out and .err, its
# reports beside them, and one line each to RESULTS_DIR/measure.log (also
# printed). A step that fails is logged and the next one runs. With
# PACK_DIR, after every step RESULTS_DIR is packed into
# PACK_DIR/gpu-results.tar.gz, with measure.log and summary.txt beside it:
# three files, for a transfer that returns only a few.
#
# SECTL_GPU_SKIP (an extended regex of step names) leaves steps out, for a
# second run that measures only what the first did not.
#
# Time: every step runs under `timeout`, and no step may run past the whole
# run's budget, SECTL_GPU_BUDGET_S seconds (default 450): a step that would
# is cut short, and the steps after it are skipped, so the run ends within
# the budget plus a few seconds of packing. The steps run in order of what
# the issue needs most. Estimates for an H100 with 16 cores are beside each,
# about 7 minutes in all; how fast conform's checks run on the GPU (each in
# a process of its own, which creates a CUDA context) is the least known.
#
# The bash -c steps expand their variables there, from those exported below.
# shellcheck disable=SC2016
set -u

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 RESULTS_DIR [PACK_DIR]" >&2
  exit 2
fi
results=$1
pack=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bundle=${SECTL_GPU_BUNDLE:-$here}
bundle=$(cd "$bundle" && pwd) || exit 2
budget_s=${SECTL_GPU_BUDGET_S:-450}
# Seconds kept back from the steps for the last packing.
reserve_s=10

sectl=$bundle/bin/sectl
baseline=$bundle/bin/sectl-cuda-baseline
layer_benchmark=$bundle/bin/sectl_validate_layer_benchmark
cuda=$bundle/lib/sectl/plugins/sectl_cuda.so
cpu=$bundle/lib/sectl/plugins/sectl_cpu.so
layer=$bundle/lib/libsectl_validate.so
plugin_test=$bundle/tests/cuda_plugin_test
for file in "$sectl" "$baseline" "$layer_benchmark" "$cuda" "$cpu" "$layer" "$plugin_test"; do
  if [[ ! -f $file ]]; then
    echo "$0: $file is missing: is $bundle a bundle from make_gpu_bundle.sh?" >&2
    exit 2
  fi
done
# In case the copy to this machine dropped the modes.
chmod u+x "$sectl" "$baseline" "$layer_benchmark" "$plugin_test" 2>/dev/null

mkdir -p "$results" "$results/validate" || exit 2
results=$(cd "$results" && pwd)
[[ -n $pack ]] && { mkdir -p "$pack" && pack=$(cd "$pack" && pwd) || exit 2; }
log=$results/measure.log
summary=$results/summary.txt
: >"$log"
printf '%-24s %6s %6s  %s\n' step status secs note >"$summary"
started=$SECONDS

# The bundle's libraries first; the machine's own (the driver's) still found.
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# For the steps that run through bash -c.
export sectl baseline layer_benchmark cuda cpu layer plugin_test results

say() {
  printf '[%4d s] %s\n' $((SECONDS - started)) "$*" | tee -a "$log"
}

# PACK_DIR gets the results so far: the archive is replaced whole, never
# left half-written. tar's status 1 only says a file grew while it was read
# (the GPU monitor's log does): the archive is still good.
pack_results() {
  [[ -n $pack ]] || return 0
  local archive=$results.tar.gz.part
  tar -czf "$archive" -C "$(dirname "$results")" "$(basename "$results")" 2>/dev/null
  (($? <= 1)) && mv -f "$archive" "$pack/gpu-results.tar.gz"
  cp -f "$log" "$pack/measure.log"
  cp -f "$summary" "$pack/summary.txt"
}

# step NAME LIMIT_S COMMAND...: runs COMMAND under `timeout` for at most
# LIMIT_S seconds, and never past the budget. Its status is the command's.
step() {
  local name=$1 limit=$2
  shift 2
  # SECTL_GPU_SKIP: an extended regex of step names a second run leaves out
  # (what the first already measured), to spend the device time on the rest.
  if [[ -n ${SECTL_GPU_SKIP:-} && $name =~ ^(${SECTL_GPU_SKIP})$ ]]; then
    say "step $name: skipped (SECTL_GPU_SKIP)"
    printf '%-24s %6s %6s  %s\n' "$name" skipped 0 "SECTL_GPU_SKIP" >>"$summary"
    return 125
  fi
  local left=$((budget_s - reserve_s - (SECONDS - started)))
  if ((left < 5)); then
    say "step $name: skipped, the ${budget_s} s budget is spent"
    printf '%-24s %6s %6s  %s\n' "$name" skipped 0 "budget spent" >>"$summary"
    return 125
  fi
  local note=""
  if ((limit > left)); then
    limit=$left
    note="limit cut to ${left} s by the budget"
  fi
  # The command on one line, and not too long a one.
  local shown="$*"
  shown=${shown//$'\n'/ }
  ((${#shown} > 300)) && shown="${shown:0:300}..."
  say "step $name: start, limit ${limit} s: $shown"
  local began=$SECONDS
  timeout -k 10 "$limit" "$@" >"$results/$name.out" 2>"$results/$name.err"
  local status=$?
  local took=$((SECONDS - began))
  if ((status == 124 || status == 137)); then
    say "step $name: TIMED OUT after ${took} s (limit ${limit} s)"
    note="timed out${note:+; $note}"
  else
    say "step $name: exit status $status after ${took} s"
  fi
  # The last words of a failing step, for a glance at the log.
  if ((status != 0)); then
    tail -n 5 "$results/$name.err" | sed 's/^/        /' | tee -a "$log"
  fi
  printf '%-24s %6s %6s  %s\n' "$name" "$status" "$took" "$note" >>"$summary"
  pack_results
  return $status
}

# --compare FILE and its gate, when FILE was written: without it (its
# step failed) the plugin is still measured, just not compared.
compare_with() {
  compare=()
  if [[ -s $1 ]]; then
    compare=(--compare "$1" --tolerance 5% --confirm-runs 0)
  else
    say "note: $1 is missing, so the next step measures without --compare"
  fi
}

say "sectl GPU run: bundle $bundle, results $results, budget ${budget_s} s"
cat >"$results/FILES.txt" <<'END'
What measure_on_gpu.sh wrote. Every step NAME has NAME.out (stdout) and
NAME.err (stderr); measure.log has one line per step start and end (with
the last lines of a failing step's stderr), summary.txt a line per step
(exit status, seconds; 124 = timed out, "skipped" = the budget was spent).

system.out                  kernel, OS, glibc, cores, memory, CUDA variables, the bundle's BUNDLE.txt
nvidia_smi.out              nvidia-smi (driver and CUDA version), then name, driver, bus id, memory,
                            persistence mode, clocks and PCIe link as CSV
nvcc.out                    nvcc --version on the machine (the bundle's toolkit is in BUNDLE.txt)
gpu_monitor.csv             clocks, utilisation, memory, temperature and power every 30 s
probe.out, probe_json.out   sectl probe of sectl_cuda.so: table, JSON
conform_verbose.out         sectl conform sectl_cuda.so -v, as a user first runs it
raw_memcpy_pinned.json      sectl-cuda-baseline, pinned host memory, 4 KiB to 256 MiB: raw
                            cudaMemcpyAsync as a sectl bench report
bench_memcpy_pinned.json    sectl bench memcpy of the plugin, pinned, the same sweep; .svg the
                            bandwidth plot, .html the page with the comparison
bench_pinned.out            the comparison table: the plugin against raw CUDA, per path and size
raw_latency.json            sectl-cuda-baseline latency: the CUDA calls behind each operation
bench_latency.json          sectl bench latency of the plugin; bench_latency.out compares the two
conform_repeat5.json, .xml  sectl conform --repeat 5 --jobs 4 of sectl_cuda.so: JSON, JUnit
conform_repeat5_table.out   the same report as a table, every message shown (sectl report -v)
raw_memcpy_pageable.json, bench_memcpy_pageable.json (.svg, .html), bench_pageable.out
                            as for pinned, with pageable (plain heap) host memory
validate_conform.json, .xml sectl conform of libsectl_validate.so wrapping sectl_cuda.so;
                            validate_conform_table.out the same as a table
validate/conform-*.json     the layer's own report from each check's process
validate_show.out           sectl validate show of them all, merged (status 1 on any error)
layer_memcpy_direct.json, layer_memcpy_through.json, layer_memcpy_through.out
                            sectl bench memcpy at 4 KiB, 1 MiB and 64 MiB, directly and
                            through the layer, and the comparison of the two
validate/bench-memcpy-*.json   the layer's report from the run through it
layer_benchmark.out, .json  sectl_validate_layer_benchmark over sectl_cuda.so: each call
                            direct and through the layer (the last table: added ns, ratio)
validate/layer-benchmark.json  the layer's report from it
layer_benchmark_trace.out, .json  the same with SECTL_VALIDATE_TRACE; the trace's size is the
                            last line of .out
cuda_plugin_test.out, .json the CUDA plugin's GoogleTest suite, its GPU tests included
layer_benchmark_cpu.out, .json  the layer benchmark over the bundled cpu plugin, for scale
END

# While anything holds the GPU open, the driver keeps it initialised even
# without persistence mode; otherwise every process (one per conform check)
# would pay the driver's start. The monitor holds it, and logs clocks and
# temperature every 30 s (rarely, so it does not disturb the timings).
monitor_pid=""
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,name,pstate,utilization.gpu,memory.used,clocks.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv -l 30 >"$results/gpu_monitor.csv" 2>&1 &
  monitor_pid=$!
fi
stop_monitor() {
  if [[ -n $monitor_pid ]]; then
    kill "$monitor_pid" 2>/dev/null
    wait "$monitor_pid" 2>/dev/null
    monitor_pid=""
  fi
}
trap stop_monitor EXIT

# --- The machine (seconds) ---------------------------------------------------
step system 20 bash -c 'uname -a; cat /etc/os-release; ldd --version | head -1; nproc; free -g;
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; env | grep -E "^(CUDA|NVIDIA)" | sort;
  cat "$(dirname "$sectl")/../BUNDLE.txt"'
step nvidia_smi 30 bash -c 'nvidia-smi; nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,persistence_mode,clocks.max.sm,clocks.max.mem,pcie.link.gen.max,pcie.link.width.max --format=csv'
step nvcc 20 bash -c 'PATH=$PATH:/usr/local/cuda/bin; nvcc --version'
# Every library the bundle's programs need is found (the missing are named).
step bundle_libraries 20 bash -c 'status=0; for f in "$sectl" "$baseline" "$layer_benchmark" "$cuda" "$layer" "$plugin_test"; do
  ldd "$f" | grep "not found" && status=1; done; exit $status'

# --- sectl probe (5 s) ---------------------------------------------------------
step probe 60 "$sectl" probe "$cuda"
step probe_json 60 "$sectl" probe --format json "$cuda"

# --- sectl conform as a user first runs it: every check once, messages shown (30 s) ---
step conform_verbose 150 "$sectl" conform "$cuda" -v

# --- Copy bandwidth, pinned: raw CUDA, then the plugin against it (70 s) ---------
# The default sweep (4 KiB to 256 MiB, doubling) and budget (0.25 s per
# size) on both. --confirm-runs 0: below 1 MiB the plugin is judged by
# microseconds, not by --tolerance, so re-measuring "regressions" there
# would only cost time; the samples are all in the reports.
step baseline_pinned 120 "$baseline" --host-memory pinned -o "$results/raw_memcpy_pinned.json"
compare_with "$results/raw_memcpy_pinned.json"
step bench_pinned 150 "$sectl" bench memcpy "$cuda" --host-memory pinned --no-progress \
  "${compare[@]}" --report json -o "$results/bench_memcpy_pinned.json" --plot "$results/bench_memcpy_pinned.svg" \
  --html "$results/bench_memcpy_pinned.html"

# --- Latency: the CUDA calls, then the plugin's operations against them (15 s) ---
step baseline_latency 60 "$baseline" latency -o "$results/raw_latency.json"
compare_with "$results/raw_latency.json"
step bench_latency 90 "$sectl" bench latency "$cuda" --no-progress "${compare[@]}" \
  --report json -o "$results/bench_latency.json"

# --- sectl conform, five times over, four checks at once (about 100 s) ------------
# --timeout 20 (30 by default): a check that hangs on the GPU (waiting, say,
# on host functions CUDA serialises across streams) costs 20 s per run, not
# 30, so five runs of a few such checks still end within the step's limit.
step conform_repeat5 270 "$sectl" conform "$cuda" --repeat 5 --jobs 4 --timeout 20 \
  --report json -o "$results/conform_repeat5.json" --junit "$results/conform_repeat5.xml"
# The same run as a table, every message shown.
step conform_repeat5_table 30 "$sectl" report "$results/conform_repeat5.json" -v

# --- Copy bandwidth, pageable (65 s) --------------------------------------------
# --timeout 20: a copy stalled behind sectl's stream gate (a pageable copy
# waits for its stream on CUDA) is killed after 20 s without progress
# rather than waited out.
step baseline_pageable 120 "$baseline" --host-memory pageable -o "$results/raw_memcpy_pageable.json"
compare_with "$results/raw_memcpy_pageable.json"
step bench_pageable 150 "$sectl" bench memcpy "$cuda" --host-memory pageable --no-progress \
  --timeout 20 "${compare[@]}" --report json -o "$results/bench_memcpy_pageable.json" \
  --plot "$results/bench_memcpy_pageable.svg" --html "$results/bench_memcpy_pageable.html"

# --- The validation layer over the plugin, under sectl conform (50 s) --------------
# Each check's process loads the layer, which loads sectl_cuda.so and writes
# its own report (%p is 2 in every check's PID namespace; %r tells them
# apart). sectl validate show merges them: exit status 1 on any error.
step validate_conform 150 env SECTL_VALIDATE_PLUGIN="$cuda" \
  SECTL_VALIDATE_REPORT="$results/validate/conform-%p-%r.json" \
  "$sectl" conform "$layer" --pass-env SECTL_VALIDATE_PLUGIN --pass-env SECTL_VALIDATE_REPORT \
  --jobs 4 --timeout 20 --report json -o "$results/validate_conform.json" --junit "$results/validate_conform.xml"
step validate_conform_table 30 "$sectl" report "$results/validate_conform.json" -v
step validate_show 30 bash -c 'shopt -s nullglob; reports=("$results"/validate/conform-*.json);
  echo "${#reports[@]} layer reports"; ((${#reports[@]})) || exit 1; "$sectl" validate show "${reports[@]}"'

# --- What the layer costs: copies through it, and each call (40 s) -----------------
step layer_memcpy_direct 60 "$sectl" bench memcpy "$cuda" --sizes 4KiB,1MiB,64MiB --no-progress \
  --report json -o "$results/layer_memcpy_direct.json"
compare_with "$results/layer_memcpy_direct.json"
step layer_memcpy_through 60 env SECTL_VALIDATE_PLUGIN="$cuda" \
  SECTL_VALIDATE_REPORT="$results/validate/bench-memcpy-%p-%r.json" \
  "$sectl" bench memcpy "$layer" --sizes 4KiB,1MiB,64MiB --no-progress "${compare[@]}" \
  --report json -o "$results/layer_memcpy_through.json"
step layer_benchmark 90 env SECTL_BENCH_PLUGIN="$cuda" \
  SECTL_VALIDATE_REPORT="$results/validate/layer-benchmark.json" \
  "$layer_benchmark" --benchmark_repetitions=3 --benchmark_min_time=0.1 \
  --benchmark_out="$results/layer_benchmark.json" --benchmark_out_format=json
# With a trace: the trace itself stays out of the results (tens of MB).
step layer_benchmark_trace 90 bash -c 'trace=$(mktemp /tmp/sectl-layer-XXXXXX.trace);
  SECTL_BENCH_PLUGIN="$cuda" SECTL_VALIDATE_TRACE="$trace" "$layer_benchmark" \
    --benchmark_repetitions=3 --benchmark_min_time=0.1 \
    --benchmark_out="$results/layer_benchmark_trace.json" --benchmark_out_format=json;
  status=$?; ls -l "$trace"; rm -f "$trace"; exit $status'

# --- The GPU tests, which skip elsewhere (90 s) ------------------------------------
step cuda_plugin_test 200 "$plugin_test" --gtest_output="json:$results/cuda_plugin_test.json"

# The layer's cost on the bundled cpu plugin on this machine, for scale (10 s).
step layer_benchmark_cpu 60 "$layer_benchmark" --benchmark_repetitions=3 \
  --benchmark_min_time=0.1 --benchmark_out="$results/layer_benchmark_cpu.json" \
  --benchmark_out_format=json

stop_monitor
say "done in $((SECONDS - started)) s"
pack_results
echo
cat "$summary"
# The headlines, for whoever reads only the end of the output.
echo
for headline in conform_verbose conform_repeat5_table validate_conform_table validate_show; do
  [[ -s $results/$headline.out ]] && echo "$headline: $(tail -n 1 "$results/$headline.out")"
done
exit 0
