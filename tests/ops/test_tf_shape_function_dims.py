"""Dims TensorFlow's C++ shape functions know on inputs of unknown dims or
rank, which opgraph must know too. `tests/tensorflow/test_tf_vs_tensorflow.py`
found each against TensorFlow itself; these cases keep them where
TensorFlow is not installed."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import Feed, desc, infer_output
from nn_helpers import infer_outputs

import opgraph

UNKNOWN_RANK = [-2]


@pytest.mark.parametrize(
    ("x", "data_format", "expected"),
    [
        ([-1, 3, 4, -1], "NHWC", (-1, 3, 4, 5)),
        ([2, -1, 4, 4], "NCHW", (2, 5, 4, 4)),
        (UNKNOWN_RANK, "NHWC", (-2,)),
    ],
)
def test_bias_add_takes_unknown_channels_from_the_bias(
    x: list[int], data_format: str, expected: tuple[int, ...]
) -> None:
    # BiasAddShape merges the channel dim with the bias length.
    out = infer_output("BiasAdd", [desc(x), desc([5])], {"data_format": data_format})
    assert out.shape == expected


def test_bias_add_keeps_no_range_it_was_not_given() -> None:
    out = infer_output("BiasAdd", [desc([-1, 3, -1]), desc([5])])
    assert out.shape == (-1, 3, 5)
    assert out.shape_range is None


@pytest.mark.parametrize(
    ("x", "asserted", "expected"),
    [
        ([-1, 4], [5, -1], (5, 4)),
        (UNKNOWN_RANK, [2, -1, 3], (2, -1, 3)),
        ([3, -1], UNKNOWN_RANK, (3, -1)),
    ],
)
def test_ensure_shape_merges_the_asserted_shape(
    x: list[int], asserted: list[int], expected: tuple[int, ...]
) -> None:
    assert infer_output("EnsureShape", [desc(x)], {"shape": asserted}).shape == expected


@pytest.mark.parametrize(("x", "asserted"), [([3, 4], [3, 5]), ([3, 4], [3, 4, 1])])
def test_ensure_shape_refuses_another_shape(x: list[int], asserted: list[int]) -> None:
    with pytest.raises(opgraph.InferShapeError, match="EnsureShape asserts"):
        infer_output("EnsureShape", [desc(x)], {"shape": asserted})


def test_ensure_shape_passes_a_value_through() -> None:
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = infer_output("EnsureShape", [value], {"shape": [2, -1]})
    assert out.shape == (2, 3)
    assert out.value is not None and np.array_equal(out.value, value)


def test_slice_of_unknown_rank_takes_dims_from_constant_sizes() -> None:
    begin, size = np.asarray([1, 0], np.int32), np.asarray([-1, 2], np.int32)
    assert infer_output("Slice", [desc(UNKNOWN_RANK), begin, size]).shape == (-1, 2)


@pytest.mark.parametrize(
    ("begin", "size", "message"),
    [
        ([1, 0, 0], [-1, 2], "they must match"),
        ([-3, 0], [1, 2], "offsets must be >= 0"),
        ([0], [-2], ">= -1"),
    ],
)
def test_slice_of_unknown_rank_checks_its_constants(begin: list[int], size: list[int], message: str) -> None:
    inputs: list[Feed] = [desc(UNKNOWN_RANK), np.asarray(begin, np.int32), np.asarray(size, np.int32)]
    with pytest.raises(opgraph.NodeError, match=message):
        infer_output("Slice", inputs)


@pytest.mark.parametrize("training", [False, True])
def test_fused_batch_norm_of_unknown_rank_has_four_dims(training: bool) -> None:
    # FusedBatchNormShape: x is 4-D; its channels merge with scale and
    # offset (and mean and variance outside training).
    vectors = [desc([3]), desc([3]), desc([0] if training else [3]), desc([0] if training else [3])]
    outs = infer_outputs("FusedBatchNormV3", [desc(UNKNOWN_RANK), *vectors], {"is_training": training}, n=2)
    assert outs[0].shape == (-1, -1, -1, 3)
    assert outs[1].shape == (3,)


def test_fused_batch_norm_in_training_sizes_channels_from_scale_and_offset() -> None:
    # In training TensorFlow reads no channel count from mean or variance.
    vectors = [desc([-1]), desc([-1]), desc([4]), desc([4])]
    out = infer_output("FusedBatchNormV3", [desc([2, 5, 5, -1]), *vectors], {"is_training": True})
    assert out.shape == (2, 5, 5, -1)


def test_lrn_of_unknown_rank_has_four_dims() -> None:
    assert infer_output("LRN", [desc(UNKNOWN_RANK)]).shape == (-1, -1, -1, -1)
