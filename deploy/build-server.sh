#!/usr/bin/env bash
# Builds the game server the container image holds: the snow-fight `server` example with the
# `agones` feature, copied to OUT_DIR as `snow-fight-server`.
#
#   deploy/build-server.sh OUT_DIR [PROFILE]
#
# PROFILE is cargo's: `release` (the default, what the Dockerfile builds) or `dev` (what CI
# builds: the same command on the profile whose dependencies its tests already compiled). The
# `agones` feature compiles the Agones SDK's .proto files: it needs protoc (Debian's
# protobuf-compiler).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: deploy/build-server.sh OUT_DIR [PROFILE]}
profile=${2:-release}
cargo build --locked --profile "$profile" -p snow-fight --features agones --example server
case $profile in
  dev) dir=debug ;;
  *) dir=$profile ;;
esac
mkdir -p "$out"
cp "${CARGO_TARGET_DIR:-target}/$dir/examples/server" "$out/snow-fight-server"
echo "built $out/snow-fight-server ($profile)"
