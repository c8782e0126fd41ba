#!/usr/bin/env bash
# Runs the aarch64 manylinux2014 wheel on an emulated aarch64 CPython:
#
#   bash .ci/aarch64_qemu.sh WORK_DIR WHEEL
#
# qemu-user-static (Debian) runs aarch64 binaries on this x86_64 machine. The
# aarch64 CPython is Debian's own (bookworm's python3.11 and the libraries it
# links), downloaded with a private apt state under WORK_DIR (the system's apt
# configuration and package database are not touched) and unpacked there with
# dpkg -x, not installed. numpy and rich come from PyPI as aarch64 wheels. Then
# the installed wheel runs the same two examples as the x86_64 one.
#
# Needs root for `apt-get install qemu-user-static` when qemu is missing.
set -euo pipefail
work=$1
wheel=$2
dir=$work/aarch64
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/root"

if ! command -v qemu-aarch64-static >/dev/null; then
    echo "aarch64: installing qemu-user-static"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static >/dev/null
fi

apt_arm64=(
    -o APT::Architecture=arm64 -o APT::Architectures=arm64
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" -o Dir::State::status=/dev/null
    -o APT::Sandbox::User=root
)
apt-get -qq "${apt_arm64[@]}" update
# The interpreter, its standard library and the shared libraries they (and
# numpy's and opgraph's extensions) link.
(cd "$dir/debs" && apt-get -qq "${apt_arm64[@]}" download \
    python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libc6 libgcc-s1 libstdc++6 \
    zlib1g libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 libcrypt1)
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done

python3 -m pip install --quiet --target "$dir/site" --platform manylinux2014_aarch64 \
    --python-version 3.11 --implementation cp --only-binary=:all: "$wheel"

run() { (cd "$dir" && PYTHONPATH="$dir/site" qemu-aarch64-static -L "$dir/root" "$dir/root/usr/bin/python3.11" "$@"); }
run -c 'import platform, opgraph; print("aarch64:", platform.machine(), "opgraph", opgraph.__version__)'
run -m opgraph compile --example lenet -q --json "$dir/lenet.json"
run -c 'import json, sys; r = json.load(open(sys.argv[1])); print("lenet nodes:", len(r["nodes"]))' "$dir/lenet.json"
run -m opgraph.examples.custom_op
