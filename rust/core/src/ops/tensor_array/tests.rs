//! Engine tests of the TensorArray ops. The expected shapes and errors are
//! TensorFlow 2.21's: each case was built with `tf.raw_ops` in a graph and
//! its static shapes (the C++ shape functions) recorded.

use crate::prelude::*;
use crate::test_graphs::OpCase;

type Case = OpCase;

const UNKNOWN_RANK: [i64; 1] = [-2];

/// What the TensorArray tests add to [`OpCase`].
trait ArrayCase {
    fn array(&mut self, element: &[i64], identical: bool) -> (OutputRef, OutputRef);
}

impl ArrayCase for OpCase {
    /// A float TensorArrayV3 of 3 elements: its handle and flow.
    fn array(&mut self, element: &[i64], identical: bool) -> (OutputRef, OutputRef) {
        let size = self.ints(&[3], false);
        let handle = self.op(
            "TensorArrayV3",
            &[size],
            &[
                FLOAT,
                ("element_shape", AttrValue::ListInt(element.to_vec())),
                ("identical_element_shapes", AttrValue::Bool(identical)),
            ],
        );
        (handle, OutputRef::new(handle.node, 1))
    }
}

const FLOAT: (&str, AttrValue) = ("dtype", AttrValue::DataType(DataType::Float));

/// What the reads of one array give: (read, gather of 2 with attribute
/// element_shape [5, 6, 7], concat value, concat lengths, size).
fn reads(element: &[i64], identical: bool) -> (Case, [OutputRef; 5]) {
    let mut c = Case::new();
    let (handle, flow) = c.array(element, identical);
    let index = c.ints(&[0], false);
    let read = c.op("TensorArrayReadV3", &[handle, index, flow], &[FLOAT]);
    let indices = c.ints(&[0, 1], true);
    let gather = c.op(
        "TensorArrayGatherV3",
        &[handle, indices, flow],
        &[FLOAT, ("element_shape", AttrValue::ListInt(vec![5, 6, 7]))],
    );
    let concat = c.op("TensorArrayConcatV3", &[handle, flow], &[FLOAT]);
    let size = c.op("TensorArraySizeV3", &[handle, flow], &[]);
    c.infer().unwrap();
    let lengths = OutputRef::new(concat.node, 1);
    (c, [read, gather, concat, lengths, size])
}

#[test]
fn an_array_is_a_resource_pair_and_a_float_flow() {
    let (c, [read, _, concat, lengths, size]) = reads(&[-1, 4], true);
    let created =
        c.g.node_ids()
            .find(|&id| c.g.node(id).op_type == "TensorArrayV3")
            .unwrap();
    let (handle, flow) = (OutputRef::new(created, 0), OutputRef::new(created, 1));
    assert_eq!(c.desc(handle).dtype, DataType::Resource);
    assert_eq!(c.dims(handle), [2]);
    assert_eq!(c.desc(flow).dtype, DataType::Float);
    assert_eq!(c.dims(flow), Vec::<i64>::new());
    assert_eq!(c.desc(read).dtype, DataType::Float);
    assert_eq!(c.desc(concat).dtype, DataType::Float);
    assert_eq!(c.dims(concat), UNKNOWN_RANK);
    assert_eq!(c.desc(lengths).dtype, DataType::Int64);
    assert_eq!(c.dims(lengths), [-1]);
    assert_eq!(c.desc(size).dtype, DataType::Int32);
    assert_eq!(c.dims(size), Vec::<i64>::new());
}

#[test]
fn reads_take_the_element_shape_only_where_tensorflow_keeps_it() {
    // (element_shape, identical_element_shapes) -> (read, gather): the
    // handle keeps the element shape when it is fully defined or every
    // element has the same shape; a gather without it uses its attribute.
    type Dims = &'static [i64];
    let cases: &[(Dims, bool, Dims, Dims)] = &[
        (&UNKNOWN_RANK, false, &UNKNOWN_RANK, &[2, 5, 6, 7]),
        (&UNKNOWN_RANK, true, &UNKNOWN_RANK, &UNKNOWN_RANK),
        (&[-1, 4], false, &UNKNOWN_RANK, &[2, 5, 6, 7]),
        (&[-1, 4], true, &[-1, 4], &[2, -1, 4]),
        (&[2, 4], false, &[2, 4], &[2, 2, 4]),
        (&[], false, &[], &[2]),
    ];
    for &(element, identical, read, gather) in cases {
        let (c, [r, g, ..]) = reads(element, identical);
        let case = format!("element_shape {element:?}, identical {identical}");
        assert_eq!(c.dims(r), read, "read, {case}");
        assert_eq!(c.dims(g), gather, "gather, {case}");
    }
}

