//! Attention, ONNX Attention (opsets 23–25): scaled dot-product attention
//! over Q, K, V given either as 4-D `[batch, heads, seq, head_size]` or as
//! 3-D `[batch, seq, heads * head_size]` (then `q_num_heads` and
//! `kv_num_heads` say how the hidden dims split). Optional past keys and
//! values are prepended along the sequence. Outputs: Y (Q's layout, V's
//! head size), then as many of present_key, present_value
//! (`[batch, kv_heads, past + kv_seq, head_size]`) and qk_matmul_output
//! (`[batch, q_heads, q_seq, past + kv_seq]`) as the node uses.
//! TensorScatter (24), the KV-cache update beside it, writes `update` into
//! `past_cache` along `axis`: the result has the cache's dtype and shape.

use super::FLOATS;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::{add_dims, exact_div_dim, mul_dims};
use crate::ops::nn::dims::merge_dim;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let int = |v: i64| Some(AttrValue::Int(v));
    let float = |v: f64| Some(AttrValue::Float(v));
    let schema = OpSchema::new("Attention")
        .input(PortDef::new("Q", ParamType::Required).dtype_list(FLOATS))
        .input(PortDef::new("K", ParamType::Required).dtype_list(FLOATS))
        .input(PortDef::new("V", ParamType::Required).dtype_list(FLOATS))
        .input(PortDef::new("attn_mask", ParamType::Optional))
        .input(PortDef::new("past_key", ParamType::Optional))
        .input(PortDef::new("past_value", ParamType::Optional))
        .input(PortDef::new("nonpad_kv_seqlen", ParamType::Optional))
        .output(PortDef::new("Y", ParamType::Required).follow("Q", FollowType::Dtype))
        // present_key, present_value, qk_matmul_output: as many as used.
        .output(PortDef::new("present", ParamType::Dynamic))
        .attr("q_num_heads", AttrType::Int, int(0))
        .attr("kv_num_heads", AttrType::Int, int(0))
        .attr("is_causal", AttrType::Int, int(0))
        .attr("scale", AttrType::Float, float(0.0))
        .attr("softcap", AttrType::Float, float(0.0))
        .attr("qk_matmul_output_mode", AttrType::Int, int(0))
        .attr("softmax_precision", AttrType::Int, int(0))
        .infer_dtype(op_fn(|ctx| {
            // present_key has K's dtype, present_value V's, the scores Q's.
            for (o, from) in [(1, 1), (2, 2), (3, 0)] {
                if o < ctx.output_count() {
                    let dtype = ctx.input_dtype(from)?;
                    ctx.set_output_dtype(o, dtype)?;
                }
            }
            Ok(())
        }))
        .infer_shape(op_fn(infer_attention));
    let scatter = OpSchema::new("TensorScatter")
        .input(PortDef::new("past_cache", ParamType::Required))
        .input(PortDef::new("update", ParamType::Required))
        .input(PortDef::new("write_indices", ParamType::Optional).dtype_list(&[DataType::Int64]))
        .output(
            PortDef::new("present_cache", ParamType::Required)
                .follow("past_cache", FollowType::All),
        )
        .attr("axis", AttrType::Int, int(-2))
        .attr("mode", AttrType::Str, Some(AttrValue::Str("linear".into())))
        .verify(op_fn(verify_scatter));
    vec![schema, scatter]
}

/// The update has the cache's rank and dims except along `axis`, where it
/// is at most the cache's length.
fn verify_scatter(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (cache, update) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    let (Some(rank), Some(urank)) = (cache.rank(), update.rank()) else {
        return Ok(());
    };
    if rank != urank {
        bail!("update {update} must have the rank of past_cache {cache}");
    }
    let axis = super::onnx_axis(ctx.attr_int("axis")?, rank, "axis")?;
    for (i, (&c, &u)) in cache.dims().iter().zip(update.dims()).enumerate() {
        let fits = c == UNKNOWN_DIM || u == UNKNOWN_DIM || if i == axis { u <= c } else { u == c };
        if !fits {
            bail!("update {update} does not fit past_cache {cache} at dim {i} (the sequence axis is {axis})");
        }
    }
    Ok(())
}

