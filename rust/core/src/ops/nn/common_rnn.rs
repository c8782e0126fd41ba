//! GE's CommonLSTM / CommonGRU and CommonRNN: ONNX's LSTM, GRU and RNN
//! layers (the whole sequence in one op). With `layout` 0, `x` is
//! `[seq, batch, input]` and the outputs are `y: [seq, num_directions,
//! batch, hidden]` and `y_h` (and LSTM's `y_c`) `[num_directions, batch,
//! hidden]`; with `layout` 1 the batch comes first (`[batch, seq, input]`,
//! `[batch, seq, num_directions, hidden]`, `[batch, num_directions,
//! hidden]`). `w` is `[num_directions, gates * hidden, input]` and `r`
//! `[num_directions, gates * hidden, hidden]`; the IR always has every
//! output (ONNX nodes may leave some unnamed).

use super::dims::{merge_dim, with_rank};
use super::range_rules;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Double];

pub(super) fn schemas() -> Vec<OpSchema> {
    vec![
        schema("CommonLSTM", true),
        schema("CommonGRU", false).attr(
            "linear_before_reset",
            AttrType::Int,
            Some(AttrValue::Int(0)),
        ),
        schema("CommonRNN", false),
    ]
}

fn schema(op_type: &str, lstm: bool) -> OpSchema {
    let float = |name: &str, kind: ParamType| PortDef::new(name, kind).dtype_list(FLOATS);
    let mut schema = OpSchema::new(op_type)
        .input(float("x", ParamType::Required))
        .input(float("w", ParamType::Required))
        .input(float("r", ParamType::Required))
        .input(float("b", ParamType::Optional))
        .input(
            PortDef::new("sequence_lens", ParamType::Optional)
                .dtype_list(&[DataType::Int32, DataType::Int64]),
        )
        .input(float("initial_h", ParamType::Optional));
    if lstm {
        schema = schema
            .input(float("initial_c", ParamType::Optional))
            .input(float("p", ParamType::Optional));
    }
    let out = |name: &str| PortDef::new(name, ParamType::Required).follow("x", FollowType::Dtype);
    schema = schema.output(out("y")).output(out("y_h"));
    if lstm {
        schema = schema.output(out("y_c"));
    }
    schema
        .attr("hidden_size", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "direction",
            AttrType::Str,
            Some(AttrValue::Str("forward".into())),
        )
        .attr("layout", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("clip", AttrType::Float, Some(AttrValue::Float(0.0)))
        .attr(
            "activations",
            AttrType::ListStr,
            Some(AttrValue::ListStr(Vec::new())),
        )
        .attr("input_forget", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(if lstm { infer_lstm } else { infer_gru_or_rnn }))
}

fn infer_lstm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    infer_rnn(ctx, 4, 3)
}

fn infer_gru_or_rnn(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let gates = if ctx.op_type() == "CommonGRU" { 3 } else { 1 };
    infer_rnn(ctx, gates, 2)
}

fn infer_rnn(ctx: &mut OpContext<'_>, gates: i64, outputs: usize) -> Result<(), OpError> {
    let directions = match ctx.attr_str("direction")? {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        other => bail!("direction is '{other}'; expected forward, reverse or bidirectional"),
    };
    let batch_first = match ctx.attr_int("layout")? {
        0 => false,
        1 => true,
        other => bail!("layout is {other}; expected 0 or 1"),
    };
    let x = with_rank(ctx.input_shape(0)?, 3, "x")?;
    let (seq, batch, input) = if batch_first {
        (x[1], x[0], x[2])
    } else {
        (x[0], x[1], x[2])
    };
    let w = with_rank(ctx.input_shape(1)?, 3, "w")?;
    let r = with_rank(ctx.input_shape(2)?, 3, "r")?;
    merge_dim(
        w[0],
        directions,
        "w's first dim is the number of directions",
    )?;
    merge_dim(
        r[0],
        directions,
        "r's first dim is the number of directions",
    )?;
    merge_dim(w[2], input, "w's last dim is x's input size")?;
    let attr_hidden = ctx.attr_int("hidden_size")?;
    let mut hidden = r[2];
    if attr_hidden > 0 {
        hidden = merge_dim(hidden, attr_hidden, "r's last dim is hidden_size")?;
    }
    let gate_rows = if hidden == UNKNOWN_DIM {
        UNKNOWN_DIM
    } else {
        hidden
            .checked_mul(gates)
            .ok_or_else(|| OpError::new(format!("hidden size {hidden} overflows")))?
    };
    merge_dim(w[1], gate_rows, "w's second dim is gates * hidden_size")?;
    merge_dim(r[1], gate_rows, "r's second dim is gates * hidden_size")?;
    let y = if batch_first {
        [batch, seq, directions, hidden]
    } else {
        [seq, directions, batch, hidden]
    };
    let state = if batch_first {
        [batch, directions, hidden]
    } else {
        [directions, batch, hidden]
    };
    ctx.set_output_shape(0, Shape::from_dims(y))?;
    for o in 1..outputs {
        ctx.set_output_shape(o, Shape::from_dims(state))?;
    }
    range_rules::recurrent(ctx, batch_first, outputs)
}
