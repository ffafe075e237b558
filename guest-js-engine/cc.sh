#!/usr/bin/env bash
# The C compiler of the guest's QuickJS (CC_wasm32_wasip2, set by
# `xtask guest`). rquickjs-sys copies QuickJS's sources into its build
# directory and compiles each file with one call to this script; before the
# call reaches clang, the project's patch for that file
# (patches/<file>.patch) is applied to the copy, once. The sources in
# cargo's registry are never touched.
set -euo pipefail
patches="$(cd "$(dirname "$0")" && pwd)/patches"
for arg in "$@"; do
  case "$arg" in
    *.c)
      patch_file="$patches/$(basename "$arg").patch"
      if [ -f "$patch_file" ] && ! grep -q 'coderun:' "$arg"; then
        patch --quiet --forward --no-backup-if-mismatch "$arg" < "$patch_file"
      fi
      ;;
  esac
done
exec "${CODERUN_GUEST_CLANG:-clang-19}" "$@"
