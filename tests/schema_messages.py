"""Python message classes of opgraph's own protobuf schemas
(``rust/core/proto``), for tests and benchmarks that write models with the
``protobuf`` package: grpcio-tools' ``protoc`` compiles the schema into a
descriptor set, from which ``message_factory`` makes the classes. The bytes
they write are what TensorFlow or Caffe would write, with neither installed."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PROTO_ROOT = Path(__file__).resolve().parents[1] / "rust" / "core" / "proto"


def message_classes(proto: str, names: list[str]) -> dict[str, Any]:
    """The classes of messages ``names`` (full names, e.g. ``tensorflow.GraphDef``)
    of schema file ``proto`` (relative to ``rust/core/proto``)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "schema.desc"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                f"-I{PROTO_ROOT}",
                "--include_imports",
                f"--descriptor_set_out={out}",
                proto,
            ],
            check=True,
        )
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(name)) for name in names}
