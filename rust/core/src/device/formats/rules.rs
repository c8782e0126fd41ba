//! Per-op storage preferences: which rule an op type follows.
//!
//! The lists follow what GE's op selection gives these ops on the cube
//! SoCs (TBE op info / `op_select_format`): convolutions take NC1HWC0
//! activations and FRACTAL_Z filters, pooling and normalisation work on
//! NC1HWC0, matrix multiplies on FRACTAL_NZ; element-wise ops are format
//! agnostic; every other op works on its origin (ND) view.

use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// How one op type's storage formats are chosen (see `decide`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// Graph inputs and constants: produced plain; a constant (weight) may
    /// be converted in place for its consumers.
    Source,
    /// Output `i` is input `i` unchanged (Identity and the like).
    PassThrough,
    /// `x` and output 0 in NC1HWC0, `filter` in FRACTAL_Z, the rest plain.
    Convolution {
        x: usize,
        filter: usize,
        depthwise: bool,
    },
    /// `x` and output 0 in NC1HWC0 (4-D); parameters and statistics plain.
    /// `channel_axis_attr`: the op names its channel axis in `axis`, which
    /// must be C (1) for NC1HWC0 to apply.
    Activation { x: usize, channel_axis_attr: bool },
    /// MatMul / BatchMatMul: both operands and the output in FRACTAL_NZ.
    MatMul,
    /// GE's FullyConnection: weight FRACTAL_Z, `x` NC1HWC0 (4-D, axis 1) or
    /// FRACTAL_NZ, output FRACTAL_NZ.
    FullyConnection,
    /// Follows its inputs when the full-size ones agree on a device format.
    Elementwise,
    /// BiasAdd / Bias: `x`'s NC1HWC0 or FRACTAL_NZ carries through when the
    /// bias runs along C (the last dim for FRACTAL_NZ); the bias stays plain.
    PerChannel,
    /// Concatenation: follows its inputs' NC1HWC0 when C blocks stay whole.
    Concat(ConcatAxis),
    /// Softmax: a FRACTAL_NZ input over the last axis stays FRACTAL_NZ.
    Softmax,
    /// StridedSliceV2: an NC1HWC0 input sliced in whole C0 blocks stays NC1HWC0.
    ChannelSlice,
    /// A reduction (axes in input 1) over H and W that keeps them: C stays
    /// whole, so NC1HWC0 carries through (global pooling, SE blocks).
    SpatialReduce,
    /// The format pass's own conversion node.
    TransData,
    /// Works on the origin view: plain in, plain out.
    Plain,
}

/// Where a concatenation finds its axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConcatAxis {
    /// Input 0 holds the axis (Concat); the values follow.
    FirstInput,
    /// The last input holds the axis (ConcatV2).
    LastInput,
    /// The `concat_dim` attribute (ConcatD); every input is a value.
    Attr,
}

/// Ops computed element by element (with broadcasting).
const ELEMENTWISE: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "AddN",
    "AddV2",
    "Asin",
    "Asinh",
    "Atan",
    "Atan2",
    "Atanh",
    "BNLL",
    "Cast",
    "Ceil",
    "ClipByValue",
    "OnnxClip",
    "Cos",
    "Cosh",
    "Div",
    "DivNoNan",
    "Eltwise",
    "Elu",
    "Equal",
    "Erf",
    "Erfc",
    "Exp",
    "Expm1",
    "Floor",
    "FloorDiv",
    "FloorMod",
    "Mod",
    "Gelu",
    "Greater",
    "GreaterEqual",
    "HardSigmoid",
    "HardSwish",
    "Inv",
    "LeakyRelu",
    "Less",
    "LessEqual",
    "Log",
    "Log1p",
    "LogicalAnd",
    "LogicalNot",
    "LogicalOr",
    "Maximum",
    "Minimum",
    "Mish",
    "Mul",
    "MulNoNan",
    "Neg",
    "NotEqual",
    "OnesLike",
    "Pow",
    "Power",
    "RealDiv",
    "Reciprocal",
    "Relu",
    "Relu6",
    "Round",
    "Rsqrt",
    "Select",
    "SelectV2",
    "Selu",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Square",
    "SquaredDifference",
    "Sub",
    "Swish",
    "Tan",
    "Tanh",
    "Threshold",
    "Where",
    "Xdivy",
    "Xlogy",
    "ZerosLike",
];

/// Pooling and normalisation over 4-D activations.
const ACTIVATION_5HD: &[&str] = &[
    "Pooling",
    "MaxPool",
    "MaxPoolV2",
    "MaxPoolV3",
    "AvgPool",
    "AvgPoolV2",
    "FusedBatchNorm",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
    "BNInference",
    "BatchNorm",
    "LRN",
];

