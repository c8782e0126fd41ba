"""opgraph.aipp: ATC's --insert_op_conf read by the protobuf text-format
parser, and the sizes a stage works out (src image, crop, resize, padding)
against ATC's rules, checked by hand-computed cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgraph.aipp import AippConfig, apply_aipp, read_insert_op_config
from opgraph.errors import AtcConfigError


def config(tmp_path: Path, body: str) -> AippConfig:
    path = tmp_path / "aipp.cfg"
    path.write_text("aipp_op {\n aipp_mode: static\n" + body + "\n}\n")
    (parsed,) = read_insert_op_config(path)
    return parsed


def test_fields_keep_their_names_and_types(tmp_path: Path) -> None:
    parsed = config(tmp_path, "input_format: YUV420SP_U8\n related_input_rank: 1\n var_reci_chn_0: 0.5")
    assert parsed.mode == "static"
    assert parsed.input_rank == 1
    assert parsed.get("input_format") == "YUV420SP_U8"
    assert parsed.get("var_reci_chn_0") == [0.5]
    assert parsed.get("crop", False) is False


def test_a_yuv420sp_crop_reads_one_and_a_half_bytes_per_pixel(tmp_path: Path) -> None:
    parsed = config(
        tmp_path,
        "input_format: YUV420SP_U8 src_image_size_w: 640 src_image_size_h: 480 crop: true "
        "load_start_pos_w: 80 load_start_pos_h: 16 crop_size_w: 224 crop_size_h: 224 csc_switch: true",
    )
    stage = apply_aipp(parsed, "data", [2, 3, 224, 224], "FLOAT", "NCHW")
    assert stage.input_shape == [2, 480, 640, 3]
    assert stage.input_bytes == 2 * 480 * 640 * 3 // 2
    assert (stage.output_shape, stage.crop, stage.csc) == ([2, 3, 224, 224], True, True)


def test_resize_then_padding_gives_the_model_size(tmp_path: Path) -> None:
    parsed = config(
        tmp_path,
        "input_format: RGB888_U8 src_image_size_w: 1000 src_image_size_h: 500 resize: true "
        "resize_output_w: 300 resize_output_h: 150 padding: true left_padding_size: 10 "
        "right_padding_size: 10 top_padding_size: 5 bottom_padding_size: 5",
    )
    stage = apply_aipp(parsed, "x", [1, 160, 320, 3], "FLOAT", "NHWC")
    assert stage.input_shape == [1, 500, 1000, 3]
    assert stage.input_bytes == 500 * 1000 * 3


def test_sizes_left_at_zero_are_the_models(tmp_path: Path) -> None:
    stage = apply_aipp(config(tmp_path, "input_format: XRGB8888_U8"), "x", [1, 3, 32, 48], "FLOAT", "NCHW")
    assert stage.input_shape == [1, 32, 48, 4]
    assert stage.input_bytes == 32 * 48 * 4


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("input_format: RGB888_U8 src_image_size_w: 30", "src_image_size_w"),
        (
            "input_format: RGB888_U8 crop: true load_start_pos_w: 8 crop_size_w: 224 crop_size_h: 224",
            "load_start_pos_w",
        ),
        ("input_format: RAW10", "input_format"),
        ("input_format: YUV400_U8", "input_format"),  # one channel for a 3-channel model
        ("input_format: RGB888_U8 padding: true left_padding_size: -2", "left_padding_size"),
    ],
)
def test_a_config_that_does_not_fit_names_the_field(tmp_path: Path, body: str, field: str) -> None:
    with pytest.raises(AtcConfigError) as caught:
        apply_aipp(config(tmp_path, body), "data", [1, 3, 224, 224], "FLOAT", "NCHW")
    assert caught.value.field == field
    assert field in str(caught.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("aipp_op { src_w: 1 }", "line 1, column 11"),
        ("aipp_op {\n  crop: maybe\n}", "line 2"),
        ("aipp_op {", "end of input"),
        ("", "no aipp_op"),
    ],
)
def test_a_config_that_does_not_parse_names_the_place(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "bad.cfg"
    path.write_text(text)
    with pytest.raises(AtcConfigError) as caught:
        read_insert_op_config(path)
    assert where in str(caught.value)
    assert caught.value.path == str(path)


@pytest.mark.parametrize(("value", "shown"), [("nan", "NaN"), ("inf", "Infinity"), ("-inf", "-Infinity")])
def test_a_non_finite_float_names_its_field(tmp_path: Path, value: str, shown: str) -> None:
    """Accepted before: a NaN normalisation factor went into the stage."""
    with pytest.raises(
        AtcConfigError, match=rf"var_reci_chn_0: is {shown}; expected a finite number"
    ) as caught:
        config(tmp_path, f"input_format: RGB888_U8\n var_reci_chn_0: {value}")
    assert caught.value.field == "var_reci_chn_0"
