"""Hypothesis draws of one-layer Caffe nets: the layer parameters whose
combinations decide blob shapes (kernel / stride / pad / dilation in their
square and ``_h`` / ``_w`` spellings, groups, Caffe's pooling round-up and
its clip of a last window starting in the padding, global pooling, axes
counted from either end, ``0`` and ``-1`` in Reshape, Slice points, Crop
offsets). Stock Caffe's layers only: SSD's Permute, PriorBox and Normalize
are checked against OpenCV by test_ssd_example.py.

Each case is a prototxt with its inputs declared, and the weight blobs a
Caffe implementation needs to size the layer (OpenCV's importer refuses a
convolution without them); the test writes them as a zero-filled
.caffemodel."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

Shape = tuple[int, ...]


@dataclass
class LayerCase:
    """Inputs ``in0``, ``in1``, ... of ``inputs``' shapes, then one layer
    ``layer`` (of type ``type``) with ``params`` (prototxt text) and tops
    ``tops``; ``blobs`` are its weight shapes."""

    type: str
    inputs: list[Shape]
    params: str = ""
    tops: int = 1
    blobs: list[Shape] = field(default_factory=list)
    #: The tops' shapes by the formula in Caffe's own source, for the forms
    #: where OpenCV may depart from it (where they differ, this decides).
    caffe_rule: list[Shape] | None = None

    def prototxt(self) -> str:
        lines = ['name: "drawn"']
        for i, shape in enumerate(self.inputs):
            dims = " ".join(f"dim: {d}" for d in shape)
            lines += [f'input: "in{i}"', f"input_shape {{ {dims} }}"]
        bottoms = " ".join(f'bottom: "in{i}"' for i in range(len(self.inputs)))
        tops = " ".join(f'top: "out{i}"' for i in range(self.tops))
        lines.append(f'layer {{ name: "layer" type: "{self.type}" {bottoms} {tops} {self.params} }}')
        return "\n".join(lines) + "\n"

    @property
    def id(self) -> str:
        shapes = ",".join("x".join(map(str, s)) for s in self.inputs)
        tops = f" -> {self.tops} tops" if self.tops > 1 else ""
        return f"{self.type}({shapes}) {{{self.params}}}{tops}"


Draw = Callable[[st.DataObject], LayerCase]
#: Each group of layer types by name → its draw.
DRAWS: dict[str, Draw] = {}


def _draw(name: str) -> Callable[[Draw], Draw]:
    def register(draw: Draw) -> Draw:
        DRAWS[name] = draw
        return draw

    return register


def _dims(d: st.DataObject, rank: int, lo: int = 1, hi: int = 6) -> Shape:
    return tuple(d.draw(st.lists(st.integers(lo, hi), min_size=rank, max_size=rank)))


def _pair(d: st.DataObject, key: str, lo: int, hi: int, default: int | None) -> tuple[str, tuple[int, int]]:
    """One of Caffe's spellings of a 2-D window parameter: absent (the
    default), ``key: n`` or ``key_h: h key_w: w``; its text and (h, w)."""
    form = d.draw(st.sampled_from(["absent", "square", "hw"] if default is not None else ["square", "hw"]))
    if form == "absent" and default is not None:
        return "", (default, default)
    if form == "square":
        n = d.draw(st.integers(lo, hi))
        return f"{'kernel_size' if key == 'kernel' else key}: {n}", (n, n)
    h, w = d.draw(st.integers(lo, hi)), d.draw(st.integers(lo, hi))
    return f"{key}_h: {h} {key}_w: {w}", (h, w)


@_draw("Convolution")
def convolution(d: st.DataObject) -> LayerCase:
    deconv = d.draw(st.booleans())
    group = d.draw(st.sampled_from([1, 1, 2]))
    channels, outputs = group * d.draw(st.integers(1, 2)), group * d.draw(st.integers(1, 2))
    kernel_text, (kh, kw) = _pair(d, "kernel", 1, 3, None)
    stride_text, strides = _pair(d, "stride", 1, 3, 1)
    pad_text, pads = _pair(d, "pad", 0, 2, 0)
    params = [f"num_output: {outputs}", kernel_text, stride_text, pad_text]
    dilation = d.draw(st.integers(1, 2)) if d.draw(st.booleans()) else 1
    if dilation > 1 or d.draw(st.booleans()):
        params.append(f"dilation: {dilation}")
    if group > 1:
        params.append(f"group: {group}")
    bias = d.draw(st.booleans())
    if not bias:
        params.append("bias_term: false")
    x = (d.draw(st.integers(1, 2)), channels, *_dims(d, 2, 1, 9))
    weights = (channels, outputs // group, kh, kw) if deconv else (outputs, channels // group, kh, kw)
    blobs: list[Shape] = [weights, (outputs,)] if bias else [weights]
    text = " ".join(p for p in params if p)
    kind = "Deconvolution" if deconv else "Convolution"
    case = LayerCase(kind, [x], f"convolution_param {{ {text} }}", blobs=blobs)
    if deconv and dilation > 1:
        # OpenCV's Deconvolution leaves the dilation out of the output size;
        # Caffe's (BaseConvolutionLayer via DeconvolutionLayer::
        # compute_output_shape) is stride * (in - 1) + dilation * (k - 1) + 1 - 2 * pad.
        sizes = [
            s * (n - 1) + dilation * (k - 1) + 1 - 2 * p
            for n, k, s, p in zip(x[2:], (kh, kw), strides, pads, strict=True)
        ]
        case.caffe_rule = [(x[0], outputs, *sizes)]
    return case


@_draw("Pooling")
def pooling(d: st.DataObject) -> LayerCase:
    params = [f"pool: {d.draw(st.sampled_from(['MAX', 'AVE']))}"]
    window = None
    if d.draw(st.integers(0, 3)) == 0:
        params.append("global_pooling: true")
    else:
        kernel_text, kernel = _pair(d, "kernel", 1, 4, None)
        stride_text, strides = _pair(d, "stride", 1, 3, 1)
        pad_text, pads = _pair(d, "pad", 0, 2, 0)
        params += [kernel_text, stride_text, pad_text]
        window = (kernel, strides, pads)
    x = (1, d.draw(st.integers(1, 3)), *_dims(d, 2, 1, 9))
    case = LayerCase("Pooling", [x], "pooling_param { " + " ".join(p for p in params if p) + " }")
    if window is not None:
        # Caffe's PoolingLayer::Reshape: ceil((in + 2 pad - k) / s) + 1, then,
        # when any pad is non-zero, one fewer in every dim whose last window
        # would start in the padding. OpenCV clips only a dim with its own pad.
        kernel, strides, pads = window
        sizes = [
            -(-(n + 2 * p - k) // s) + 1 for n, k, s, p in zip(x[2:], kernel, strides, pads, strict=True)
        ]
        if any(pads):
            sizes = [
                o - ((o - 1) * s >= n + p) for o, n, s, p in zip(sizes, x[2:], strides, pads, strict=True)
            ]
        case.caffe_rule = [(*x[:2], *sizes)]
    return case


@_draw("InnerProduct")
def inner_product(d: st.DataObject) -> LayerCase:
    rank = d.draw(st.integers(2, 4))
    x = _dims(d, rank, 1, 4)
    axis = d.draw(st.integers(-rank + 1, rank - 1)) if d.draw(st.booleans()) else None
    outputs = d.draw(st.integers(1, 5))
    start = 1 if axis is None else axis % rank
    width = 1
    for n in x[start:]:
        width *= n
    params = [f"num_output: {outputs}"] + ([] if axis is None else [f"axis: {axis}"])
    return LayerCase(
        "InnerProduct",
        [x],
        "inner_product_param { " + " ".join(params) + " }",
        blobs=[(outputs, width), (outputs,)],
    )


@_draw("Concat")
def concat(d: st.DataObject) -> LayerCase:
    rank = d.draw(st.integers(1, 4))
    axis = d.draw(st.integers(-rank, rank - 1))
    base = _dims(d, rank, 1, 4)
    inputs = []
    for _ in range(d.draw(st.integers(1, 3))):
        shape = list(base)
        shape[axis] = d.draw(st.integers(1, 4))
        inputs.append(tuple(shape))
    params = f"concat_param {{ axis: {axis} }}" if axis != 1 or d.draw(st.booleans()) else ""
    return LayerCase("Concat", inputs, params)


@_draw("Slice")
def slice_(d: st.DataObject) -> LayerCase:
    rank = d.draw(st.integers(1, 4))
    x = _dims(d, rank, 1, 6)
    axis = d.draw(st.integers(-rank, rank - 1))
    size = x[axis]
    # (OpenCV sizes no Slice without slice points: those are drawn one time
    # in four, and whenever the axis has size 1.)
    even = size == 1 or d.draw(st.integers(0, 3)) == 0
    points = [] if even else sorted(d.draw(st.sets(st.integers(1, size - 1), min_size=1, max_size=3)))
    if points:
        text = " ".join(f"slice_point: {p}" for p in points)
        return LayerCase("Slice", [x], f"slice_param {{ axis: {axis} {text} }}", tops=len(points) + 1)
    # Without slice points, the tops split the axis evenly.
    tops = d.draw(st.sampled_from([t for t in range(1, 4) if size % t == 0]))
    return LayerCase("Slice", [x], f"slice_param {{ axis: {axis} }}", tops=tops)


@_draw("Flatten")
def flatten(d: st.DataObject) -> LayerCase:
    rank = d.draw(st.integers(1, 5))
    x = _dims(d, rank, 1, 4)
    axis = d.draw(st.integers(-rank, rank - 1))
    end = d.draw(st.integers(-rank, rank - 1))
    if (end % rank) < (axis % rank):
        axis, end = end, axis
    return LayerCase("Flatten", [x], f"flatten_param {{ axis: {axis} end_axis: {end} }}")


@_draw("Reshape")
def reshape(d: st.DataObject) -> LayerCase:
    rank = d.draw(st.integers(1, 4))
    x = _dims(d, rank, 1, 4)
    # Replacing no dims (num_axes 0, or axis at the end) is drawn one time
    # in eight: OpenCV sizes neither.
    edge = d.draw(st.integers(0, 7)) == 0
    start = d.draw(st.integers(0, rank if edge else rank - 1))
    count = d.draw(st.integers(0 if edge else 1, rank - start))
    replaced = x[start : start + count]
    total = 1
    for n in replaced:
        total *= n
    # The new dims multiply to the replaced dims' product: a 0 copies the
    # bottom's dim at its position (axis + i), the last takes what is left,
    # and one may be given as -1 for Caffe to infer.
    new: list[int] = []
    remaining = total
    count_new = d.draw(st.integers(1, 3))
    for i in range(count_new):
        last = i == count_new - 1
        copyable = i < len(replaced) and remaining % replaced[i] == 0
        if copyable and (not last or remaining == replaced[i]) and d.draw(st.booleans()):
            new.append(0)
            remaining //= replaced[i]
            continue
        factors = [f for f in range(1, remaining + 1) if remaining % f == 0]
        new.append(remaining if last else d.draw(st.sampled_from(factors)))
        remaining //= new[-1]
    inferred = [i for i, n in enumerate(new) if n != 0]
    if len(inferred) > 0 and d.draw(st.booleans()):
        new[d.draw(st.sampled_from(inferred))] = -1
    text = " ".join(f"dim: {n}" for n in new)
    params = [f"shape {{ {text} }}"]
    if start or d.draw(st.booleans()):
        params.append(f"axis: {start}")
    if count != rank - start or d.draw(st.booleans()):
        params.append(f"num_axes: {count}")
    return LayerCase("Reshape", [x], "reshape_param { " + " ".join(params) + " }")


@_draw("Crop")
def crop(d: st.DataObject) -> LayerCase:
    x = (d.draw(st.integers(1, 2)), *_dims(d, 3, 1, 6))
    axis = d.draw(st.integers(0, 3))
    like = tuple(n if a < axis else d.draw(st.integers(1, n)) for a, n in enumerate(x))
    params = [f"axis: {axis}"] if axis != 2 or d.draw(st.booleans()) else []
    cropped = range(axis if params else 2, 4)
    offsets = [d.draw(st.integers(0, x[a] - like[a])) for a in cropped]
    if len(offsets) > 0 and d.draw(st.booleans()):
        if all(o == offsets[0] for o in offsets) or d.draw(st.booleans()):
            common = min(x[a] - like[a] for a in cropped)
            params.append(f"offset: {min(offsets[0], common)}")
        else:
            params += [f"offset: {o}" for o in offsets]
    return LayerCase("Crop", [x, like], "crop_param { " + " ".join(params) + " }")


@_draw("Normalizing")
def normalizing(d: st.DataObject) -> LayerCase:
    kind = d.draw(st.sampled_from(["Softmax", "LRN", "MVN", "BatchNorm", "Scale", "Eltwise"]))
    x = (d.draw(st.integers(1, 2)), *_dims(d, 3, 1, 5))
    channels = x[1]
    if kind == "Softmax":
        axis = d.draw(st.integers(-4, 3))
        return LayerCase(kind, [x], f"softmax_param {{ axis: {axis} }}")
    if kind == "LRN":
        region = d.draw(st.sampled_from(["ACROSS_CHANNELS", "WITHIN_CHANNEL"]))
        return LayerCase(kind, [x], f"lrn_param {{ local_size: 3 norm_region: {region} }}")
    if kind == "MVN":
        flags = f"normalize_variance: {str(d.draw(st.booleans())).lower()}"
        return LayerCase(
            kind, [x], f"mvn_param {{ {flags} across_channels: {str(d.draw(st.booleans())).lower()} }}"
        )
    if kind == "BatchNorm":
        return LayerCase(
            kind, [x], "batch_norm_param { use_global_stats: true }", blobs=[(channels,), (channels,), (1,)]
        )
    if kind == "Eltwise":
        operation = d.draw(st.sampled_from(["SUM", "PROD", "MAX"]))
        count = d.draw(st.integers(2, 3))
        return LayerCase(kind, [x] * count, f"eltwise_param {{ operation: {operation} }}")
    # Scale: a learned blob over x's dims from `axis` (num_axes of them), and a bias.
    axis = d.draw(st.integers(0, 3))
    num_axes = d.draw(st.integers(0, 4 - axis))
    scale_shape = x[axis : axis + num_axes]
    bias = d.draw(st.booleans())
    params = f"scale_param {{ axis: {axis} num_axes: {num_axes} bias_term: {str(bias).lower()} }}"
    return LayerCase(kind, [x], params, blobs=[scale_shape, scale_shape] if bias else [scale_shape])
