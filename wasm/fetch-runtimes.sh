#!/bin/sh
# fetch-runtimes.sh [OUTDIR] — fetch the protobuf-c 1.4.1 and nanopb 0.4.7 runtime sources.
#
# No third-party source is committed to this repository. The runtimes come from Debian's
# source packages (the versions that match Debian's protoc-c 1.4.1 and nanopb 0.4.7 generator),
# through a private apt configuration that leaves /etc/apt alone. apt checks the downloaded
# tarballs against the signed bookworm Sources index.
#
# Result (OUTDIR defaults to build/deps, git-ignored):
#   OUTDIR/protobuf-c/{protobuf-c.c,protobuf-c.h,LICENSE}   -> #include <protobuf-c/protobuf-c.h> with -IOUTDIR
#   OUTDIR/nanopb/{pb.h,pb_common.[ch],pb_decode.[ch],pb_encode.[ch],LICENSE.txt}
# Idempotent: does nothing when every file is already there.
set -eu

OUT=${1:-build/deps}
PBC_VERSION=1.4.1
PBC_DEBIAN=1.4.1-1
NPB_VERSION=0.4.7
NPB_DEBIAN=0.4.7-2
PBC_FILES="protobuf-c.c protobuf-c.h LICENSE"
NPB_FILES="pb.h pb_common.c pb_common.h pb_decode.c pb_decode.h pb_encode.c pb_encode.h LICENSE.txt"

complete() {
  for f in $PBC_FILES; do [ -s "$OUT/protobuf-c/$f" ] || return 1; done
  for f in $NPB_FILES; do [ -s "$OUT/nanopb/$f" ] || return 1; done
}
if complete; then exit 0; fi

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/parts" "$W/lists/partial" "$W/src" "$W/stage/protobuf-c" "$W/stage/nanopb"
cat > "$W/parts/src.sources" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
APTOPT="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$W/parts -o Dir::State::Lists=$W/lists"
APTOPT="$APTOPT -o Dir::Etc::Parts=/dev/null -o APT::Sandbox::User=root"

echo "fetch-runtimes: downloading protobuf-c $PBC_DEBIAN and nanopb $NPB_DEBIAN source packages" >&2
# shellcheck disable=SC2086
apt-get $APTOPT update -qq
# --download-only + tar: needs neither dpkg-dev nor deb-src lines in /etc/apt. Debian patches neither runtime.
# shellcheck disable=SC2086
( cd "$W/src" && apt-get $APTOPT source --download-only -qq "protobuf-c=$PBC_DEBIAN" "nanopb=$NPB_DEBIAN" )

tar -xzf "$W/src/protobuf-c_$PBC_VERSION.orig.tar.gz" -C "$W/src" \
  "protobuf-c-$PBC_VERSION/protobuf-c/protobuf-c.c" "protobuf-c-$PBC_VERSION/protobuf-c/protobuf-c.h" \
  "protobuf-c-$PBC_VERSION/LICENSE"
cp "$W/src/protobuf-c-$PBC_VERSION/protobuf-c/protobuf-c.c" "$W/src/protobuf-c-$PBC_VERSION/protobuf-c/protobuf-c.h" \
  "$W/src/protobuf-c-$PBC_VERSION/LICENSE" "$W/stage/protobuf-c/"

members=""
for f in $NPB_FILES; do members="$members nanopb-$NPB_VERSION/$f"; done
# shellcheck disable=SC2086
tar -xzf "$W/src/nanopb_$NPB_VERSION.orig.tar.gz" -C "$W/src" $members
for f in $NPB_FILES; do cp "$W/src/nanopb-$NPB_VERSION/$f" "$W/stage/nanopb/"; done

grep -Eq "define[[:space:]]+PROTOBUF_C_VERSION_NUMBER[[:space:]]+1004001" "$W/stage/protobuf-c/protobuf-c.h" || {
  echo "fetch-runtimes: protobuf-c.h is not version $PBC_VERSION" >&2; exit 1; }

mkdir -p "$OUT"
rm -rf "$OUT/protobuf-c" "$OUT/nanopb"
mv "$W/stage/protobuf-c" "$W/stage/nanopb" "$OUT/"
complete
echo "fetch-runtimes: runtimes in $OUT" >&2
