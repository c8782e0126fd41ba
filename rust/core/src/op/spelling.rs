//! "Did you mean" for misspelt attribute names: the declared name closest
//! in edit distance, when it is close enough to be a typo.

/// The candidate nearest to `word` when at most a third of its letters
/// (and at least one) differ; ties go to the first candidate.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: insertions, deletions,
/// substitutions and swaps of neighbours each cost one (`scael` → `scale`
/// is one swap).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapped_letters_are_one_edit() {
        assert_eq!(edit_distance("scael", "scale"), 1);
        assert_eq!(closest("scael", &["bias", "scale"]), Some("scale"));
    }

    #[test]
    fn prototypes_reject_undeclared_names_only() {
        use crate::op::OpSchema;
        use crate::types::{AttrType, AttrValue};
        let power = OpSchema::new("Power")
            .attr("scale", AttrType::Float, Some(AttrValue::Float(1.0)))
            .attr("shift", AttrType::Float, Some(AttrValue::Float(0.0)))
            .optional_attr("T");
        assert_eq!(
            power.undeclared_attr("scael").as_deref(),
            Some("Power does not declare attribute 'scael' (it declares scale, shift, T); did you mean 'scale'?")
        );
        for known in ["scale", "T", "_input_formats"] {
            assert_eq!(power.undeclared_attr(known), None, "{known}");
        }
        assert_eq!(power.allow_extra_attrs().undeclared_attr("anything"), None);
    }

    #[test]
    fn unrelated_names_get_no_suggestion() {
        assert_eq!(closest("axis", &["scale", "bias"]), None);
        assert_eq!(closest("x", &[]), None);
    }
}
