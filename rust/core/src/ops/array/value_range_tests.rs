//! Value ranges (GE's per-element bounds of a shape vector whose value is
//! not known): recorded by Shape, carried by Gather and Cast, dropped by a
//! cast that could change a value, and read by Fill as its output's range
//! and by Range as its length's.

use crate::prelude::*;
use crate::test_graphs::OpCase;

const I64: DataType = DataType::Int64;

fn dtype(t: DataType) -> AttrValue {
    AttrValue::Int(t.ge_value())
}

#[test]
fn shape_records_its_inputs_ranges_and_fill_reads_them() {
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1, 4], &[(0, 450), (4, 4)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let value = c.ints(&[0], false);
    let filled = c.op("Fill", &[shape, value], &[]);
    c.infer().unwrap();
    assert_eq!(
        c.desc(shape).value_range.as_deref(),
        Some(&[(0, 450), (4, 4)][..])
    );
    assert_eq!(c.dims(filled), [-1, 4]);
    assert_eq!(c.range(filled), Some(vec![(0, 450), (4, 4)]));
}

#[test]
fn casts_keep_bounds_only_where_every_value_survives() {
    let big = 3_000_000_000;
    for (to, bound, kept) in [
        (DataType::Int32, 450, true),
        (DataType::Int64, big, true),
        (DataType::Int32, big, false),
        // Unbounded above: a value could wrap past INT32.
        (DataType::Int32, -1, false),
        (DataType::Int64, -1, true),
        // Sizes cast to float stay whole numbers within their bounds.
        (DataType::Float, 450, true),
        (DataType::Float, -1, true),
        (DataType::Bool, 450, false),
    ] {
        let mut c = OpCase::new();
        let x = c.ranged_input(DataType::Float, &[-1, 4], &[(1, bound), (4, 4)]);
        let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
        let cast = c.op("Cast", &[shape], &[("dst_type", dtype(to))]);
        c.infer().unwrap();
        let want = kept.then(|| vec![(1, bound), (4, 4)]);
        let got = c.desc(cast).value_range.as_ref().map(|r| r.to_vec());
        assert_eq!(got, want, "Cast to {to} with bound {bound}");
    }
}

