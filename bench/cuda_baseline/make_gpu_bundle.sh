#!/usr/bin/env bash
# make_gpu_bundle.sh BUILD_DIR BUNDLE_DIR
#
# Copies what measure_on_gpu.sh runs on a GPU machine into BUNDLE_DIR: the
# programs and plugins from BUILD_DIR (a build with the CUDA toolkit), in the
# build tree's own layout, since sectl finds its bundled plugins and the
# validation layer relative to its binary (bin/ -> lib/sectl/plugins/,
# lib/libsectl_validate.so); the shared libraries they need beyond glibc,
# libstdc++ and libgcc (from ldd) in BUNDLE_DIR/lib; and measure_on_gpu.sh
# itself. Debug information is stripped. The GPU machine needs nothing of
# ours installed: measure_on_gpu.sh puts BUNDLE_DIR/lib on LD_LIBRARY_PATH.
#
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build -j
#   bench/cuda_baseline/make_gpu_bundle.sh build build-gpu-bundle
#   # on the GPU machine, from the repository root:
#   bash build-gpu-bundle/measure_on_gpu.sh /tmp/gpu-results "$OUT"
#
# Before it finishes it checks the bundle where a GPU machine would see it:
# moved to another directory, every library found there, and sectl running
# from it on the bundled cpu plugin. Exit status 0 when the bundle is
# complete, 1 otherwise, 2 on bad arguments.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR BUNDLE_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
bundle=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# What measure_on_gpu.sh runs, relative to the build tree.
programs=(
  bin/sectl
  bin/sectl-cuda-baseline
  bin/sectl_validate_layer_benchmark
  lib/sectl/plugins/sectl_cuda.so
  lib/sectl/plugins/sectl_cpu.so
  lib/libsectl_validate.so
  tests/cuda_plugin_test
)
for program in "${programs[@]}"; do
  if [[ ! -f $build/$program ]]; then
    echo "$0: $build/$program is missing: build with the CUDA toolkit first (cmake --build $1)" >&2
    exit 1
  fi
done

# Libraries every Linux machine with a C++ runtime has: glibc's, libstdc++
# and libgcc. The NVIDIA driver's (libcuda) is the GPU machine's own; the
# plugin loads it with dlopen, so ldd never lists it.
is_system_library() {
  case $1 in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libdl.so.* | libpthread.so.* | \
      librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libstdc++.so.* | libgcc_s.so.* | \
      libcuda.so.*)
      return 0
      ;;
  esac
  return 1
}

rm -rf "$bundle"
mkdir -p "$bundle/lib"
bundle=$(cd "$bundle" && pwd)

for program in "${programs[@]}"; do
  mkdir -p "$(dirname "$bundle/$program")"
  cp "$build/$program" "$bundle/$program"
  strip --strip-debug "$bundle/$program"
done

# Every library ldd resolves for any of them (ldd lists the whole closure).
declare -A copied=()
for program in "${programs[@]}"; do
  while read -r name arrow path _; do
    [[ $arrow == "=>" && $path == /* ]] || continue
    is_system_library "$name" && continue
    [[ -n ${copied[$name]:-} || -e $bundle/lib/$name ]] && continue
    cp -L "$path" "$bundle/lib/$name"
    chmod u+w "$bundle/lib/$name"
    strip --strip-debug "$bundle/lib/$name"
    copied[$name]=$path
  done < <(ldd "$build/$program")
done

install -m 0755 "$here/measure_on_gpu.sh" "$bundle/measure_on_gpu.sh"

# Provenance, and the newest glibc and libstdc++ symbol versions the bundle
# needs: the GPU machine's must be at least these.
newest_version() {
  find "$bundle" -type f \( -name '*.so*' -o -perm -u+x \) ! -name '*.sh' -print0 |
    xargs -0 objdump -T 2>/dev/null | grep -o "$1_[0-9.]*" | sort -uV | tail -1
}
{
  echo "sectl GPU bundle for bench/cuda_baseline/measure_on_gpu.sh"
  echo "made:      $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm)"
  echo "source:    $(git -C "$here" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$here" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "build:     $build ($(grep -m1 '^CMAKE_BUILD_TYPE:' "$build/CMakeCache.txt" | cut -d= -f2))"
  echo "CUDA:      $(grep -m1 '^CUDAToolkit_NVCC_EXECUTABLE:' "$build/CMakeCache.txt" | cut -d= -f2)"
  echo "needs:     $(newest_version GLIBC), $(newest_version GLIBCXX)"
  echo "libraries: ${!copied[*]}"
  echo
  (cd "$bundle" && find . -type f | sort | xargs sha256sum)
} >"$bundle/BUNDLE.txt"

# The check: moved elsewhere, with only its own lib/ on LD_LIBRARY_PATH.
moved=$(mktemp -d)
trap 'rm -rf "$moved"' EXIT
cp -a "$bundle" "$moved/bundle"
status=0
while IFS= read -r -d '' file; do
  if LC_ALL=C head -c 4 "$file" | grep -q ELF; then
    if missing=$(LD_LIBRARY_PATH="$moved/bundle/lib" ldd "$file" 2>&1 | grep 'not found'); then
      echo "$0: ${file#"$moved/bundle/"} needs what the bundle lacks: $missing" >&2
      status=1
    fi
  fi
done < <(find "$moved/bundle" -type f ! -name '*.sh' ! -name '*.txt' -print0)
moved_sectl=$moved/bundle/bin/sectl
if ! LD_LIBRARY_PATH="$moved/bundle/lib" "$moved_sectl" probe >/dev/null; then
  echo "$0: sectl probe of the bundled cpu plugin failed from the moved bundle" >&2
  status=1
fi
if [[ $(LD_LIBRARY_PATH="$moved/bundle/lib" "$moved_sectl" validate where) != "$moved/bundle/lib/libsectl_validate.so" ]]; then
  echo "$0: sectl validate where does not find the layer inside the moved bundle" >&2
  status=1
fi
if [[ $status -eq 0 ]]; then
  echo "$bundle: $(du -sh "$bundle" | cut -f1) in $(find "$bundle" -type f | wc -l) files;" \
    "checked from a moved copy. Libraries bundled: ${!copied[*]}"
fi
exit $status
