//! Which unit runs an op, and how much vector work one element costs.

use crate::graph::Node;
use crate::types::{AttrValue, DataType};
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

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

/// The [`OpClass::Free`] label of dead code (`device::dead_code`).
pub(crate) const DEAD: &str = "dead";

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OpClass {
    /// Costs nothing on the device: graph inputs and constants, views,
    /// host-side shape queries and stream-control ops.
    Free(&'static str),
    /// Runs the bodies it calls (While / If / Case / function calls).
    Subgraph,
    /// What GE reduces to an edge from input `.0` before it runs anything
    /// (a Switch on a known predicate, a Merge with one live input,
    /// `device::dead_code`): passes that input on, as a view does.
    Edge(usize),
    /// Convolution or matrix multiply on the Cube unit.
    Cube,
    /// Depthwise convolution: a multiply-add per window tap on the vector unit.
    Depthwise,
    /// A recurrent layer (LSTM, GRU, RNN): a Cube product and vector gates
    /// per step, the steps one after another.
    Recurrent,
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
    "EnsureShape",
    // ONNX's Dropout with its inputs or mask kept: x passes through.
    "OnnxDropout",
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
    // ONNX's forms (cube::is_onnx_form)
    "Conv1D",
    "ConvTranspose",
    "MatMul",
    "MatMulV2",
    "BatchMatMul",
    "BatchMatMulV2",
    "FullyConnection",
];
const DEPTHWISE: &[&str] = &["DepthwiseConv2dNative", "DepthwiseConv2D"];
/// GE's forms of ONNX's LSTM, GRU and RNN (`recurrent.rs`).
const RECURRENT: &[&str] = &["CommonLSTM", "CommonGRU", "CommonRNN"];
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
    // ONNX's forms: GE runs them on the AI CPU, as TF's Where.
    "NonMaxSuppressionV6",
    "NonZero",
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
    "OnnxClip",
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
    "Mod",
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
pub(super) const TRANSCENDENTAL_PASSES: f64 = 4.0;
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
const SOFTMAX: &[&str] = &["Softmax", "SoftmaxV2", "LogSoftmax", "LogSoftmaxV2"];
/// Passes over the data as stored (fp16). The kernel computes in fp32, at
/// half the elements per vector cycle: the casts in and out (1 + 1); max,
/// subtract, sum and divide (4 x 2); the exponential
/// ([`TRANSCENDENTAL_PASSES`] x 2 = 8). 2 + 8 + 8 = 18.
const SOFTMAX_PASSES: f64 = 18.0;
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
    "InstanceNormalization",
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
    "OnnxSplit",
    "Slice",
    "StridedSlice",
    "StridedSliceV2",
    "Expand",
    "Gather",
    "GatherV2",
    "GatherNd",
    "GatherElements",
    "Pad",
    "PadV2",
    "PadV3",
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
    "OnnxRange",
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
    // ONNX's, their interpolation in a `mode` attribute.
    "Resize",
    "Upsample",
];
/// A sorting network over the input.
const SORT: &[&str] = &["TopK", "TopKV2"];
const SORT_PASSES: f64 = 8.0;

/// Whether a batch norm computes its statistics (TF `is_training`, ONNX
/// `training_mode`); GE's BNInference never does.
fn training(node: &Node) -> bool {
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

/// Which list an op type is in: the first of the lists in the order
/// `classify` asks them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Source,
    View,
    Host,
    Control,
    Subgraph,
    AiCpu,
    Cube,
    Depthwise,
    Simple,
    HardActivation,
    InferenceNorm,
    Transcendental,
    Reduce,
    Softmax,
    Norm,
    Pool,
    Resize,
    Sort,
    Movement,
    Recurrent,
}

/// The lists in the order `classify` asks them.
const FAMILIES: [(&[&str], Family); 20] = [
    (SOURCES, Family::Source),
    (VIEWS, Family::View),
    (HOST, Family::Host),
    (CONTROL, Family::Control),
    (SUBGRAPH, Family::Subgraph),
    (AI_CPU, Family::AiCpu),
    (CUBE, Family::Cube),
    (DEPTHWISE, Family::Depthwise),
    (SIMPLE, Family::Simple),
    (HARD_ACTIVATIONS, Family::HardActivation),
    (INFERENCE_NORM, Family::InferenceNorm),
    (TRANSCENDENTAL, Family::Transcendental),
    (REDUCE, Family::Reduce),
    (SOFTMAX, Family::Softmax),
    (NORM, Family::Norm),
    (POOL, Family::Pool),
    (RESIZE, Family::Resize),
    (SORT, Family::Sort),
    (MOVEMENT, Family::Movement),
    (RECURRENT, Family::Recurrent),
];

/// The family of `op`, from a table: `classify` runs for every node, and
/// scanning the lists in turn cost hundreds of instructions per call.
fn family(op: &str) -> Option<Family> {
    static TABLE: LazyLock<FxHashMap<&'static str, Family>> = LazyLock::new(|| {
        let mut table = FxHashMap::default();
        for (list, family) in FAMILIES {
            for &op in list {
                // An op type in two lists is in the first one asked.
                table.entry(op).or_insert(family);
            }
        }
        table
    });
    TABLE.get(op).copied()
}

