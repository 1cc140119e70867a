# Sourced by .ci/setup.sh and .ci/run: exports OSI_SHARED_DIR, the folder with the ONNX backend
# tests and spec (onnx-backend/, onnx-spec/) that the test suites read. It is ../shared beside the
# checkout; a clone made elsewhere (git clone . "$(mktemp -d)") finds it beside the repository it
# was cloned from. A value set by the caller wins.
if [ -z "${OSI_SHARED_DIR:-}" ]; then
  OSI_SHARED_DIR=$(realpath -m ../shared)
  origin=$(git config --get remote.origin.url 2>/dev/null || true)
  if [ ! -d "$OSI_SHARED_DIR" ] && [ -n "$origin" ] && [ -d "$origin/../shared" ]; then
    OSI_SHARED_DIR=$(realpath "$origin/../shared")
  fi
fi
export OSI_SHARED_DIR
