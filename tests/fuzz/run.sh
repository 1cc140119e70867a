#!/usr/bin/env bash
# tests/fuzz/run.sh [--seconds N] [--build-only] [target...]
#
# Builds the libFuzzer targets with clang (-DOSI_FUZZ=ON, ASan+UBSan) in build-fuzz/ and runs each
# target (default: all of them, one after the other, one process: this is a 2-core machine) for N
# seconds (default 60). Also: npm run fuzz -- --seconds N [target].
# The release check (30 minutes per target after the last change to the C sources):
#   bash tests/fuzz/run.sh --seconds 1800
# which ends with one line per target ("fuzz_model: clean, 1800 s, 250000 runs") and exits 0 only
# when every target ran its time without a finding.
#
# fuzz_model also has a structural mutator (proto_mutator.c): duplicated, split, reordered and
# unknown fields, changed wire types and varint lengths, besides libFuzzer's byte mutations.
#
# Corpora live in build-fuzz/corpus/<target>/ (never committed):
#   seed/  rebuilt on every run: fuzz_model gets every backend model under ../shared/onnx-backend
#          (node/*/model.onnx, simple, light, pytorch-*), fuzz_expr the lines of expr_seeds.txt;
#   work/  what the fuzzer adds (kept between runs).
# tests/fuzz/regressions/<target>/ (committed) is read as a corpus too. A crash, timeout, leak or
# out-of-memory input is written to build-fuzz/artifacts/<target>/; once fixed, copy it (small)
# into tests/fuzz/regressions/<target>/ so that ctest's <target>_replay keeps it fixed.
# Exit status: non-zero when a target reported a finding.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=60
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --seconds=*) seconds=${1#*=}; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_expr fuzz_model)

B=build-fuzz
backend=${OSI_BACKEND_DIR:-${OSI_SHARED_DIR:-../shared}/onnx-backend}

cmake -S . -B "$B" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSI_FUZZ=ON \
  -DOSI_BACKEND_NODE_DIR="$(realpath -m "$backend/node")" >"$B.cmake.log" 2>&1 ||
  { cat "$B.cmake.log"; exit 1; }
cmake --build "$B" -j2 --target "${targets[@]}" >"$B.build.log" 2>&1 ||
  { tail -n 40 "$B.build.log"; exit 1; }
[ "$build_only" -eq 1 ] && exit 0

seed_corpus() {
  local target=$1 dir=$B/corpus/$1/seed
  rm -rf "$dir"
  mkdir -p "$dir" "$B/corpus/$target/work" "$B/artifacts/$target"
  case "$target" in
    fuzz_model)
      local i=0
      while IFS= read -r f; do
        i=$((i + 1))
        cp "$f" "$dir/seed_$i.onnx"
      done < <(find "$backend" -name '*.onnx' 2>/dev/null | sort)
      ;;
    fuzz_expr)
      # byte 0 of an input picks the mode: bit 0 assume_nonneg off, bit 1 the float domain on
      # ('0' nonneg, '1' signed, '2' nonneg in the float domain)
      local i=0
      while IFS= read -r line; do
        i=$((i + 1))
        printf '0%s' "$line" >"$dir/seed_${i}a"
        printf '1%s' "$line" >"$dir/seed_${i}b"
        printf '2%s' "$line" >"$dir/seed_${i}c"
      done <tests/fuzz/expr_seeds.txt
      ;;
  esac
}

rc=0
summary=()
for target in "${targets[@]}"; do
  seed_corpus "$target"
  dict=()
  [ -f "tests/fuzz/$target.dict" ] && dict=(-dict="tests/fuzz/$target.dict")
  extra=()
  # Model inputs: the seeds go up to ~210 KB; larger mutations are pointless.
  [ "$target" = fuzz_model ] && extra=(-max_len=262144)
  echo "== $target: ${seconds}s, corpus $B/corpus/$target"
  t0=$SECONDS
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    "$B/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
    -print_final_stats=1 "${dict[@]}" "${extra[@]}" \
    -artifact_prefix="$B/artifacts/$target/" \
    "$B/corpus/$target/work" "$B/corpus/$target/seed" "tests/fuzz/regressions/$target" \
    >"$B/$target.log" 2>&1
  trc=$?
  tail -n 12 "$B/$target.log"
  echo "== $target: exit $trc after $((SECONDS - t0)) s (log: $B/$target.log)"
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$B/$target.log" | tail -n 1)
  if [ "$trc" -eq 0 ] && [ -n "$runs" ]; then
    summary+=("$target: clean, $((SECONDS - t0)) s, $runs runs")
  else
    summary+=("$target: FINDING after $((SECONDS - t0)) s (exit $trc): see $B/$target.log and $B/artifacts/$target/")
    rc=1
  fi
done
printf '%s\n' "${summary[@]}"
exit $rc
