#!/usr/bin/env bash
# Installs sectl, moves the installed tree, and uses it the way a plugin
# vendor would: the installed sectl finds its bundled plugin and reports its
# version; every relative link in the installed README and docs reaches an
# installed file; each schema has its $id; the man page names the prefix it
# was installed to; pkg-config and find_package(sectl) find the headers; the
# example plugin project (examples/plugin-project), copied out of the source
# tree, builds, and its CTest conformance test passes for a correct plugin
# and fails for one that refuses to register.
#
# Run by ctest as the test "install" (label "install"); arguments:
#   BUILD_DIR SOURCE_DIR VERSION CMAKE_GENERATOR C_COMPILER [MAN_PAGE]
# MAN_PAGE is the built sectl.1, empty when help2man was not found.
set -euo pipefail

build_dir=$1
source_dir=$2
version=$3
generator=$4
c_compiler=$5
man_page=${6:-}

work=$(mktemp -d "${TMPDIR:-/tmp}/sectl-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { echo "install_test: $*"; }
fail() {
  echo "install_test: FAIL: $*" >&2
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

step "install into a staging prefix, then move it: the tree must be relocatable"
staging=$work/staging
quietly cmake --install "$build_dir" --prefix "$staging"
mv "$work/staging" "$work/prefix"
prefix=$work/prefix
sectl=$prefix/bin/sectl
[[ -x $sectl ]] || fail "no executable $sectl"

step "sectl --version names sectl's version and the ABI it speaks"
version_line=$("$sectl" --version)
version_pattern="^sectl ${version//./\\.} \(StreamExecutor C API [0-9]+\.[0-9]+\.[0-9]+; TensorFlow host generations [^)]*latest\)$"
[[ $version_line =~ $version_pattern ]] || fail "unexpected version line: '$version_line'"

step "the installed sectl probes its own bundled plugin"
probe_output=$("$sectl" probe --format json) || fail "sectl probe exited with status $?"
bundled_plugin=$(grep -o '"path": "[^"]*"' <<<"$probe_output" | head -n 1 | cut -d'"' -f4)
[[ $bundled_plugin == "$prefix"/*/sectl/plugins/sectl_cpu.so ]] ||
  fail "sectl probe loaded '$bundled_plugin', not the plugin installed under $prefix"

step "the installed reference TVM runtimes (C API and tvm-ffi) pass the tvm-device-api profile"
for runtime in sectl_tvm_runtime sectl_tvm_ffi_runtime; do
  quietly "$sectl" conform "$(dirname "$bundled_plugin")/$runtime.so" --profile tvm-device-api \
    --tvm-device-type cpu --timeout 30
done

step "the installed validation layer is where sectl says, and wraps the installed plugin"
layer=$("$sectl" validate where) || fail "sectl validate where exited with status $?"
[[ $layer == "$prefix"/*/libsectl_validate.so && -f $layer ]] ||
  fail "sectl validate where named '$layer', not a layer installed under $prefix"
SECTL_VALIDATE_PLUGIN=$bundled_plugin SECTL_VALIDATE_REPORT=$work/validate.json \
  quietly "$sectl" probe "$layer"
grep -q '"kind": "sectl.validate"' "$work/validate.json" || fail "the layer wrote no report"

step "every relative link in the installed README and docs reaches an installed file"
doc_dir=$prefix/share/doc/sectl
[[ -f $doc_dir/README.md ]] || fail "no README.md in $doc_dir"
# Prints the link targets of a Markdown file, outside fenced code blocks:
# [text](target "title"), ![alt](target), <img src="target">, [label]: target.
markdown_links() {
  awk '/^ *```/ { fenced = !fenced; next } !fenced' "$1" |
    grep -oE '\]\([^) ]+|src="[^"]+"|^\[[^]]+\]: *[^ ]+' |
    sed -E 's/^\]\(//; s/^src="//; s/"$//; s/^\[[^]]+\]: *//'
}
links_checked=0
while IFS= read -r -d '' document; do
  while IFS= read -r link; do
    case $link in
    *://* | mailto:* | '#'*) continue ;;
    esac
    target=${link%%#*}
    [[ -e ${document%/*}/$target ]] ||
      fail "${document#"$prefix"/} links to $link, which is not installed"
    links_checked=$((links_checked + 1))
  done < <(markdown_links "$document")
done < <(find "$doc_dir" -name '*.md' -print0)
((links_checked >= 10)) || fail "only $links_checked relative links found in the installed docs"
[[ ! -e $doc_dir/docs/man ]] || fail "the man page's sources (docs/man) were installed"

step "each installed JSON Schema has the \$id of its schema_version"
schemas=("$doc_dir"/docs/*.schema.json)
((${#schemas[@]} >= 3)) || fail "expected the three report schemas in $doc_dir/docs"
for schema in "${schemas[@]}"; do
  # Prints "$id expected-$id", the expected one from the file name and the
  # schema's own schema_version.
  # shellcheck disable=SC2016 # "$id" is the JSON key, for Python
  read -r actual_id expected_id < <(python3 -c '
import json, sys
schema, name = json.load(open(sys.argv[1])), sys.argv[2]
version = schema["properties"]["schema_version"]["const"]
print(schema.get("$id", "(none)"), f"urn:sectl:schema:{name}:{version}")' \
    "$schema" "$(basename "$schema" .schema.json)") || fail "$schema is not a JSON Schema with a schema_version"
  [[ $actual_id == "$expected_id" ]] ||
    fail "${schema##*/} has the \$id $actual_id, expected $expected_id"
done

step "pkg-config gives the flags that compile a plugin source"
pc_file=$(find "$prefix" -name sectl.pc -print -quit)
[[ -n $pc_file ]] || fail "no sectl.pc installed"
export PKG_CONFIG_PATH=${pc_file%/*}
[[ $(pkg-config --modversion sectl) == "$version" ]] || fail "pkg-config --modversion sectl"
[[ -x $(pkg-config --variable=sectl sectl) ]] || fail "pkg-config --variable=sectl names no program"
read -r -a cflags <<<"$(pkg-config --cflags sectl)"
printf '%s\n' '#include "tensorflow/c/experimental/stream_executor/stream_executor.h"' \
  'int main(void) { return SP_STREAMEXECUTOR_STRUCT_SIZE == 0; }' >"$work/uses_headers.c"
quietly "$c_compiler" "${cflags[@]}" -fsyntax-only "$work/uses_headers.c"

if [[ -n $man_page ]]; then
  step "the man page is installed and has every subcommand's options"
  installed_page=$(find "$prefix" -path '*/man1/sectl.1' -print -quit)
  [[ -n $installed_page ]] || fail "sectl.1 was built but not installed"
  for expected in '.SH COMMANDS' '.SS "conform"' '.SS "probe"' '.SS "bench memcpy"' \
    '.SS "replay"' '.SS "trace show"' '.SS "validate show"' 'SECTL_VALIDATE_PLUGIN' \
    '.SH "EXIT STATUS"' 'StreamExecutor C API'; do
    grep -qF -- "$expected" "$installed_page" || fail "sectl.1 lacks '$expected'"
  done
  # The FILES section names the prefix given to `cmake --install` (roff
  # escapes each hyphen), not the one configured at build time.
  grep -qF -- ".I ${staging//-/\\-}/lib/sectl/plugins/sectl_cpu.so" "$installed_page" ||
    fail "sectl.1's FILES section does not name the install prefix $staging"
  grep -qF -- "${staging//-/\\-}/share/doc/sectl/" "$installed_page" ||
    fail "sectl.1's FILES section does not name the installed docs under $staging"
  if grep -q '/usr/local\|@SECTL_INSTALL_PREFIX@' "$installed_page"; then
    fail "sectl.1 names /usr/local or a placeholder although installed to $staging"
  fi
  grep -qF -- 'sectl bench memcpy ./libmy_plugin.so \-\-compare' "$installed_page" ||
    fail "sectl.1's EXAMPLES have no bench example"
  if command -v groff >/dev/null; then
    warnings=$(groff -man -ww -z "$installed_page" 2>&1)
    [[ -z $warnings ]] || fail "groff warns about sectl.1: $warnings"
  fi
fi

step "the installed examples are the source tree's"
quietly diff -r "$source_dir/examples" "$doc_dir/examples"

step "the example plugin project, copied out of the source tree, builds against the installed package and passes"
example_source=$work/example-source
cp -r "$source_dir/examples/plugin-project" "$example_source"
example=$work/example
quietly cmake -S "$example_source" -B "$example" -G "$generator" \
  -DCMAKE_C_COMPILER="$c_compiler" -DCMAKE_PREFIX_PATH="$prefix"
grep -qxF "EXAMPLE_PLUGIN_SOURCES:STRING=$prefix/share/sectl/reference_plugins/minimal.c" \
  "$example/CMakeCache.txt" || fail "the example does not build the installed minimal plugin source"
quietly cmake --build "$example"
quietly ctest --test-dir "$example" --output-on-failure
grep -q '<testsuite' "$example/sectl-junit.xml" || fail "the example wrote no JUnit report"

step "the example's conformance test fails for a plugin that refuses to register"
cat >"$work/refusing_plugin.c" <<'EOF'
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/tf_status.h"

TF_CAPI_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams* params, TF_Status* status) {
  (void)params;
  TF_SetStatus(status, TF_UNIMPLEMENTED, "this plugin refuses to register");
}
EOF
quietly cmake "$example" -DEXAMPLE_PLUGIN_SOURCES="$work/refusing_plugin.c"
quietly cmake --build "$example"
rm -f "$example/sectl-junit.xml"
if ctest --test-dir "$example" -R '^sectl_conform$' >"$work/refusing.log" 2>&1; then
  cat "$work/refusing.log" >&2
  fail "the example's conformance test passed for a plugin that refuses to register"
fi
grep -q 'refuses to register' "$example/sectl-junit.xml" ||
  fail "the JUnit report of the refused plugin does not say why"

step "all good"