#[test]
fn a_known_value_needs_no_bounds() {
    let mut c = OpCase::new();
    let x = c.input(DataType::Float, &[3, 4]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    c.infer().unwrap();
    assert!(c.desc(shape).value.is_some());
    assert_eq!(c.desc(shape).value_range, None);
}

/// `arange(float(x.shape[2]))`: YOLO's anchor grid over a feature map whose
/// size is ranged, as PyTorch exports it (Shape, Gather, Cast to float,
/// Range with float bounds).
/// Returns the case, the cast size and the range.
fn arange_over_a_size(
    op_type: &str,
    start: f32,
    delta: f32,
    range: (i64, i64),
) -> (OpCase, OutputRef, OutputRef) {
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[1, 8, -1], &[(1, 1), (8, 8), range]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let (index, axis) = (c.ints(&[2], false), c.ints(&[0], false));
    let size = c.op("GatherV2", &[shape, index, axis], &[]);
    let limit = c.op("Cast", &[size], &[("dst_type", dtype(DataType::Float))]);
    let (start, delta) = (c.float(start), c.float(delta));
    let out = c.op(op_type, &[start, limit, delta], &[]);
    (c, limit, out)
}

#[test]
fn an_arange_over_a_ranged_size_cast_to_float_is_bounded() {
    // (start, delta, size range, length range): numpy's arange lengths at
    // the ends of the size range, ceil((size - start) / delta).
    for (start, delta, range, want) in [
        (0.0, 1.0, (20, 40), (20, 40)),
        // A start that is no whole number: f32 may round differently
        // from f64, so one more either way.
        (0.5, 1.0, (20, 40), (19, 41)),
        (0.0, 2.0, (5, 9), (3, 5)),
        (10.0, 1.0, (5, 12), (0, 2)),
        (0.0, 1.0, (5, -1), (5, -1)),
        (30.0, -4.0, (2, 10), (5, 7)),
    ] {
        let (mut c, cast, out) = arange_over_a_size("OnnxRange", start, delta, range);
        c.infer().unwrap();
        assert_eq!(c.desc(cast).value_range.as_deref(), Some(&[range][..]));
        assert_eq!(c.dims(out), [-1]);
        let got = c.range(out);
        assert_eq!(got, Some(vec![want]), "arange({start}, {range:?}, {delta})");
        for size in [range.0, range.1].into_iter().filter(|&s| s >= 0) {
            let n = ((size as f64 - f64::from(start)) / f64::from(delta))
                .ceil()
                .max(0.0) as i64;
            assert!(
                want.0 <= n && (want.1 < 0 || n <= want.1),
                "{n} not in {want:?}"
            );
        }
    }
}

#[test]
fn a_float_cast_keeps_bounds_only_where_they_are_exact() {
    for (to, hi, kept) in [
        (DataType::Float, 1 << 24, true),
        (DataType::Float, (1 << 24) + 1, false),
        (DataType::Double, (1 << 24) + 1, true),
        (DataType::Float16, 100, false),
    ] {
        let mut c = OpCase::new();
        let x = c.ranged_input(DataType::Float, &[-1], &[(1, hi)]);
        let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
        let cast = c.op("Cast", &[shape], &[("dst_type", dtype(to))]);
        let back = c.op("Cast", &[cast], &[("dst_type", dtype(I64))]);
        c.infer().unwrap();
        let want = kept.then(|| vec![(1, hi)]);
        assert_eq!(
            c.desc(cast).value_range.as_ref().map(|r| r.to_vec()),
            want,
            "{to}"
        );
        // Whole floats cast back to integers keep their bounds.
        assert_eq!(
            c.desc(back).value_range.as_ref().map(|r| r.to_vec()),
            want,
            "{to} back"
        );
    }
}

#[test]
fn a_tensorflow_range_over_a_ranged_size_is_bounded_too() {
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1], &[(3, 17)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let (index, axis) = (c.ints(&[0], false), c.ints(&[0], false));
    let size = c.op("GatherV2", &[shape, index, axis], &[]);
    let (start, delta) = (c.ints(&[0], false), c.ints(&[2], false));
    let start = c.op("Cast", &[start], &[("dst_type", dtype(I64))]);
    let delta = c.op("Cast", &[delta], &[("dst_type", dtype(I64))]);
    let out = c.op("Range", &[start, size, delta], &[]);
    c.infer().unwrap();
    assert_eq!(c.range(out), Some(vec![(2, 9)]));
}

/// A BOOL tensor's known value, as 0 / 1.
fn bools(c: &OpCase, t: OutputRef) -> Option<Vec<i64>> {
    let value = c.desc(t).value.as_ref()?;
    assert_eq!(value.dtype(), DataType::Bool);
    Some(value.bytes().iter().map(|&b| i64::from(b)).collect())
}

/// INT64 constant vector.
fn longs(c: &mut OpCase, values: &[i64]) -> OutputRef {
    let ints = c.ints(values, true);
    c.op("Cast", &[ints], &[("dst_type", dtype(I64))])
}

#[test]
fn pytorchs_expand_to_a_shape_keeps_its_known_entries_and_ranges() {
    // torch.onnx's `x.expand(shape)`: Where(Equal(shape, -1), ones, shape).
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1, 8], &[(1, 450), (8, 8)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let minus_ones = longs(&mut c, &[-1, -1]);
    let ones = longs(&mut c, &[1, 1]);
    let is_minus_one = c.op("Equal", &[shape, minus_ones], &[]);
    let target = c.op("SelectV2", &[is_minus_one, ones, shape], &[]);
    let z = c.input(DataType::Float, &[1, 8]);
    let expanded = c.op("Expand", &[z, target], &[]);
    c.infer().unwrap();
    // A size bounded to 1..=450 is never -1: the comparison is decided.
    assert_eq!(bools(&c, is_minus_one), Some(vec![0, 0]));
    assert_eq!(c.carried(target), Some(vec![-1, 8]));
    assert_eq!(
        c.desc(target).value_range.as_deref(),
        Some(&[(1, 450), (8, 8)][..])
    );
    assert_eq!(c.dims(expanded), [-1, 8]);
    assert_eq!(c.range(expanded), Some(vec![(1, 450), (8, 8)]));
}

#[test]
fn comparisons_are_decided_only_where_bounds_do_not_overlap() {
    for (op_type, other, want) in [
        ("Less", 0, Some(vec![0, 0])),
        ("GreaterEqual", 0, Some(vec![1, 1])),
        ("NotEqual", -1, Some(vec![1, 1])),
        // 5 may be the size (bounds 1..=450): undecided, so no value.
        ("Equal", 5, None),
        ("Less", 450, None),
        ("Less", 451, Some(vec![1, 1])),
    ] {
        let mut c = OpCase::new();
        let x = c.ranged_input(DataType::Float, &[-1, 8], &[(1, 450), (8, 8)]);
        let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
        let others = longs(&mut c, &[other, 8]);
        let out = c.op(op_type, &[shape, others], &[]);
        c.infer().unwrap();
        let got = bools(&c, out);
        let want = want.map(|w: Vec<i64>| {
            // The known second entry, 8 against 8.
            let second = match op_type {
                "Less" | "NotEqual" => 0,
                _ => 1,
            };
            vec![w[0], second]
        });
        assert_eq!(got, want, "{op_type}(shape, [{other}, 8])");
    }
}

#[test]
fn where_with_an_unknown_condition_bounds_by_both_branches() {
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1], &[(3, 9)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let cond = c.input(DataType::Bool, &[1]);
    let twenty = longs(&mut c, &[20]);
    let picked = c.op("SelectV2", &[cond, shape, twenty], &[]);
    c.infer().unwrap();
    assert_eq!(c.desc(picked).value_range.as_deref(), Some(&[(3, 20)][..]));
}

#[test]
fn a_branch_that_may_be_negative_bounds_nothing() {
    // Where(c?, shape?, -5): the size is bounded, -5 is no size, so the
    // pick is bounded by nothing and a comparison on it stays undecided.
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1], &[(3, 9)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let cond = c.input(DataType::Bool, &[1]);
    let minus_five = longs(&mut c, &[-5]);
    let picked = c.op("SelectV2", &[cond, shape, minus_five], &[]);
    let minus_ten = longs(&mut c, &[-10]);
    let above = c.op("Greater", &[picked, minus_ten], &[]);
    let (start, delta) = (c.ints(&[0], false), c.ints(&[1], false));
    let (start, delta) = (
        c.op("Cast", &[start], &[("dst_type", dtype(I64))]),
        c.op("Cast", &[delta], &[("dst_type", dtype(I64))]),
    );
    let (index, axis) = (c.ints(&[0], false), c.ints(&[0], false));
    let limit = c.op("GatherV2", &[picked, index, axis], &[]);
    let arange = c.op("Range", &[start, limit, delta], &[]);
    c.infer().unwrap();
    assert_eq!(c.desc(picked).value_range, None);
    assert_eq!(bools(&c, above), None);
    assert_eq!(c.range(arange), None);
}

#[test]
fn size_arithmetic_keeps_bounds() {
    // YOLOv8's stride tensor: ConstantOfShape([h * w, 1]) with h and w the
    // feature map's sizes, each bounded.
    let mut c = OpCase::new();
    let x = c.ranged_input(
        DataType::Float,
        &[1, 8, -1, -1],
        &[(1, 1), (8, 8), (20, 40), (10, 30)],
    );
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let axis = c.ints(&[0], false);
    let (two, three) = (c.ints(&[2], false), c.ints(&[3], false));
    let h = c.op("GatherV2", &[shape, two, axis], &[]);
    let w = c.op("GatherV2", &[shape, three, axis], &[]);
    let area = c.op("Mul", &[h, w], &[]);
    let sum = c.op("Add", &[h, w], &[]);
    let four = longs(&mut c, &[4]);
    let quarter = c.op("FloorDiv", &[h, four], &[]);
    let less_four = c.op("Sub", &[h, four], &[]);
    let twenty_five = longs(&mut c, &[25]);
    let below = c.op("Sub", &[h, twenty_five], &[]);
    let larger = c.op("Maximum", &[h, w], &[]);
    let smaller = c.op("Minimum", &[h, w], &[]);
    c.infer().unwrap();
    for (t, want) in [
        (area, Some((200, 1200))),
        (sum, Some((30, 70))),
        (quarter, Some((5, 10))),
        (less_four, Some((16, 36))),
        // 20 - 25 may be negative: no size, no bounds.
        (below, None),
        (larger, Some((20, 40))),
        (smaller, Some((10, 30))),
    ] {
        let got = c.desc(t).value_range.as_ref().map(|r| r[0]);
        assert_eq!(got, want);
    }
}

#[test]
fn a_size_known_only_by_its_bounds_divided_by_zero_is_no_error_here() {
    // The division fails when it runs; inference only declines to fold it.
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1], &[(3, 9)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let zero = longs(&mut c, &[0]);
    let quotient = c.op("FloorDiv", &[shape, zero], &[]);
    c.infer().unwrap();
    assert_eq!(c.desc(quotient).value_range, None);
}
