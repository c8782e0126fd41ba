//! The rules that follow their inputs' storage: element-wise ops,
//! per-channel affine ops (BiasAdd) and concatenations.

use super::decide::{five_hd, plain, with_input, Decision, Out, View, ACTIVATION_LAYOUTS, NZ};
use super::rules::ConcatAxis;
use super::spec::{broadcast_readable_as, readable_as, Device, Storage};
use crate::graph::Node;
use crate::ops::common::normalize_axis;
use crate::types::{Format, TensorDesc};
use smallvec::SmallVec;

/// The device storage a non-constant input is in, when it is one a
/// format-following op can carry through.
fn followable(desc: &TensorDesc) -> Option<Storage> {
    match desc.storage_format {
        Format::Nc1hwc0 => Some(five_hd(desc.origin_format)),
        Format::FractalNz => Some(NZ),
        _ => None,
    }
}

/// Element-wise ops follow their full-size non-constant inputs when these
/// all hold the same NC1HWC0 / FRACTAL_NZ storage: the output takes it,
/// broadcast inputs are converted to it (a per-channel `[1, 1, 1, C]` or,
/// beside NHWC data, `[C]` becomes `[1, C1, 1, 1, C0]`; FRACTAL_NZ needs the
/// same rank and last two dims), one-element inputs are taken as they are. Anything else (disagreeing inputs, other ranks,
/// another C0 for the output dtype) works plain.
pub(super) fn elementwise(view: &View<'_>, node: &Node) -> Option<Decision> {
    let [y] = node.outputs.as_slice() else {
        return None;
    };
    let full: SmallVec<[usize; 4]> = (0..node.inputs.len())
        .filter(|&i| {
            let (Some(e), Some(d)) = (View::edge(node, i), view.input(node, i)) else {
                return false;
            };
            !view.is_constant(e) && d.origin_shape == y.origin_shape
        })
        .collect();
    let first = view.input(node, *full.first()?)?;
    let storage = followable(first)?;
    let c0 = view.soc.c0(y.dtype);
    let agree = |d: &TensorDesc| storage.holds(d, view.soc) && view.soc.c0(d.dtype) == c0;
    if !full.iter().all(|&i| view.input(node, i).is_some_and(agree)) {
        return None;
    }
    let rank = y.origin_shape.rank()?;
    let fits = |d: &TensorDesc| match storage {
        Storage::Device(Device::Nc1hwc0 { layout }) => broadcast_readable_as(d, layout),
        _ => {
            rank >= 2
                && d.origin_shape.rank() == Some(rank)
                && d.origin_shape.dims()[rank - 2..] == y.origin_shape.dims()[rank - 2..]
        }
    };
    if !fits(y) {
        return None;
    }
    // A row vector broadcast over every row of a FRACTAL_NZ matrix (the
    // bias after a matmul, `[N]` or `[1, .., 1, N]`) is read as it is: GE
    // fuses it into the matmul or broadcasts it along the fractal rows.
    // (An attention mask `[B, 1, 1, S]` is one such row per batch.)
    let row_vector = |d: &TensorDesc| {
        let (dims, full) = (d.origin_shape.dims(), y.origin_shape.dims());
        let Some(r) = d.origin_shape.rank() else {
            return false;
        };
        // Leading dims, aligned from the right: broadcast (1) or equal.
        let leading = r.saturating_sub(2);
        storage == NZ
            && (1..=rank).contains(&r)
            && dims.last() == full.last()
            && (r < 2 || dims[r - 2] == 1)
            && dims[..leading]
                .iter()
                .zip(&full[rank - r..rank - r + leading])
                .all(|(&n, &m)| n == 1 || n == m)
    };
    let mut inputs = SmallVec::new();
    for (i, edge) in node.inputs.iter().enumerate() {
        let need = match (edge, view.input(node, i)) {
            (None, _) | (_, None) => None,
            _ if full.contains(&i) => Some(storage),
            (_, Some(d)) if d.origin_shape.num_elements() == Ok(Some(1)) => None,
            (_, Some(d)) if fits(d) && view.soc.c0(d.dtype) == c0 => Some(storage),
            (_, Some(d)) if row_vector(d) => None,
            _ => return None,
        };
        inputs.push(need);
    }
    Some(Decision {
        inputs,
        outputs: SmallVec::from_elem(Out::Store(storage), 1),
    })
}