#[test]
fn a_gather_prepends_its_indices_even_of_unknown_rank() {
    let mut c = Case::new();
    let (handle, flow) = c.array(&[2], true);
    let indices = c.input(DataType::Int32, &UNKNOWN_RANK);
    let gather = c.op("TensorArrayGatherV3", &[handle, indices, flow], &[FLOAT]);
    c.infer().unwrap();
    assert_eq!(c.dims(gather), [-1, 2]);
}

#[test]
fn writes_must_fit_the_element_shape_the_handle_keeps() {
    let write = |element: &[i64], identical: bool, value: &[i64]| {
        let mut c = Case::new();
        let (handle, flow) = c.array(element, identical);
        let index = c.ints(&[0], false);
        let v = c.input(DataType::Float, value);
        let out = c.op("TensorArrayWriteV3", &[handle, index, v, flow], &[]);
        c.infer().map(|()| (c.desc(out).dtype, c.dims(out)))
    };
    assert_eq!(
        write(&[-1, 4], true, &[3, 4]).unwrap(),
        (DataType::Float, vec![])
    );
    let error = write(&[-1, 4], true, &[3, 5]).unwrap_err();
    assert!(
        error.contains("does not fit the array's element shape"),
        "{error}"
    );
    let error = write(&[-1, 4], true, &[3, 4, 1]).unwrap_err();
    assert!(error.contains("different ranks"), "{error}");
    // Without handle data TensorFlow checks nothing.
    assert!(write(&[-1, 4], false, &[3, 5]).is_ok());
}

#[test]
fn scatters_have_one_row_per_index_and_rows_that_fit() {
    let scatter = |indices: &[i64], value: &[i64]| {
        let mut c = Case::new();
        let (handle, flow) = c.array(&[-1, 4], true);
        let i = c.input(DataType::Int32, indices);
        let v = c.input(DataType::Float, value);
        let out = c.op("TensorArrayScatterV3", &[handle, i, v, flow], &[]);
        c.infer().map(|()| c.dims(out))
    };
    assert_eq!(scatter(&[2], &[2, 3, 4]).unwrap(), Vec::<i64>::new());
    assert!(scatter(&UNKNOWN_RANK, &[-1, 3, 4]).is_ok());
    assert!(scatter(&[2], &UNKNOWN_RANK).is_ok());
    let bad: &[(&[i64], &[i64], &str)] = &[
        (&[2], &[3, 3, 4], "one row per entry of input 'indices'"),
        (&[2], &[2, 3, 5], "do not fit the array's element shape"),
        (&[2], &[], "must have rank >= 1"),
        (&[], &[2, 3, 4], "input 'indices' must be a vector"),
    ];
    for &(indices, value, message) in bad {
        let error = scatter(indices, value).unwrap_err();
        assert!(error.contains(message), "{indices:?} {value:?}: {error}");
    }
}

#[test]
fn handles_flows_indices_and_sizes_are_checked() {
    fn read_with(handle_dims: &[i64], index: &[i64], flow: &[i64]) -> String {
        let mut c = Case::new();
        let h = c.input(DataType::Resource, handle_dims);
        let i = c.input(DataType::Int32, index);
        let f = c.input(DataType::Float, flow);
        c.op("TensorArrayReadV3", &[h, i, f], &[FLOAT]);
        c.error()
    }
    assert!(read_with(&[2, 2], &[], &[]).contains("must be a TensorArray handle (a vector of 2)"));
    assert!(read_with(&[3], &[], &[]).contains("got shape [3]"));
    assert!(read_with(&[2], &[1], &[]).contains("input 'index' must be a scalar"));
    assert!(read_with(&[2], &[], &[1]).contains("input 'flow_in' must be a scalar"));

    let mut c = Case::new();
    let size = c.ints(&[3], true);
    c.op("TensorArrayV3", &[size], &[FLOAT]);
    assert!(c.error().contains("input 'size' must be a scalar"));

    let mut c = Case::new();
    let (handle, flow) = c.array(&UNKNOWN_RANK, false);
    let value = c.input(DataType::Float, &[4, 3]);
    let lengths = c.input(DataType::Int64, &[]);
    c.op("TensorArraySplitV3", &[handle, value, lengths, flow], &[]);
    assert!(c.error().contains("input 'lengths' must be a vector"));

    let mut c = Case::new();
    let handle = c.input(DataType::Resource, &[3]);
    c.op("TensorArrayCloseV3", &[handle], &[]);
    assert!(c.error().contains("TensorArray handle"));

    // A float tensor is no handle.
    let mut c = Case::new();
    let handle = c.input(DataType::Float, &[2]);
    let flow = c.input(DataType::Float, &[]);
    c.op("TensorArraySizeV3", &[handle, flow], &[]);
    assert!(c.error().contains("RESOURCE"));
}

