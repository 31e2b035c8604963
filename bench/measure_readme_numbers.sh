#!/usr/bin/env bash
# Measures every time the README quotes, and prints the lines to paste, with
# the date, the commit and the machine, so that the README's numbers come
# from one command rather than from memory:
#
#   bench/measure_readme_numbers.sh [BUILD_DIR] [RUNS] [--with-tests]
#
# Each command runs RUNS times (default 5) on the bundled plugin; the median
# wall time is printed. --with-tests also times one whole test suite run
# (ctest -j"$(nproc)"), which takes minutes. Run it on a quiet machine: the
# numbers are only as steady as the machine is idle.
set -euo pipefail
build=${1:-build}
runs=${2:-5}
with_tests=${3:-}
sectl=$build/bin/sectl
[ -x "$sectl" ] || { echo "measure_readme_numbers: $sectl not found; build first" >&2; exit 2; }

# The median wall time, in seconds, of "$@" over $runs runs.
median_seconds() {
  local times=()
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($((end - start)))
  done
  printf '%s\n' "${times[@]}" | sort -n |
    awk '{a[NR]=$1} END {v=a[int((NR+1)/2)]/1e9; printf (v < 10 ? "%.2f" : "%.0f"), v}'
}

# Wall time, in seconds, of one run of "$@".
once_seconds() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN {v = ns / 1e9; printf (v < 10 ? "%.2f" : "%.0f"), v}'
}

checks=$("$sectl" conform --list --format json | grep -c '"id"')
cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
echo "Measured $(date -u +%Y-%m-%d) at $(git rev-parse --short HEAD 2>/dev/null || echo '?') on" \
  "$(nproc) cores ($cpu), median of $runs runs, bundled cpu plugin:"
echo "- \`sectl conform\` ($checks checks and the throughput section): $(median_seconds "$sectl" conform) s"
echo "- \`sectl conform --no-throughput\`: $(median_seconds "$sectl" conform --no-throughput) s"
echo "- \`sectl probe\`: $(median_seconds "$sectl" probe) s"
echo "- \`sectl bench memcpy\` with its defaults: $(once_seconds "$sectl" bench memcpy) s (one run)"
echo "- \`sectl bench latency\` with its defaults: $(once_seconds "$sectl" bench latency) s (one run)"
if [ "$with_tests" = "--with-tests" ]; then
  echo "- the test suite (\`ctest --test-dir $build -j$(nproc)\`):" \
    "$(once_seconds ctest --test-dir "$build" -j"$(nproc)") s (one run)"
fi
