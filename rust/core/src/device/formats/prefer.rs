//! The rules with fixed preferences: convolutions (NC1HWC0 activations,
//! FRACTAL_Z filters), pooling and normalisation (NC1HWC0), matrix
//! multiplies (FRACTAL_NZ) and GE's FullyConnection.

use super::decide::{
    five_hd, five_hd_io, plain, with_input, Decision, Out, View, ACTIVATION_LAYOUTS,
    FILTER_LAYOUTS, NZ,
};
use super::spec::{readable_as, Device, FilterDims, Storage};
use crate::graph::Node;
use crate::ops::common::normalize_axis;
use crate::ops::nn::conv_groups::conv2d_groups;
use crate::types::{AttrValue, Format, TensorDesc};

pub(super) fn convolution(
    view: &View<'_>,
    node: &Node,
    x: usize,
    filter: usize,
    depthwise: bool,
) -> Option<Decision> {
    let x_desc = view.input(node, x)?;
    let layout = view
        .input_layout(node, x, ACTIVATION_LAYOUTS)
        .or(Some(x_desc.origin_format).filter(|f| ACTIVATION_LAYOUTS.contains(f)))?;
    let w = view.input(node, filter)?;
    if w.origin_shape.rank() != Some(4) {
        return None;
    }
    // As Conv2D's inference reads an ND filter: NCHW beside NCHW data, else HWCN.
    let by_data = if layout == Format::Nchw {
        Format::Nchw
    } else {
        Format::Hwcn
    };
    let w_layout = view
        .recorded_layout(node, filter, FILTER_LAYOUTS)
        .or(Some(w.origin_format).filter(|f| FILTER_LAYOUTS.contains(f)))
        .unwrap_or(by_data);
    let dims = if depthwise {
        if w_layout != Format::Hwcn {
            return None;
        }
        FilterDims::Depthwise
    } else {
        FilterDims::Conv {
            groups: filter_groups(view, node, x_desc, layout, w, w_layout),
        }
    };
    let d = five_hd_io(view, node, x, layout)?;
    Some(with_input(
        d,
        filter,
        Storage::Device(Device::FractalZ {
            layout: w_layout,
            dims,
        }),
    ))
}

/// The groups FRACTAL_Z packs: the node's `groups`, or for a TensorFlow
/// Conv2D (which has none) the groups its channels imply, by the rule
/// inference checked them with.
fn filter_groups(
    view: &View<'_>,
    node: &Node,
    x: &TensorDesc,
    layout: Format,
    w: &TensorDesc,
    w_layout: Format,
) -> i64 {
    let given = node
        .attrs
        .get("groups")
        .map(|_| view.attr_int(node, "groups").unwrap_or(1));
    let implied = || {
        let channels = |d: &TensorDesc, f: Format| {
            let at = f.name().find('C')?;
            d.origin_shape.dims().get(at).copied()
        };
        conv2d_groups(None, channels(x, layout)?, channels(w, w_layout)?).ok()?
    };
    match given {
        Some(g) => g,
        None if node.op_type == "Conv2D" => implied().unwrap_or(1),
        None => view.attr_int(node, "groups").unwrap_or(1),
    }
    .max(1)
}

pub(super) fn activation(
    view: &View<'_>,
    node: &Node,
    x: usize,
    channel_axis_attr: bool,
) -> Option<Decision> {
    let x_desc = view.input(node, x)?;
    // Caffe-style ops without data_format are NCHW.
    let layout = view
        .input_layout(node, x, ACTIVATION_LAYOUTS)
        .or(Some(x_desc.origin_format).filter(|f| ACTIVATION_LAYOUTS.contains(f)))
        .unwrap_or(Format::Nchw);
    if channel_axis_attr {
        let axis = normalize_axis(view.attr_int(node, "axis")?, 4).ok()?;
        if layout != Format::Nchw || axis != 1 {
            return None;
        }
    }
    five_hd_io(view, node, x, layout)
}

/// A reduction over exactly H and W of a 4-D activation that keeps them
/// (`keep_dims`): NC1HWC0 in and out, the axes input plain. GE's reduce
/// kernels take NC1HWC0 when C is not reduced.
pub(super) fn spatial_reduce(view: &View<'_>, node: &Node) -> Option<Decision> {
    if !matches!(view.attr(node, "keep_dims"), Some(AttrValue::Bool(true))) {
        return None;
    }
    let axes_edge = View::edge(node, 1)?;
    let axes = view.graph.tensor(axes_edge).value.as_ref()?.to_ints()?;
    let x_desc = view.input(node, 0)?;
    let layout = Some(x_desc.origin_format)
        .filter(|f| ACTIVATION_LAYOUTS.contains(f))
        .unwrap_or(Format::Nchw);
    let spatial: [i64; 2] = if layout == Format::Nhwc {
        [1, 2]
    } else {
        [2, 3]
    };
    let mut axes: Vec<i64> = axes
        .iter()
        .map(|&a| normalize_axis(a, 4).ok().map(|a| a as i64))
        .collect::<Option<_>>()?;
    axes.sort_unstable();
    axes.dedup();
    if axes != spatial {
        return None;
    }
    five_hd_io(view, node, 0, layout)
}

