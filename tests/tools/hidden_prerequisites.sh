#!/usr/bin/env bash
# Hides each prerequisite of the tests in turn and runs `bash .ci/run`, which must fail within 5
# minutes with a line naming what is missing (issue 31). Each run is in a private mount namespace
# (unshare, root only): the prerequisite is hidden by a bind mount that only that run sees, so
# nothing on the machine changes and other users of it are not affected.
#   bash tests/tools/hidden_prerequisites.sh [chromium|python|onnxruntime|shared|wasm ...]
# Prints, per prerequisite, the seconds until .ci/run ended, its exit status and the lines that
# name what is missing; exits 1 when a run passed, took 5 minutes or more, or named nothing.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. .ci/shared_dir.sh
REPO=$PWD
PY=/usr/lib/python3/dist-packages
EMPTY=$(mktemp -d)
trap 'rmdir "$EMPTY"' EXIT

# The bind mounts that hide each prerequisite (an empty folder over a folder, /dev/null over a file).
hide() {
  case $1 in
    chromium) echo "mount --bind /dev/null /usr/bin/chromium" ;;
    python) echo "mount --bind $EMPTY $PY/onnx && mount --bind $EMPTY $PY/torch" ;;
    onnxruntime) echo "mount --bind $EMPTY $REPO/node_modules/onnxruntime-node" ;;
    shared) echo "mount --bind $EMPTY $OSI_SHARED_DIR" ;;
    wasm) echo "mount --bind /dev/null $REPO/dist/onnx_shapes.wasm" ;;
    *) echo "unknown prerequisite $1" >&2; exit 2 ;;
  esac
}

[ "$(id -u)" -eq 0 ] || { echo "needs root (unshare --mount)" >&2; exit 2; }
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(chromium python onnxruntime shared wasm)
bad=0
for p in "${which[@]}"; do
  log=$(mktemp)
  t0=$SECONDS
  # The run is stopped at 10 minutes: twice the limit, so that a run over it is reported as such.
  timeout -k 10 600 unshare --mount --propagation private bash -c "$(hide "$p") && bash .ci/run" >"$log" 2>&1
  rc=$?
  secs=$((SECONDS - t0))
  named=$(grep -E '^preflight: MISSING|^cannot run the browser tests' "$log")
  echo "== $p hidden: .ci/run exit $rc after $secs s"
  echo "${named:-(no line names it)}" | sed 's/^/   /'
  tail -n 1 "$log" | sed 's/^/   last line: /'
  if [ "$rc" -eq 0 ] || [ "$secs" -ge 300 ] || [ -z "$named" ]; then bad=1; fi
  rm -f "$log"
done
exit $bad
