//! Which unit runs an op, and how much vector work one element costs.

use crate::graph::Node;
use crate::types::DataType;

/// What the cost of an element-wise or vector op is counted over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Basis {
    /// The output elements (element-wise ops, data movement).
    Output,
    /// The largest input's elements (reductions, softmax, normalization).
    Input,
    /// The output elements times the pooling window.
    Window,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OpClass {
    /// Costs nothing on the device: graph inputs and constants, views,
    /// host-side shape queries and stream-control ops.
    Free(&'static str),
    /// Runs the bodies it calls (While / If / Case / function calls).
    Subgraph,
    /// Convolution or matrix multiply on the Cube unit.
    Cube,
    /// Depthwise convolution: a multiply-add per window tap on the vector unit.
    Depthwise,
    /// A vector op: `passes` vector instructions per element of `basis`;
    /// `fusable` ops join the kernel of the op that feeds them (UB fusion).
    Vector {
        passes: f64,
        basis: Basis,
        fusable: bool,
        movement: bool,
    },
    /// No AI Core kernel: runs on the AI CPU.
    AiCpu,
    /// No rule: counted as one vector pass and flagged.
    Unknown,
}

const VIEWS: &[&str] = &[
    "Reshape",
    "Squeeze",
    "Unsqueeze",
    "ExpandDims",
    "Identity",
    "IdentityN",
    "Flatten",
    "FlattenV2",
    "SqueezeV3",
    "UnsqueezeV3",
    "StopGradient",
    "PreventGradient",
    "Snapshot",
];
const SOURCES: &[&str] = &["Const", "Constant", "Data", "Placeholder", "NoOp"];
const HOST: &[&str] = &["Shape", "ShapeN", "Size", "Rank", "Assert"];
const CONTROL: &[&str] = &[
    "Enter",
    "RefEnter",
    "Exit",
    "RefExit",
    "NextIteration",
    "RefNextIteration",
    "LoopCond",
    "Merge",
    "RefMerge",
    "Switch",
    "RefSwitch",
];
const SUBGRAPH: &[&str] = &[
    "While",
    "StatelessWhile",
    "_While",
    "If",
    "StatelessIf",
    "_If",
    "Case",
    "PartitionedCall",
    "StatefulPartitionedCall",
];
pub(crate) const CUBE: &[&str] = &[
    "Conv2D",
    "Conv3D",
    "Conv2DBackpropInput",
    "Conv2DTranspose",
    "Deconvolution",
    "MatMul",
    "MatMulV2",
    "BatchMatMul",
    "BatchMatMulV2",
    "FullyConnection",
];
const DEPTHWISE: &[&str] = &["DepthwiseConv2dNative", "DepthwiseConv2D"];
const AI_CPU: &[&str] = &[
    "Unique",
    "UniqueWithCounts",
    "Where",
    "NonMaxSuppression",
    "NonMaxSuppressionV2",
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "CombinedNonMaxSuppression",
    "CropAndResize",
    "EmptyTensorList",
];
/// One vector instruction per element.
const SIMPLE: &[&str] = &[
    "Add",
    "AddV2",
    "Sub",
    "Mul",
    "MulNoNan",
    "BiasAdd",
    "Bias",
    "Scale",
    "Maximum",
    "Minimum",
    "Relu",
    "Relu6",
    "LeakyRelu",
    "PReLU",
    "PRelu",
    "Abs",
    "Neg",
    "Square",
    "SquaredDifference",
    "ClipByValue",
    "Cast",
    "Floor",
    "Ceil",
    "Round",
    "Sign",
    "Equal",
    "NotEqual",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
    "Select",
    "SelectV2",
    "Threshold",
    "Eltwise",
    "AddN",
    "ZerosLike",
    "OnesLike",
    "Fill",
    "IsFinite",
    "IsInf",
    "IsNan",
    "FloorDiv",
    "FloorMod",
    "Power",
];
/// A multiply-add and a clamp per element.
const HARD_ACTIVATIONS: &[&str] = &["HardSigmoid", "HardSwish", "HardSigmoidGrad"];
/// Batch normalisation with fixed statistics: a per-channel scale and shift,
/// fused into the kernel that feeds it like any element-wise op.
const INFERENCE_NORM: &[&str] = &[
    "BNInference",
    "BatchNorm",
    "FusedBatchNorm",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
];
/// Transcendental and division ops: a short instruction sequence each.
const TRANSCENDENTAL: &[&str] = &[
    "Exp",
    "Expm1",
    "Log",
    "Log1p",
    "Sqrt",
    "Rsqrt",
    "Div",
    "RealDiv",
    "DivNoNan",
    "Xdivy",
    "Xlogy",
    "Sigmoid",
    "Tanh",
    "Softplus",
    "Softsign",
    "Elu",
    "Selu",
    "Gelu",
    "Swish",
    "Erf",
    "Erfc",
    "Pow",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Atan2",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "BNLL",
    "Reciprocal",
    "Inv",
];
const TRANSCENDENTAL_PASSES: f64 = 4.0;
const REDUCE: &[&str] = &[
    "Mean",
    "ReduceMean",
    "Sum",
    "ReduceSum",
    "Max",
    "ReduceMax",
    "Min",
    "ReduceMin",
    "Prod",
    "ReduceProd",
    "All",
    "Any",
    "ReduceAll",
    "ReduceAny",
    "ArgMax",
    "ArgMin",
    "ArgMaxWithK",
    "L2Loss",
    "Reduction",
    "Cumsum",
    "Cumprod",
    "CumulativeLogsumexp",
];
/// max, subtract, exp, sum, divide.
const SOFTMAX: &[&str] = &["Softmax", "SoftmaxV2", "LogSoftmax", "LogSoftmaxV2"];
const SOFTMAX_PASSES: f64 = 5.0;
/// mean, variance, normalize, scale and shift.
const NORM: &[&str] = &[
    "FusedBatchNorm",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
    "BNInference",
    "BatchNorm",
    "LayerNorm",
    "MVN",
    "LRN",
];
const NORM_PASSES: f64 = 4.0;
const POOL: &[&str] = &[
    "MaxPool",
    "MaxPoolV2",
    "MaxPoolV3",
    "AvgPool",
    "AvgPoolV2",
    "Pooling",
    "MaxPool3D",
    "AvgPool3D",
];
const MOVEMENT: &[&str] = &[
    "TransData",
    "Transpose",
    "Concat",
    "ConcatV2",
    "ConcatD",
    "Pack",
    "Unpack",
    "Split",
    "SplitV",
    "SplitD",
    "SplitVD",
    "Slice",
    "StridedSlice",
    "StridedSliceV2",
    "Expand",
    "Gather",
    "GatherV2",
    "GatherNd",
    "Pad",
    "PadV2",
    "MirrorPad",
    "Tile",
    "TileWithAxis",
    "ReverseV2",
    "SpaceToDepth",
    "DepthToSpace",
    "SpaceToBatchND",
    "BatchToSpaceND",
    "Crop",
    "BroadcastTo",
    "OneHot",
    "Range",
    "MatrixBandPart",
];
/// Interpolation reads several source pixels per output pixel.
const RESIZE: &[&str] = &[
    "ResizeBilinear",
    "ResizeBilinearV2",
    "ResizeBicubic",
    "ResizeArea",
    "ResizeNearestNeighbor",
    "ResizeNearestNeighborV2",
];
/// A sorting network over the input.
const SORT: &[&str] = &["TopK", "TopKV2"];
const SORT_PASSES: f64 = 8.0;

/// Whether a batch norm computes its statistics (TF `is_training`, ONNX
/// `training_mode`); GE's BNInference never does.
fn training(node: &Node) -> bool {
    use crate::types::AttrValue;
    match (
        node.attrs.get("is_training"),
        node.attrs.get("training_mode"),
    ) {
        (Some(AttrValue::Bool(b)), _) => *b,
        (_, Some(AttrValue::Int(v))) => *v != 0,
        // TF's FusedBatchNorm defaults to training.
        _ => node.op_type.starts_with("FusedBatchNorm"),
    }
}

fn vector(passes: f64, basis: Basis, fusable: bool) -> OpClass {
    OpClass::Vector {
        passes,
        basis,
        fusable,
        movement: false,
    }
}

/// The class of `node`. String tensors and TensorList ops have no AI Core
/// kernel, whatever the op.
pub(crate) fn classify(node: &Node) -> OpClass {
    let op = node.op_type.as_str();
    let is = |list: &[&str]| list.contains(&op);
    if is(SOURCES) {
        return OpClass::Free("source");
    }
    if is(VIEWS) {
        return OpClass::Free("view");
    }
    if is(HOST) {
        return OpClass::Free("host");
    }
    if is(CONTROL) {
        return OpClass::Free("control");
    }
    if is(SUBGRAPH) || !node.subgraphs.is_empty() {
        return OpClass::Subgraph;
    }
    let strings = node.outputs.iter().any(|d| {
        matches!(
            d.dtype,
            DataType::String | DataType::StringRef | DataType::Variant
        )
    });
    if is(AI_CPU) || op.starts_with("TensorList") || op.starts_with("TensorArray") || strings {
        return OpClass::AiCpu;
    }
    if is(CUBE) {
        return OpClass::Cube;
    }
    if is(DEPTHWISE) {
        return OpClass::Depthwise;
    }
    if is(SIMPLE) {
        let passes = if op == "AddN" {
            (node.inputs.len().max(2) - 1) as f64
        } else {
            1.0
        };
        return vector(passes, Basis::Output, true);
    }
    if is(HARD_ACTIVATIONS) {
        return vector(2.0, Basis::Output, true);
    }
    if is(INFERENCE_NORM) && !training(node) {
        return vector(2.0, Basis::Output, true);
    }
    if is(TRANSCENDENTAL) {
        return vector(TRANSCENDENTAL_PASSES, Basis::Output, true);
    }
    if is(REDUCE) {
        return vector(1.0, Basis::Input, false);
    }
    if is(SOFTMAX) {
        return vector(SOFTMAX_PASSES, Basis::Input, false);
    }
    if is(NORM) {
        return vector(NORM_PASSES, Basis::Input, false);
    }
    if is(POOL) {
        return vector(1.0, Basis::Window, false);
    }
    if is(RESIZE) {
        let passes = if op.starts_with("ResizeNearest") {
            1.0
        } else {
            4.0
        };
        return vector(passes, Basis::Output, false);
    }
    if is(SORT) {
        return vector(SORT_PASSES, Basis::Input, false);
    }
    if is(MOVEMENT) {
        return OpClass::Vector {
            passes: 1.0,
            basis: Basis::Output,
            fusable: false,
            movement: true,
        };
    }
    OpClass::Unknown
}