/// A StridedSliceV2 of an NC1HWC0 activation that keeps whole C0 blocks
/// (unit steps; along C, a begin and an end on block boundaries or at the
/// end) stays NC1HWC0, as GE's strided slice does for channel splits.
pub(super) fn channel_slice(view: &View<'_>, node: &Node) -> Option<Decision> {
    let x_edge = View::edge(node, 0)?;
    let x = view.input(node, 0)?;
    if view.is_constant(x_edge) || x.storage_format != Format::Nc1hwc0 {
        return None;
    }
    let layout = Some(x.origin_format)
        .filter(|f| ACTIVATION_LAYOUTS.contains(f))
        .unwrap_or(Format::Nchw);
    let ints = |i: usize| -> Option<Option<Vec<i64>>> {
        match View::edge(node, i) {
            None => Some(None),
            Some(e) => Some(Some(view.graph.tensor(e).value.as_ref()?.to_ints()?)),
        }
    };
    let (begin, end) = (ints(1)??, ints(2)??);
    let axes = ints(3)?.unwrap_or_else(|| (0..begin.len() as i64).collect());
    let steps = ints(4)?.unwrap_or_else(|| vec![1; begin.len()]);
    if begin.len() != end.len() || axes.len() != begin.len() || steps.iter().any(|&s| s != 1) {
        return None;
    }
    let dims = x.origin_shape.dims();
    let c_axis = if layout == Format::Nhwc { 3 } else { 1 };
    let c0 = view.soc.c0(x.dtype);
    for ((&axis, &b), &e) in axes.iter().zip(&begin).zip(&end) {
        let axis = normalize_axis(axis, 4).ok()?;
        if axis != c_axis {
            continue;
        }
        let c = *dims.get(c_axis)?;
        let clamp = |v: i64| if v < 0 { (v + c).max(0) } else { v.min(c) };
        let (b, e) = (clamp(b), clamp(e));
        if b % c0 != 0 || (e != c && e % c0 != 0) {
            return None;
        }
    }
    five_hd_io(view, node, 0, layout)
}

pub(super) fn matmul(view: &View<'_>, node: &Node) -> Option<Decision> {
    let matrix = |d: &TensorDesc| d.origin_shape.rank().is_some_and(|r| r >= 2);
    if !matrix(view.input(node, 0)?) || !matrix(view.input(node, 1)?) {
        return None;
    }
    if !matrix(node.outputs.first()?) {
        return None;
    }
    let mut d = with_input(with_input(plain(node), 0, NZ), 1, NZ);
    d.outputs[0] = Out::Store(NZ);
    Some(d)
}

/// GE's `fully_connection` op_select_format: the weight is always
/// FRACTAL_Z; a 4-D `x` reduced from axis 1 is NC1HWC0, any other `x`
/// FRACTAL_NZ; the output (2-D in opgraph's FullyConnection) FRACTAL_NZ.
pub(super) fn fully_connection(view: &View<'_>, node: &Node) -> Option<Decision> {
    let x = view.input(node, 0)?;
    let w = view.input(node, 1)?;
    let transposed = matches!(view.attr(node, "transpose"), Some(AttrValue::Bool(true)));
    let axis = view.attr_int(node, "axis")?;
    let x_rank = x.origin_shape.rank()?;
    let x_storage = if x_rank == 4 && axis == 1 {
        let layout = Some(x.origin_format)
            .filter(|f| ACTIVATION_LAYOUTS.contains(f))
            .unwrap_or(Format::Nchw);
        readable_as(x, layout).then(|| five_hd(layout))?
    } else {
        NZ
    };
    let w_storage = match (w.origin_shape.rank()?, transposed) {
        (2, _) => Device::FractalZ {
            layout: Format::Nd,
            dims: FilterDims::Matrix { transposed },
        },
        (4, false) => {
            let layout = Some(w.origin_format)
                .filter(|f| FILTER_LAYOUTS.contains(f))
                .unwrap_or(Format::Nchw);
            Device::FractalZ {
                layout,
                dims: FilterDims::Conv { groups: 1 },
            }
        }
        _ => return None,
    };
    if node.outputs.first()?.origin_shape.rank()? < 1 {
        return None;
    }
    let mut d = with_input(plain(node), 0, x_storage);
    d = with_input(d, 1, Storage::Device(w_storage));
    d.outputs[0] = Out::Store(NZ);
    Some(d)
}