/// One of Q, K, V as `[batch, heads, seq, head_size]`.
struct Heads {
    batch: i64,
    heads: i64,
    seq: i64,
    head_size: i64,
}

fn heads(shape: &Shape, name: &str, num_heads: i64) -> Result<Heads, OpError> {
    match *shape.dims() {
        _ if shape.is_unknown_rank() => Ok(Heads {
            batch: UNKNOWN_DIM,
            heads: if num_heads > 0 { num_heads } else { UNKNOWN_DIM },
            seq: UNKNOWN_DIM,
            head_size: UNKNOWN_DIM,
        }),
        [batch, heads, seq, head_size] => Ok(Heads {
            batch,
            heads,
            seq,
            head_size,
        }),
        [batch, seq, hidden] => {
            if num_heads < 1 {
                bail!("{name} is 3-D ({shape}), so the node needs its number of heads (q_num_heads / kv_num_heads >= 1)");
            }
            let head_size = match hidden {
                UNKNOWN_DIM => UNKNOWN_DIM,
                h => exact_div_dim(h, num_heads).ok_or_else(|| {
                    OpError::new(format!(
                        "{name}'s hidden size {h} is not a multiple of its {num_heads} heads"
                    ))
                })?,
            };
            Ok(Heads {
                batch,
                heads: num_heads,
                seq,
                head_size,
            })
        }
        _ => bail!("{name} must be 3-D [batch, seq, hidden] or 4-D [batch, heads, seq, head_size], got shape {shape}"),
    }
}

fn infer_attention(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let q_heads = ctx.attr_int("q_num_heads")?;
    let kv_heads = ctx.attr_int("kv_num_heads")?;
    let (qs, ks, vs) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.input_shape(2)?,
    );
    let three_d = qs.rank() == Some(3);
    let q = heads(qs, "Q", q_heads)?;
    let k = heads(ks, "K", kv_heads)?;
    let v = heads(vs, "V", kv_heads)?;
    let batch = merge_dim(
        merge_dim(q.batch, k.batch, "Q and K have different batch sizes")?,
        v.batch,
        "K and V have different batch sizes",
    )?;
    merge_dim(
        q.head_size,
        k.head_size,
        "Q and K have different head sizes",
    )?;
    let kv_seq = merge_dim(k.seq, v.seq, "K and V have different sequence lengths")?;
    let kv_h = merge_dim(k.heads, v.heads, "K and V have different head counts")?;
    if q.heads > 0 && kv_h > 0 && exact_div_dim(q.heads, kv_h).is_none() {
        bail!(
            "Q's {} heads are not a multiple of K/V's {kv_h} heads",
            q.heads
        );
    }
    let past = match ctx.optional_input_desc(4)? {
        Some(p) => p.shape().dims().get(2).copied().unwrap_or(UNKNOWN_DIM),
        None => 0,
    };
    let total = if past == UNKNOWN_DIM || kv_seq == UNKNOWN_DIM {
        UNKNOWN_DIM
    } else {
        add_dims(past, kv_seq)?
    };
    let y = if three_d {
        let hidden = if q.heads == UNKNOWN_DIM || v.head_size == UNKNOWN_DIM {
            UNKNOWN_DIM
        } else {
            mul_dims(q.heads, v.head_size)?
        };
        Shape::from_dims([batch, q.seq, hidden])
    } else if qs.is_unknown_rank() {
        Shape::unknown_rank()
    } else {
        Shape::from_dims([batch, q.heads, q.seq, v.head_size])
    };
    ctx.set_output_shape(0, y)?;
    let extra = [
        Shape::from_dims([batch, kv_h, total, k.head_size]),
        Shape::from_dims([batch, kv_h, total, v.head_size]),
        Shape::from_dims([batch, q.heads, q.seq, total]),
    ];
    for (o, shape) in extra.into_iter().enumerate() {
        let at = o.saturating_add(1);
        if at < ctx.output_count() {
            ctx.set_output_shape(at, shape)?;
        }
    }
    Ok(())
}
