#!/usr/bin/env bash
# How often the validation layer raises anything on a correct plugin while
# one host thread enqueues host callbacks on a stream and another
# synchronises it (issue 28: happens-before from returns, not starts). The
# misuse host's scenario `enqueue-while-synchronising` plays the host;
# every run on a correct plugin must end with no error and no warning.
#
#   bench/measure_callback_ordering.sh [BUILD_DIR] [RUNS] [PLUGIN...]
#
# Prints, per plugin, how many of RUNS runs (default 1000) raised a
# finding or failed; the reports of those runs are kept for reading.
set -euo pipefail
build=${1:-build}
runs=${2:-1000}
shift $(( $# > 2 ? 2 : $# ))
plugins=("$@")
if [ ${#plugins[@]} -eq 0 ]; then
  plugins=("$build/lib/sectl/plugins/sectl_cpu.so"
           "$build/reference_plugins/field/field_cxx_whole_struct.so"
           "$build/reference_plugins/field/field_memset_style.so")
fi
host=$build/tests/sectl_validate_misuse_host
layer=$build/lib/libsectl_validate.so
work=$(mktemp -d)
for plugin in "${plugins[@]}"; do
  bad=0
  for run in $(seq "$runs"); do
    rm -f "$work"/r-*.json
    if ! SECTL_VALIDATE_PLUGIN=$plugin SECTL_VALIDATE_REPORT="$work/r-%p.json" \
         SECTL_VALIDATE_QUIET=1 "$host" "$layer" enqueue-while-synchronising \
         >/dev/null 2>&1; then
      bad=$((bad + 1))
      continue
    fi
    if grep -q '"severity": "\(error\|warning\)"' "$work"/r-*.json; then
      bad=$((bad + 1))
      cp "$work"/r-*.json "$work/kept-$(basename "$plugin" .so)-$run.json"
    fi
  done
  echo "$(basename "$plugin"): $bad of $runs runs raised a finding or failed"
done
echo "reports of those runs, if any: $work"
