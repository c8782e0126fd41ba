//! Probing: dims that are products of the input sizes get exact bounds,
//! dims that are not keep their interval ranges, and probes that do not
//! infer are reported without touching the graph.

use super::*;
use crate::prelude::*;
use crate::test_graphs::OpCase;

/// `x: [B, S, 128]` with B in 1..=8 and S in 1..=512.
fn transformer_input(c: &mut OpCase) -> OutputRef {
    c.ranged_input(
        DataType::Float,
        &[-1, -1, 128],
        &[(1, 8), (1, 512), (128, 128)],
    )
}

/// `Shape(x)[0..2]`: the shape vector `[B, S]`, its value unknown.
fn batch_and_sequence(c: &mut OpCase, x: OutputRef) -> OutputRef {
    let shape = c.op(
        "Shape",
        &[x],
        &[("out_type", AttrValue::DataType(DataType::Int32))],
    );
    let indices = c.ints(&[0, 1], true);
    let axis = c.ints(&[0], false);
    c.op("GatherV2", &[shape, indices, axis], &[])
}

fn probe_all(c: &mut OpCase) -> Result<ProbeSummary, ProbeFailure> {
    let symbols = input_symbols(&c.g, &[]).unwrap();
    narrow_by_probes(&mut c.g, &c.r, InferOptions::default(), &symbols, false)
}

#[test]
fn attention_heads_are_bounded_by_the_sizes_they_come_from() {
    // Reshape(x, [B, S, -1, 32]): the -1 is 4 at every size.
    let mut c = OpCase::new();
    let x = transformer_input(&mut c);
    let bs = batch_and_sequence(&mut c, x);
    let tail = c.ints(&[-1, 32], true);
    let shape = c.concat(&[bs, tail], 0);
    let heads = c.op("Reshape", &[x, shape], &[]);
    c.infer().unwrap();
    assert_eq!(c.dims(heads), [-1, -1, -1, 32]);
    let before = c.range(heads);
    assert_ne!(before.as_ref().map(|r| r[2]), Some((4, 4)));

    let summary = probe_all(&mut c).unwrap();
    assert_eq!(
        c.range(heads),
        Some(vec![(1, 8), (1, 512), (4, 4), (32, 32)])
    );
    // The top; per symbol its minimum, the size above, its middle and the
    // size below its maximum; all at their minimum; all at their middle.
    assert_eq!(summary.probes, 11);
    assert!(summary.fitted >= 3 && summary.narrowed >= 1, "{summary:?}");
}

#[test]
fn dims_inside_a_body_are_bounded_too() {
    // PartitionedCall(x) whose body splits x's heads: the body's reshape is
    // narrowed through the call site.
    let mut body = OpCase::new();
    let arg = body.ranged_input(
        DataType::Float,
        &[-1, -1, 128],
        &[(0, -1), (0, -1), (128, 128)],
    );
    let bs = batch_and_sequence(&mut body, arg);
    let tail = body.ints(&[-1, 32], true);
    let shape = body.concat(&[bs, tail], 0);
    let heads = body.op("Reshape", &[arg, shape], &[]);
    body.g.set_outputs(vec![heads]).unwrap();

    let mut c = OpCase::new();
    let x = transformer_input(&mut c);
    let call = crate::test_graphs::call(&mut c.g, &c.r, &[x], body.g);
    c.infer().unwrap();
    let body_heads = |c: &OpCase| {
        c.g.node(call).subgraphs[0].graph.node(heads.node).outputs[0]
            .shape_range
            .as_ref()
            .map(|r| r.to_vec())
    };
    assert_ne!(body_heads(&c).map(|r| r[2]), Some((4, 4)));
    probe_all(&mut c).unwrap();
    assert_eq!(
        body_heads(&c),
        Some(vec![(1, 8), (1, 512), (4, 4), (32, 32)])
    );
    let out = OutputRef {
        node: call,
        index: 0,
    };
    assert_eq!(c.range(out), Some(vec![(1, 8), (1, 512), (4, 4), (32, 32)]));
}

#[test]
fn a_flattened_batch_is_bounded_by_the_product_of_both_sizes() {
    let mut c = OpCase::new();
    let x = transformer_input(&mut c);
    let shape = c.ints(&[-1, 128], true);
    let rows = c.op("Reshape", &[x, shape], &[]);
    c.infer().unwrap();
    probe_all(&mut c).unwrap();
    assert_eq!(c.range(rows), Some(vec![(1, 8 * 512), (128, 128)]));
}