#[test]
fn split_and_close_accept_what_tensorflow_accepts() {
    let mut c = Case::new();
    let (handle, flow) = c.array(&UNKNOWN_RANK, false);
    // TensorFlow's SplitV3 shape function does not look at the value.
    let value = c.input(DataType::Float, &[]);
    let lengths = c.input(DataType::Int64, &[1]);
    let out = c.op("TensorArraySplitV3", &[handle, value, lengths, flow], &[]);
    c.op("TensorArrayCloseV3", &[handle], &[]);
    c.infer().unwrap();
    assert_eq!(c.dims(out), Vec::<i64>::new());
}

#[test]
fn elements_of_any_dtype_and_broken_attributes() {
    let mut c = Case::new();
    let size = c.ints(&[3], false);
    let string = ("dtype", AttrValue::DataType(DataType::String));
    let handle = c.op("TensorArrayV3", &[size], std::slice::from_ref(&string));
    let flow = OutputRef::new(handle.node, 1);
    let index = c.ints(&[0], false);
    let read = c.op("TensorArrayReadV3", &[handle, index, flow], &[string]);
    c.infer().unwrap();
    assert_eq!(c.desc(read).dtype, DataType::String);

    let mut c = Case::new();
    c.array(&[2, -3], true);
    let error = c.error();
    assert!(
        error.contains("attribute element_shape is not a shape"),
        "{error}"
    );

    let mut c = Case::new();
    let size = c.ints(&[3], false);
    c.op("TensorArrayV3", &[size], &[]);
    let error = c.error();
    assert!(error.contains("dtype"), "{error}");
}

#[test]
fn the_element_shape_goes_through_v1_frames_and_identity() {
    // TensorFlow's Enter passes a handle's handle data on, whether its
    // is_constant is set or not; Identity, Switch and Exit too.
    for constant in [true, false] {
        let mut c = Case::new();
        let (handle, flow) = c.array(&[-1, 4], true);
        let entered = c.op(
            "Enter",
            &[handle],
            &[
                ("frame_name", AttrValue::Str("while".into())),
                ("is_constant", AttrValue::Bool(constant)),
            ],
        );
        let copy = c.op("Identity", &[entered], &[]);
        let pred = c.input(DataType::Bool, &[]);
        let switched = c.op("Switch", &[copy, pred], &[]);
        let taken = OutputRef::new(switched.node, 1);
        let exited = c.op("Exit", &[taken], &[]);
        let index = c.ints(&[0], false);
        let read = c.op("TensorArrayReadV3", &[exited, index, flow], &[FLOAT]);
        c.infer().unwrap();
        assert_eq!(c.carried(entered), Some(vec![-1, 4]));
        assert_eq!(c.carried(switched), Some(vec![-1, 4]));
        assert_eq!(c.dims(read), [-1, 4], "is_constant {constant}");
    }
    // An element shape of unknown rank stays one (not a vector of one dim).
    let mut c = Case::new();
    let (handle, _) = c.array(&UNKNOWN_RANK, true);
    let entered = c.op(
        "Enter",
        &[handle],
        &[("frame_name", AttrValue::Str("while".into()))],
    );
    c.infer().unwrap();
    assert_eq!(c.carried(entered), Some(UNKNOWN_RANK.to_vec()));
    // Other tensors' shape values do not go through an Enter.
    let mut c = Case::new();
    let x = c.input(DataType::Float, &[-1, 7]);
    let shape = c.op("Shape", &[x], &[]);
    let entered = c.op(
        "Enter",
        &[shape],
        &[("frame_name", AttrValue::Str("while".into()))],
    );
    c.infer().unwrap();
    assert_eq!(c.carried(shape), Some(vec![-1, 7]));
    assert_eq!(c.carried(entered), None);
}