/// A softmax over the last axis keeps a FRACTAL_NZ input in FRACTAL_NZ
/// (GE's SoftmaxV2 reduces along the fractal columns).
pub(super) fn softmax(view: &View<'_>, node: &Node) -> Option<Decision> {
    let x_edge = View::edge(node, 0)?;
    let x = view.input(node, 0)?;
    if view.is_constant(x_edge) || followable(x)? != NZ || !NZ.holds(x, view.soc) {
        return None;
    }
    let rank = x.origin_shape.rank()?;
    let axes = match view.attr(node, "axes") {
        Some(crate::types::AttrValue::ListInt(v)) => v.clone(),
        _ => match view.attr_int(node, "axis") {
            Some(a) => vec![a],
            None => vec![-1],
        },
    };
    let last = axes.len() == 1 && normalize_axis(axes[0], rank).ok()? == rank - 1;
    let y = node.outputs.first()?;
    if !last || y.origin_shape != x.origin_shape || view.soc.c0(y.dtype) != view.soc.c0(x.dtype) {
        return None;
    }
    let mut d = with_input(plain(node), 0, NZ);
    d.outputs[0] = Out::Store(NZ);
    Some(d)
}

/// BiasAdd / Bias carry `x`'s storage through when the bias runs along
/// the channel: C of an NC1HWC0 `x`, the last dim of a 2-D FRACTAL_NZ one.
pub(super) fn per_channel(view: &View<'_>, node: &Node) -> Option<Decision> {
    let x_edge = View::edge(node, 0)?;
    let x = view.input(node, 0)?;
    if view.is_constant(x_edge) {
        return None;
    }
    let storage = followable(x)?;
    let y = node.outputs.first()?;
    let along_channel = match storage {
        Storage::Device(Device::Nc1hwc0 { layout }) => {
            if node.op_type == "Bias" {
                let axis = normalize_axis(view.attr_int(node, "axis")?, 4).ok()?;
                layout == Format::Nchw && axis == 1
            } else {
                view.input_layout(node, 0, ACTIVATION_LAYOUTS) == Some(layout)
            }
        }
        _ => x.origin_shape.rank() == Some(2),
    };
    if !along_channel || !storage.holds(x, view.soc) || view.soc.c0(y.dtype) != view.soc.c0(x.dtype)
    {
        return None;
    }
    if y.origin_shape != x.origin_shape {
        return None;
    }
    let mut d = with_input(plain(node), 0, storage);
    d.outputs[0] = Out::Store(storage);
    Some(d)
}

/// Concatenations of NC1HWC0 tensors stay NC1HWC0 when the C1 blocks of
/// the inputs line up: along N, H or W, or along C with every input's C a
/// multiple of C0 (GE's ConcatD condition for 5HD).
pub(super) fn concat(view: &View<'_>, node: &Node, where_axis: ConcatAxis) -> Option<Decision> {
    let n = node.inputs.len();
    let (axis_input, values) = match where_axis {
        ConcatAxis::FirstInput => (Some(0), 1..n),
        ConcatAxis::LastInput => (Some(n.checked_sub(1)?), 0..n - 1),
        ConcatAxis::Attr => (None, 0..n),
    };
    let axis = match axis_input {
        Some(i) => *view.input(node, i)?.value.as_ref()?.to_ints()?.first()?,
        None => view.attr_int(node, "concat_dim")?,
    };
    let axis = normalize_axis(axis, 4).ok()?;
    let first = values
        .clone()
        .find(|&i| View::edge(node, i).is_some_and(|e| !view.is_constant(e)))?;
    let storage = followable(view.input(node, first)?)?;
    let Storage::Device(Device::Nc1hwc0 { layout }) = storage else {
        return None;
    };
    let y = node.outputs.first()?;
    let c0 = view.soc.c0(y.dtype);
    let c_axis = if layout == Format::Nchw { 1 } else { 3 };
    for i in values.clone() {
        let (e, d) = (View::edge(node, i)?, view.input(node, i)?);
        let usable = if view.is_constant(e) {
            readable_as(d, layout)
        } else {
            storage.holds(d, view.soc)
        };
        let c = d.origin_shape.dims().get(c_axis).copied();
        let blocks_whole = axis != c_axis || c.is_some_and(|c| c >= 0 && c % c0 == 0);
        if !usable || !blocks_whole || view.soc.c0(d.dtype) != c0 {
            return None;
        }
    }
    if !readable_as(y, layout) {
        return None;
    }
    let mut d = plain(node);
    for i in values {
        d.inputs[i] = Some(storage);
    }
    d.outputs[0] = Out::Store(storage);
    Some(d)
}