/// The class of `node`. String tensors and TensorList ops have no AI Core
/// kernel, whatever the op.
pub(crate) fn classify(node: &Node) -> OpClass {
    let op = node.op_type.as_str();
    let family = family(op);
    match family {
        Some(Family::Source) => return OpClass::Free("source"),
        Some(Family::View) => return OpClass::Free("view"),
        Some(Family::Host) => return OpClass::Free("host"),
        Some(Family::Control) => return OpClass::Free("control"),
        _ => {}
    }
    if family == Some(Family::Subgraph) || !node.subgraphs.is_empty() {
        return OpClass::Subgraph;
    }
    let strings = node.outputs.iter().any(|d| {
        matches!(
            d.dtype,
            DataType::String | DataType::StringRef | DataType::Variant
        )
    });
    if family == Some(Family::AiCpu)
        || op.starts_with("TensorList")
        || op.starts_with("TensorArray")
        || strings
    {
        return OpClass::AiCpu;
    }
    let Some(family) = family else {
        return OpClass::Unknown;
    };
    match family {
        Family::Cube => OpClass::Cube,
        Family::Recurrent => OpClass::Recurrent,
        Family::Depthwise => OpClass::Depthwise,
        Family::Simple => {
            let passes = if op == "AddN" {
                (node.inputs.len().max(2) - 1) as f64
            } else {
                1.0
            };
            vector(passes, Basis::Output, true)
        }
        Family::HardActivation => vector(2.0, Basis::Output, true),
        // Every INFERENCE_NORM op is also in NORM, the next list that
        // holds it: computing its statistics, it is a normalisation.
        Family::InferenceNorm if training(node) => vector(NORM_PASSES, Basis::Input, false),
        Family::InferenceNorm => vector(2.0, Basis::Output, true),
        Family::Transcendental => vector(TRANSCENDENTAL_PASSES, Basis::Output, true),
        Family::Reduce => vector(1.0, Basis::Input, false),
        Family::Softmax => vector(SOFTMAX_PASSES, Basis::Input, false),
        Family::Norm => vector(NORM_PASSES, Basis::Input, false),
        Family::Pool => vector(1.0, Basis::Window, false),
        Family::Resize => {
            let nearest = op.starts_with("ResizeNearest")
                || matches!(node.attrs.get("mode"), Some(AttrValue::Str(m)) if m == "nearest");
            let passes = if nearest { 1.0 } else { 4.0 };
            vector(passes, Basis::Output, false)
        }
        Family::Sort => vector(SORT_PASSES, Basis::Input, false),
        Family::Movement => OpClass::Vector {
            passes: 1.0,
            basis: Basis::Output,
            fusable: false,
            movement: true,
        },
        // Returned above.
        Family::Source
        | Family::View
        | Family::Host
        | Family::Control
        | Family::Subgraph
        | Family::AiCpu => OpClass::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AttrValue, Format, Shape, TensorDesc};

    fn node(op_type: &str, inputs: usize) -> Node {
        let mut node = Node::new("n", op_type, vec![None; inputs], 1);
        node.outputs[0] = TensorDesc::new(
            DataType::Float,
            Shape::new([8]).expect("a shape"),
            Format::Nd,
        );
        node
    }

    #[test]
    fn an_op_type_is_in_the_first_list_that_names_it() {
        for (at, (list, _)) in FAMILIES.iter().enumerate() {
            for &op in *list {
                let first = FAMILIES[..=at]
                    .iter()
                    .find(|(earlier, _)| earlier.contains(&op))
                    .map(|&(_, f)| f);
                assert_eq!(family(op), first, "{op}");
            }
        }
        assert_eq!(family("NotAnOp"), None);
    }

    #[test]
    fn classes_by_op_type_and_node() {
        assert_eq!(classify(&node("Identity", 1)), OpClass::Free("view"));
        assert_eq!(classify(&node("Const", 0)), OpClass::Free("source"));
        assert_eq!(classify(&node("MatMul", 2)), OpClass::Cube);
        assert_eq!(classify(&node("NotAnOp", 1)), OpClass::Unknown);
        assert_eq!(classify(&node("Relu", 1)), vector(1.0, Basis::Output, true));
        // AddN: one pass per input after the first.
        assert_eq!(classify(&node("AddN", 4)), vector(3.0, Basis::Output, true));
        // A string output has no AI Core kernel, whatever the op.
        let mut strings = node("Relu", 1);
        strings.outputs[0].dtype = DataType::String;
        assert_eq!(classify(&strings), OpClass::AiCpu);
        assert_eq!(classify(&node("TensorListGetItem", 2)), OpClass::AiCpu);
        // A batch norm with fixed statistics fuses as a scale and shift;
        // one computing them is a normalisation over its input.
        let mut bn = node("FusedBatchNormV3", 5);
        bn.attrs.set("is_training", AttrValue::Bool(false));
        assert_eq!(classify(&bn), vector(2.0, Basis::Output, true));
        bn.attrs.set("is_training", AttrValue::Bool(true));
        assert_eq!(classify(&bn), vector(NORM_PASSES, Basis::Input, false));
        assert_eq!(
            classify(&node("ResizeNearestNeighbor", 2)),
            vector(1.0, Basis::Output, false)
        );
    }

    #[test]
    fn the_onnx_forms_cost_as_the_ops_they_stand_for() {
        // ONNX's Resize names its interpolation in `mode`.
        let mut resize = node("Resize", 4);
        resize.attrs.set("mode", AttrValue::Str("nearest".into()));
        assert_eq!(classify(&resize), vector(1.0, Basis::Output, false));
        resize.attrs.set("mode", AttrValue::Str("linear".into()));
        assert_eq!(classify(&resize), vector(4.0, Basis::Output, false));
        for op in ["PadV3", "GatherElements"] {
            assert_eq!(
                classify(&node(op, 2)),
                classify(&node("PadV2", 2)),
                "{op} moves data"
            );
        }
        assert_eq!(
            classify(&node("InstanceNormalization", 3)),
            vector(NORM_PASSES, Basis::Input, false)
        );
        for op in ["NonZero", "NonMaxSuppressionV6"] {
            assert_eq!(classify(&node(op, 1)), OpClass::AiCpu, "{op}");
        }
    }
}
