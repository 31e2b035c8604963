#!/usr/bin/env bash
# Builds sectl's Debian package from the build tree with `cpack -G DEB` (see
# cmake/SectlPackage.cmake), checks its control fields, unpacks it into a
# scratch root with `dpkg-deb -x`, and runs sectl from there: `sectl
# --version`, and `sectl conform` on the bundled plugin, which the unpacked
# sectl must find relative to itself and judge conformant. The man page in
# the package names /usr, where the package installs.
#
# Run by ctest as the test "deb" (label "install"); arguments:
#   BUILD_DIR CPACK VERSION
# Exits 77 (skipped) where dpkg-deb is missing, as on a system without dpkg.
set -euo pipefail

build_dir=$1
cpack=$2
version=$3

if ! command -v dpkg-deb >/dev/null; then
  echo "deb_test: SKIP: dpkg-deb not found; it comes with dpkg on Debian and Ubuntu"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/sectl-deb-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { echo "deb_test: $*"; }
fail() {
  echo "deb_test: FAIL: $*" >&2
  exit 1
}
# Runs a command quietly; on failure shows its output and fails.
quietly() {
  local log=$work/last_command.log
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "'$*' failed"
  fi
}

step "cpack -G DEB makes one package"
(cd "$build_dir" && quietly "$cpack" -G DEB -B "$work/package")
packages=("$work"/package/*.deb)
if ((${#packages[@]} != 1)) || [[ ! -f ${packages[0]} ]]; then
  fail "expected one .deb in $work/package, found: ${packages[*]}"
fi
package=${packages[0]}

step "its control fields name sectl, its version, a maintainer and the runtime libraries"
field() { dpkg-deb --field "$package" "$1"; }
[[ $(field Package) == sectl ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$version" ]] || fail "Version is '$(field Version)', expected $version"
[[ $(field Maintainer) =~ ^[^\<]+\ \<[^\>]+@[^\>]+\>$ ]] ||
  fail "Maintainer '$(field Maintainer)' is not 'Name <email>'"
depends=$(field Depends)
for library in libc6 libstdc++6 libfmt9; do
  [[ $depends == *"$library"* ]] || fail "Depends '$depends' lacks $library"
done

step "unpacked into a scratch root, it has sectl, its plugins, man page and docs under /usr"
root=$work/root
quietly dpkg-deb -x "$package" "$root"
sectl=$root/usr/bin/sectl
[[ -x $sectl ]] || fail "no executable usr/bin/sectl in the package"
[[ -f $root/usr/share/doc/sectl/README.md && -d $root/usr/share/doc/sectl/docs &&
  -d $root/usr/share/doc/sectl/examples ]] || fail "the README, docs/ or examples/ are missing"
page=$(find "$root/usr/share/man" -name 'sectl.1*' -print -quit)
if [[ -n $page ]]; then
  grep -qF '.I /usr/lib/sectl/plugins/sectl_cpu.so' "$page" ||
    fail "the packaged man page does not name /usr/lib/sectl/plugins/sectl_cpu.so"
fi

step "the unpacked sectl reports its version"
version_line=$("$sectl" --version) || fail "sectl --version exited with status $?"
[[ $version_line == "sectl $version "* ]] || fail "unexpected version line: '$version_line'"

step "the unpacked sectl finds its bundled plugin and judges it conformant"
status=0
"$sectl" conform --report json -o "$work/conform.json" >"$work/conform.log" 2>&1 || status=$?
if ((status != 0)); then
  cat "$work/conform.log" >&2
  fail "sectl conform exited with status $status"
fi
python3 - "$work/conform.json" "$root" <<'EOF' || fail "the conform report is not as expected"
import json, sys
report, root = json.load(open(sys.argv[1])), sys.argv[2]
plugin = report["plugin"]["path"]
if not plugin.startswith(root + "/usr/lib/sectl/plugins/"):
    sys.exit(f"sectl conform ran {plugin}, not the plugin unpacked under {root}")
if report.get("verdict") != "conformant":
    sys.exit(f"verdict is {report.get('verdict')!r}, summary {report['summary']}")
EOF

step "all good"
