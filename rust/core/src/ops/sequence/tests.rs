//! Engine tests of the sequence ops, worked by hand from ONNX's operator
//! definitions (the Python tests check them against onnx.reference).

use crate::prelude::*;
use crate::test_graphs::OpCase;

/// An empty sequence of `dtype` (SequenceEmpty's form of EmptyTensorList).
fn empty(c: &mut OpCase, dtype: DataType) -> OutputRef {
    let unknown = c.ints(&[-1], false);
    let unbounded = c.ints(&[-1], false);
    c.op(
        "EmptyTensorList",
        &[unknown, unbounded],
        &[("element_dtype", AttrValue::DataType(dtype))],
    )
}

fn length_value(c: &OpCase, t: OutputRef) -> Option<Vec<i64>> {
    c.desc(t).value.as_ref().and_then(HostTensor::to_ints)
}

#[test]
fn inserting_into_an_empty_sequence_gives_it_the_tensors_shape() {
    let mut c = OpCase::new();
    let e = empty(&mut c, DataType::Float);
    let x = c.input(DataType::Float, &[2, 3]);
    let y = c.input(DataType::Float, &[2, 3]);
    let one = c.op("SequenceInsert", &[e, x], &[]);
    let two = c.op("SequenceInsert", &[one, y], &[]);
    let n = c.op("SequenceLength", &[two], &[]);
    let stacked = c.op(
        "ConcatFromSequence",
        &[two],
        &[
            ("axis", AttrValue::Int(-1)),
            ("new_axis", AttrValue::Int(1)),
        ],
    );
    let joined = c.op("ConcatFromSequence", &[two], &[("axis", AttrValue::Int(0))]);
    let z = c.input(DataType::Float, &[2, 5]);
    let mixed = c.op("SequenceInsert", &[two, z], &[]);
    let at = c.ints(&[0], false);
    let any = c.ints(&[-1], false);
    let first = c.op("TensorListGetItem", &[mixed, at, any], &[]);
    c.infer().unwrap();
    assert_eq!(c.carried(two), Some(vec![2, 3]));
    assert_eq!(c.desc(two).list.map(|l| l.length), Some(Some(2)));
    assert_eq!(c.desc(n).dtype, DataType::Int64);
    assert_eq!(length_value(&c, n), Some(vec![2]));
    assert_eq!(c.dims(stacked), [2, 3, 2]);
    assert_eq!(c.dims(joined), [4, 3]);
    // Elements that disagree on a dim leave it unknown.
    assert_eq!(c.carried(mixed), Some(vec![2, -1]));
    assert_eq!(c.desc(first).dtype, DataType::Float);
}

#[test]
fn splitting_gives_chunks_and_a_count() {
    let mut c = OpCase::new();
    let x = c.input(DataType::Float, &[7, 4]);
    let rows = c.op("SplitToSequence", &[x], &[("keepdims", AttrValue::Int(0))]);
    let two = c.ints(&[2], false);
    let pairs = c.op("SplitToSequence", &[x, two], &[]);
    let sizes = c.ints(&[3, 4], true);
    let parts = c.op("SplitToSequence", &[x, sizes], &[]);
    let erased = c.op("SequenceErase", &[pairs], &[]);
    c.infer().unwrap();
    assert_eq!(c.carried(rows), Some(vec![4]));
    assert_eq!(c.desc(rows).list.and_then(|l| l.length), Some(7));
    // 7 rows in chunks of 2: three of 2 and one of 1.
    assert_eq!(c.carried(pairs), Some(vec![-1, 4]));
    assert_eq!(c.desc(pairs).list.and_then(|l| l.length), Some(4));
    assert_eq!(c.carried(parts), Some(vec![-1, 4]));
    assert_eq!(c.desc(erased).list.and_then(|l| l.length), Some(3));
}

#[test]
fn bad_inputs_are_errors_naming_what_was_expected() {
    let mut c = OpCase::new();
    let e = empty(&mut c, DataType::Float);
    let k = c.input(DataType::Int64, &[2]);
    c.op("SequenceInsert", &[e, k], &[]);
    let err = c.error();
    assert!(err.contains("INT64") && err.contains("FLOAT"), "{err}");

    let mut c = OpCase::new();
    let x = c.input(DataType::Float, &[6, 4]);
    let sizes = c.ints(&[2, 2], true);
    c.op("SplitToSequence", &[x, sizes], &[]);
    let err = c.error();
    assert!(err.contains("sums to 4"), "{err}");

    let mut c = OpCase::new();
    let x = c.input(DataType::Float, &[6, 4]);
    let s = c.op("SplitToSequence", &[x], &[]);
    c.op("ConcatFromSequence", &[s], &[("axis", AttrValue::Int(2))]);
    let err = c.error();
    assert!(err.contains("axis is 2"), "{err}");
}