#[test]
fn sizes_that_are_not_products_keep_their_interval_ranges() {
    // Concat([x, x[:, :1]], axis 1) is S + 1 long: no product of B and S.
    let mut c = OpCase::new();
    let x = transformer_input(&mut c);
    let begin = c.ints(&[0, 0, 0], true);
    let size = c.ints(&[-1, 1, -1], true);
    let first = c.op("Slice", &[x, begin, size], &[]);
    let longer = c.concat(&[x, first], 1);
    c.infer().unwrap();
    let before = c.range(longer);
    assert_eq!(before.as_ref().map(|r| r[1]), Some((2, 513)));
    let summary = probe_all(&mut c).unwrap();
    assert_eq!(c.range(longer), before);
    assert!(summary.fitted < summary.unknown_dims, "{summary:?}");
}

#[test]
fn inputs_that_share_a_name_share_a_size() {
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1, 4], &[(2, 8), (4, 4)]);
    let y = c.ranged_input(DataType::Float, &[-1, 4], &[(1, 6), (4, 4)]);
    let sum = c.op("Add", &[x, y], &[]);
    c.infer().unwrap();
    let names = vec![
        (x.node, vec!["batch".to_owned(), String::new()]),
        (y.node, vec!["batch".to_owned(), String::new()]),
    ];
    let symbols = input_symbols(&c.g, &names).unwrap();
    assert_eq!(symbols.len(), 1);
    assert_eq!((symbols[0].min, symbols[0].max), (2, 6));
    narrow_by_probes(&mut c.g, &c.r, InferOptions::default(), &symbols, false).unwrap();
    assert_eq!(c.range(sum), Some(vec![(2, 6), (4, 4)]));
}

#[test]
fn sizes_probed_apart_that_must_agree_fail_until_merged() {
    // Unnamed, the two batch dims are probed apart, and [2, 4] + [8, 4] does
    // not broadcast; merged by their equal ranges, they infer.
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1, 4], &[(2, 8), (4, 4)]);
    let y = c.ranged_input(DataType::Float, &[-1, 4], &[(2, 8), (4, 4)]);
    let sum = c.op("Add", &[x, y], &[]);
    c.infer().unwrap();
    let before = c.range(sum);
    let symbols = input_symbols(&c.g, &[]).unwrap();
    assert_eq!(symbols.len(), 2);
    let failure = narrow_by_probes(&mut c.g, &c.r, InferOptions::default(), &symbols, false)
        .expect_err("the batch sizes must agree");
    assert!(
        failure.failures[0].to_string().contains("Add"),
        "{:?}",
        failure.failures
    );
    assert_eq!(failure.sizes.len(), 2);
    assert_eq!(c.range(sum), before, "a failed probe changes nothing");

    let merged = merge_equal_ranges(&symbols);
    assert_eq!(merged.len(), 1);
    narrow_by_probes(&mut c.g, &c.r, InferOptions::default(), &merged, true).unwrap();
    assert_eq!(c.range(sum), Some(vec![(2, 8), (4, 4)]));
}

#[test]
fn an_input_without_an_upper_bound_has_nothing_to_probe() {
    let mut c = OpCase::new();
    c.ranged_input(DataType::Float, &[-1, 4], &[(1, -1), (4, 4)]);
    let error = input_symbols(&c.g, &[]).unwrap_err();
    assert!(error.contains("dim 0 has no upper bound"), "{error}");
}

fn symbol(min: i64, max: i64) -> DimSymbol {
    DimSymbol {
        name: "s".into(),
        dims: Vec::new(),
        min,
        max,
        step: 1,
    }
}

/// The product fitted to `size` evaluated at every probe of `symbols`.
fn fit_of(symbols: &[DimSymbol], size: impl Fn(&[i64]) -> i64) -> Option<Product> {
    let probes = probe_sizes(symbols);
    let dims: Vec<i64> = probes.iter().map(|p| size(p)).collect();
    fit_product(symbols, &probes, &dims)
}

#[test]
fn products_fit_and_other_shapes_do_not() {
    let both = [symbol(1, 8), symbol(0, 512)];
    let fit = fit_of(&both, |s| 4 * s[0] * s[1] * s[1]).unwrap();
    assert_eq!(
        (fit.numerator, fit.denominator, fit.powers.clone()),
        (4, 1, vec![1, 2])
    );
    assert_eq!(fit.at(&[2, 3]), Some(4 * 2 * 9));
    let fit = fit_of(&both, |_| 7).unwrap();
    assert_eq!(
        (fit.numerator, fit.denominator, fit.powers),
        (7, 1, vec![0, 0])
    );
    // Sums, differences, clamps and cross terms are no products.
    assert_eq!(fit_of(&both, |s| s[1] + 1), None);
    assert_eq!(fit_of(&both, |s| 1024 - s[1]), None);
    assert_eq!(fit_of(&both, |s| s[1].min(256)), None);
    assert_eq!(fit_of(&both, |s| s[0] * s[1] + s[0]), None);
    // Unknown in some probe.
    assert_eq!(fit_of(&both, |s| if s[1] == 512 { -1 } else { 4 }), None);
}

