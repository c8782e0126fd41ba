#!/usr/bin/env bash
# Smoke-runs every fuzz target of opgraph-core for a short while; exits
# non-zero when a build fails or a target finds a crash.
#
# cargo-fuzz passes nightly-only flags; RUSTC_BOOTSTRAP=1 lets the stable
# toolchain accept them. `-s none`: no sanitizer. The targets reach no
# unsafe code (opgraph-core's one unsafe block memory-maps a model file,
# which they don't use), so ASan would mostly cost build time and speed; panics,
# overflow checks (on in fuzz builds) and the oracle's asserts find bugs.
#
#   bash fuzz/smoke.sh             # 20 s per target
#   FUZZ_SECONDS=300 bash fuzz/smoke.sh
#   FUZZ_CORPUS_DIR=/tmp/corpora bash fuzz/smoke.sh   # corpora elsewhere (.ci/run does)
set -euo pipefail

cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-20}"
corpora="${FUZZ_CORPUS_DIR:-corpus}"
export RUSTC_BOOTSTRAP=1
# The cargo-fuzz version this script is known to work with.
cargo_fuzz_version=0.13.2

if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $cargo_fuzz_version" ]; then
    echo "smoke: installing cargo-fuzz $cargo_fuzz_version"
    cargo install cargo-fuzz --locked --version "$cargo_fuzz_version"
fi

# cargo fuzz has no --locked of its own: check here that the committed
# Cargo.lock already resolves the crate (else the builds below would rewrite
# it), then build everything --locked or through cargo fuzz on that lock.
cargo metadata --locked --format-version 1 >/dev/null

# The fuzz crate is outside the main workspace, so its own tests (the
# reference shape rules, the oracle catching planted mistakes) run here.
echo "smoke: testing the oracle"
cargo test --locked --lib --quiet

echo "smoke: building fuzz targets"
cargo fuzz build -s none

# Real inputs a target starts from besides its own corpus (read only).
seeds_for() {
    case "$1" in
        graphdef) echo "../tests/tensorflow/data" ;;
        caffe) echo "../tests/caffe/data" ;;
        onnx) echo "../tests/onnx/seeds" ;;
    esac
}

targets="$(cargo fuzz list)"
for target in $targets; do
    echo "smoke: fuzzing $target for ${seconds}s"
    # A corpus per target under corpus/ (git-ignored) carries over between
    # local runs; crashes land in artifacts/<target>/.
    mkdir -p "$corpora/$target"
    dict=()
    # Issue 12's hostile values as a dictionary, where the target has one.
    if [ -f "dicts/$target.dict" ]; then dict=(-dict="dicts/$target.dict"); fi
    # shellcheck disable=SC2046 # no seeds: no extra argument
    cargo fuzz run -s none "$target" "$corpora/$target" $(seeds_for "$target") \
        -- -max_total_time="$seconds" -print_final_stats=1 "${dict[@]}"
done
echo "smoke: all targets ran clean"
