//! Symbolic dims (`dim_param`): two graph inputs that name the same symbol
//! have the same size there. When `input_shapes` fixes some inputs (ATC's
//! `--input_shape`), the sizes it gives a symbol carry over to every other
//! input naming it, and two different sizes for one symbol are an error.

use super::graph::{DIM_PARAMS_ATTR, PLACEHOLDER};
use crate::frontend::{FrameworkGraph, FrontendError};
use crate::types::{AttrValue, Shape};
use rustc_hash::FxHashMap;

/// Each Placeholder's symbols: (input name, symbol per dim, "" for none).
pub fn input_symbols(graph: &FrameworkGraph) -> Vec<(String, Vec<String>)> {
    graph
        .ops
        .iter()
        .filter(|op| op.op_type == PLACEHOLDER)
        .filter_map(|op| match op.attrs.get(DIM_PARAMS_ATTR) {
            Some(AttrValue::ListStr(params)) => Some((op.name.clone(), params.clone())),
            _ => None,
        })
        .collect()
}

/// `given` (the user's input shapes) extended with the shapes of the other
/// inputs whose symbols `given` fixes; the extension is returned.
pub fn propagate(
    symbols: &[(String, Vec<String>)],
    shapes: &FxHashMap<String, Vec<i64>>,
    given: &[(String, Shape)],
) -> Result<Vec<(String, Shape)>, FrontendError> {
    // Symbol → (size, the input and dim that fixed it).
    let mut sizes: FxHashMap<&str, (i64, &str, usize)> = FxHashMap::default();
    for (name, shape) in given {
        let Some((_, params)) = symbols.iter().find(|(n, _)| n == name) else {
            continue;
        };
        if shape.rank() != Some(params.len()) {
            continue;
        }
        for (i, (param, &size)) in params.iter().zip(shape.dims()).enumerate() {
            if param.is_empty() || size < 0 {
                continue;
            }
            match sizes.get(param.as_str()) {
                Some(&(old, other, j)) if old != size => {
                    return Err(FrontendError::Graph(format!(
                        "input_shapes gives symbol '{param}' size {old} (input '{other}' dim {j}) \
                         and size {size} (input '{name}' dim {i}); inputs sharing a symbol share its size"
                    )))
                }
                _ => {
                    sizes.insert(param, (size, name, i));
                }
            }
        }
    }
    let mut extra = Vec::new();
    for (name, params) in symbols {
        if given.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Some(dims) = shapes.get(name) else {
            continue;
        };
        let mut fixed = dims.clone();
        let mut changed = false;
        for (dim, param) in fixed.iter_mut().zip(params) {
            if let Some(&(size, _, _)) = sizes.get(param.as_str()) {
                *dim = size;
                changed = true;
            }
        }
        if changed {
            extra.push((name.clone(), Shape::from_dims(&fixed)));
        }
    }
    Ok(extra)
}

/// The declared dims of every Placeholder with a shape.
pub fn declared_shapes(graph: &FrameworkGraph) -> FxHashMap<String, Vec<i64>> {
    graph
        .ops
        .iter()
        .filter(|op| op.op_type == PLACEHOLDER)
        .filter_map(|op| match op.attrs.get("shape") {
            Some(AttrValue::ListInt(dims)) => Some((op.name.clone(), dims.clone())),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syms() -> Vec<(String, Vec<String>)> {
        vec![
            ("ids".into(), vec!["batch".into(), "seq".into()]),
            ("mask".into(), vec!["batch".into(), "seq".into()]),
            ("pos".into(), vec!["".into(), "seq".into()]),
        ]
    }

    fn declared() -> FxHashMap<String, Vec<i64>> {
        [
            ("ids", vec![-1, -1]),
            ("mask", vec![-1, -1]),
            ("pos", vec![1, -1]),
        ]
        .into_iter()
        .map(|(n, d)| (n.to_owned(), d))
        .collect()
    }

    #[test]
    fn a_fixed_symbol_carries_over_to_the_other_inputs() {
        let given = vec![("ids".to_owned(), Shape::from_dims([2, 128]))];
        let extra = propagate(&syms(), &declared(), &given).unwrap();
        assert_eq!(
            extra,
            vec![
                ("mask".to_owned(), Shape::from_dims([2, 128])),
                ("pos".to_owned(), Shape::from_dims([1, 128]))
            ]
        );
    }

    #[test]
    fn two_sizes_for_one_symbol_are_an_error() {
        let given = vec![
            ("ids".to_owned(), Shape::from_dims([2, 128])),
            ("mask".to_owned(), Shape::from_dims([2, 64])),
        ];
        let err = propagate(&syms(), &declared(), &given)
            .unwrap_err()
            .to_string();
        assert!(err.contains("symbol 'seq' size 128"), "{err}");
    }
}
