"""Caffe-SSD's custom layers (Normalize, Permute, PriorBox, DetectionOutput)
as an opgraph extension: a ``custom.proto`` for their parameters, four op
prototypes with shape rules (:mod:`.ops`) and four Caffe parser plugins
(:mod:`.plugins`), written against the public API only and checked with
``mypy --strict --disallow-any-expr``. Importing the package registers them.

``net.prototxt`` is a small SSD-style detector using all four; its layer
shapes agree with OpenCV's Caffe importer (tests/caffe/test_ssd_example.py)::

    python -m opgraph.examples.ssd_layers
"""

from __future__ import annotations

from pathlib import Path

from . import ops, plugins

HERE = Path(__file__).resolve().parent
CUSTOM_PROTO = HERE / "custom.proto"
NET = HERE / "net.prototxt"

ops.register()

__all__ = ["CUSTOM_PROTO", "NET", "ops", "plugins"]