/// The op types the format pass treats as cube (matrix unit) ops; the
/// precision policy computes them in fp16.
pub const CUBE_OPS: &[&str] = &[
    "Conv2D",
    "DepthwiseConv2dNative",
    "Conv2DBackpropInput",
    "Deconvolution",
    "Conv3D",
    "MatMul",
    "BatchMatMul",
    "BatchMatMulV2",
    "FullyConnection",
];

/// The rule `op_type` follows.
pub fn rule(op_type: &str) -> Rule {
    // A table, not a `match` with list scans: every pass asks once or twice
    // per node, and scanning the lists cost ~670 instructions per call.
    static RULES: LazyLock<FxHashMap<&'static str, Rule>> = LazyLock::new(rule_table);
    RULES.get(op_type).copied().unwrap_or(Rule::Plain)
}

/// Every op type with a rule other than `Plain`. Earlier entries win, so an
/// op type in two lists gets the first list's rule.
fn rule_table() -> FxHashMap<&'static str, Rule> {
    let convolution = |x, depthwise| Rule::Convolution {
        x,
        filter: 1,
        depthwise,
    };
    let activation = |channel_axis_attr| Rule::Activation {
        x: 0,
        channel_axis_attr,
    };
    let lists: [(&[&'static str], Rule); 18] = [
        (&["Data", "Const", "Constant", "Placeholder"], Rule::Source),
        (
            &[
                "Identity",
                "IdentityN",
                "StopGradient",
                "PreventGradient",
                "Snapshot",
                "EnsureShape",
            ],
            Rule::PassThrough,
        ),
        (&["Conv2D", "Deconvolution"], convolution(0, false)),
        (&["DepthwiseConv2dNative"], convolution(0, true)),
        // (input_size, filter, out_backprop)
        (&["Conv2DBackpropInput"], convolution(2, false)),
        (&["Scale"], activation(true)),
        (&["MatMul", "BatchMatMul", "BatchMatMulV2"], Rule::MatMul),
        (&["FullyConnection"], Rule::FullyConnection),
        (&["BiasAdd", "Bias"], Rule::PerChannel),
        (&["ConcatV2"], Rule::Concat(ConcatAxis::LastInput)),
        (&["Concat"], Rule::Concat(ConcatAxis::FirstInput)),
        (&["ConcatD"], Rule::Concat(ConcatAxis::Attr)),
        (&["TransData"], Rule::TransData),
        (ACTIVATION_5HD, activation(false)),
        (ELEMENTWISE, Rule::Elementwise),
        (
            &["ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum"],
            Rule::SpatialReduce,
        ),
        (&["SoftmaxV2", "Softmax", "LogSoftmaxV2"], Rule::Softmax),
        (&["StridedSliceV2"], Rule::ChannelSlice),
    ];
    let mut table = FxHashMap::default();
    for (op_types, rule) in lists {
        for &op_type in op_types {
            table.entry(op_type).or_insert(rule);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::OpRegistry;

    #[test]
    fn every_listed_op_type_is_registered() {
        // A typo in a list would silently leave an op on the plain rule.
        let registry = OpRegistry::with_builtins();
        let listed = ELEMENTWISE
            .iter()
            .chain(ACTIVATION_5HD)
            .chain(CUBE_OPS)
            .copied()
            .chain([
                "Identity",
                "IdentityN",
                "StopGradient",
                "PreventGradient",
                "Scale",
                "BiasAdd",
                "Bias",
                "ConcatV2",
                "Concat",
                "ConcatD",
                "Data",
                "Const",
            ]);
        for op_type in listed {
            assert!(
                registry.get(op_type).is_some(),
                "{op_type} is not a built-in op"
            );
        }
    }

    #[test]
    fn rules_by_op_type() {
        assert_eq!(rule("Relu"), Rule::Elementwise);
        assert_eq!(
            rule("MaxPool"),
            Rule::Activation {
                x: 0,
                channel_axis_attr: false
            }
        );
        assert_eq!(
            rule("Conv2DBackpropInput"),
            Rule::Convolution {
                x: 2,
                filter: 1,
                depthwise: false
            }
        );
        assert_eq!(rule("Softmax"), Rule::Softmax);
        assert_eq!(rule("TopKV2"), Rule::Plain);
        assert_eq!(rule("While"), Rule::Plain);
        assert_eq!(rule("ReduceMean"), Rule::SpatialReduce);
        assert_eq!(rule("ConcatD"), Rule::Concat(ConcatAxis::Attr));
        // The lists are disjoint, so each op type follows its own list's rule.
        for &op_type in ELEMENTWISE {
            assert_eq!(rule(op_type), Rule::Elementwise, "{op_type}");
        }
        for &op_type in ACTIVATION_5HD {
            assert_eq!(
                rule(op_type),
                Rule::Activation {
                    x: 0,
                    channel_axis_attr: false
                },
                "{op_type}"
            );
        }
    }
}
