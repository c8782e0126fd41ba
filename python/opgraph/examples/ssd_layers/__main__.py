"""Loads the SSD-style example net with its custom layers and prints every
layer's output shapes: ``python -m opgraph.examples.ssd_layers``."""

from __future__ import annotations

import opgraph

from . import CUSTOM_PROTO, NET


def main() -> None:
    graph = opgraph.load_caffe(NET, custom_protos=[CUSTOM_PROTO])
    width = max(len(node.name) for node in graph.nodes())
    for node in graph.nodes():
        shapes = ", ".join(str(list(desc.shape)) for desc in node.outputs)
        print(f"{node.name:<{width}}  {node.op_type:<20}  {shapes}")


if __name__ == "__main__":
    main()