#[test]
fn periodic_sizes_do_not_pass_for_constants() {
    // A pad to a multiple of a 7-wide window: 5 at S = 2, 51 and 100,
    // the minimum, middle and maximum, but 6 at S = 99.
    let window_pad = |s: &[i64]| (7 - s[0] % 7) % 7;
    assert_eq!(fit_of(&[symbol(2, 100)], window_pad), None);
    assert_eq!(fit_of(&[symbol(1, 201)], |s| s[0] % 100), None);
}

#[test]
fn a_size_of_zero_is_probed_when_the_range_holds_it() {
    // S in 0..=1: only 0 and 1 exist, and Relu(x)'s dim is S itself, not
    // the constant 1 the maximum alone would suggest.
    assert_eq!(fit_of(&[symbol(0, 1)], |s| s[0]), None);
    let fit = fit_of(&[symbol(0, 9)], |s| 3 * s[0]).unwrap();
    assert_eq!(fit.at(&[0]), Some(0));
}

#[test]
fn a_factor_that_does_not_divide_is_no_product() {
    // 6 at S = 4 and 3 at S = 2 give S^1, but 6 / 4 is no integer.
    let probes = [vec![4], vec![2], vec![3]];
    assert_eq!(fit_product(&[symbol(2, 4)], &probes, &[6, 3, 4]), None);
}

#[test]
fn a_rational_factor_fits_where_the_product_is_whole() {
    // YOLOv8's anchors: the maps at strides 8, 16 and 32 of an H x W image
    // concatenated, H·W/64 + H·W/256 + H·W/1024 = H·W·21/1024, probed on
    // the 32-grid where the model runs.
    let grid: Vec<DimSymbol> = [symbol(160, 640), symbol(160, 640)]
        .into_iter()
        .map(|s| DimSymbol { step: 32, ..s })
        .collect();
    let anchors = |s: &[i64]| s[0] * s[1] / 64 + s[0] * s[1] / 256 + s[0] * s[1] / 1024;
    let fit = fit_of(&grid, anchors).unwrap();
    assert_eq!((fit.numerator, fit.denominator), (21, 1024));
    assert_eq!(fit.at(&[160, 160]), Some(525));
    assert_eq!(fit.at(&[640, 640]), Some(8400));
    // Off the grid the product is no whole number: no size there.
    assert_eq!(fit.at(&[161, 160]), None);
}

#[test]
fn probe_sizes_stay_inside_the_range() {
    assert_eq!(symbol(0, 512).lower_sizes(), [0, 1, 256, 511]);
    assert_eq!(symbol(3, 4).lower_sizes(), [3]);
    assert!(symbol(5, 5).lower_sizes().is_empty());
    // One symbol: no separate all-minimum or all-middle probe.
    assert_eq!(probe_sizes(&[symbol(3, 5)]), [vec![5], vec![3], vec![4]]);
    assert_eq!(probe_sizes(&[symbol(5, 5)]), [vec![5]]);
}

#[test]
fn grids_refine_only_the_sizes_a_failed_probe_moved() {
    let named = |name: &str, lo: i64, hi: i64| DimSymbol {
        name: name.into(),
        ..symbol(lo, hi)
    };
    let symbols = [named("batch", 2, 16), named("height", 160, 640)];
    // At batch=16 (its maximum), height=161: only height is to blame.
    let failed = [("batch".to_string(), 16), ("height".to_string(), 161)];
    let moved = moved_sizes(&symbols, &failed);
    assert_eq!(moved, ["height"]);
    let steps: Vec<Vec<i64>> = GRID_STEPS
        .iter()
        .filter_map(|&step| on_grid(&symbols, &moved, step))
        .map(|g| g.iter().map(|s| s.step).collect())
        .collect();
    // 160 is no multiple of 64.
    assert_eq!(steps, [[1, 2], [1, 4], [1, 8], [1, 16], [1, 32]]);
    // The top probe failing: nothing to blame, no grid.
    let top = [("batch".to_string(), 16), ("height".to_string(), 640)];
    assert!(moved_sizes(&symbols, &top).is_empty());
    // Probed sizes stay on the grid: min, min + step, the middle rounded
    // down onto it, max - step (and max).
    let on_32 = on_grid(&symbols, &moved, 32).unwrap();
    assert_eq!(on_32[1].lower_sizes(), [160, 192, 384, 608]);
}
