//! A report's rows as columns: one vector per field, the strings that
//! repeat (op types, notes, fusion anchors) interned into tables, so that a
//! million rows leave the core as a few arrays instead of a million records.

use super::report::{Bound, NodeCost};
use rustc_hash::FxHashMap;

/// Code of "none" in the optional string columns.
pub const NONE: i32 = -1;

/// Every row of a report, field by field, in row order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostColumns {
    pub names: Vec<String>,
    /// Distinct op types; `op_type_codes[i]` indexes it.
    pub op_types: Vec<String>,
    pub op_type_codes: Vec<i32>,
    /// Index into [`Bound::ALL`].
    pub bound_codes: Vec<u8>,
    pub time_us: Vec<f64>,
    pub flops: Vec<f64>,
    pub padded_flops: Vec<f64>,
    pub bytes: Vec<f64>,
    pub l2_bytes: Vec<f64>,
    pub compute_us: Vec<f64>,
    pub cube_us: Vec<f64>,
    pub vector_us: Vec<f64>,
    pub memory_us: Vec<f64>,
    pub overhead_us: Vec<f64>,
    pub count: Vec<f64>,
    /// Distinct fusion anchors; `fused_into_codes[i]` indexes it or is [`NONE`].
    pub fused_into: Vec<String>,
    pub fused_into_codes: Vec<i32>,
    /// Distinct notes; `note_codes[i]` indexes it or is [`NONE`].
    pub notes: Vec<String>,
    pub note_codes: Vec<i32>,
}

/// Distinct strings in first-seen order, and each one's code.
#[derive(Default)]
struct Interner<'a> {
    table: Vec<String>,
    codes: FxHashMap<&'a str, i32>,
    /// The last string seen and its code: neighbouring rows often repeat one.
    last: Option<(&'a str, i32)>,
}

impl<'a> Interner<'a> {
    fn code(&mut self, text: &'a str) -> i32 {
        if let Some((last, code)) = self.last {
            if last == text {
                return code;
            }
        }
        let next = self.table.len() as i32;
        let code = *self.codes.entry(text).or_insert_with(|| {
            self.table.push(text.to_owned());
            next
        });
        self.last = Some((text, code));
        code
    }

    fn optional(&mut self, text: Option<&'a str>) -> i32 {
        text.map_or(NONE, |t| self.code(t))
    }
}

impl CostColumns {
    /// The columns of `rows`, which they consume (names move, not copy).
    pub fn from_rows(rows: Vec<NodeCost>) -> CostColumns {
        let n = rows.len();
        let mut c = CostColumns::default();
        let (mut op_types, mut fused, mut notes) = (
            Interner::default(),
            Interner::default(),
            Interner::default(),
        );
        let floats = |f: fn(&NodeCost) -> f64| rows.iter().map(f).collect::<Vec<f64>>();
        c.time_us = floats(|r| r.time_us);
        c.flops = floats(|r| r.flops);
        c.padded_flops = floats(|r| r.padded_flops);
        c.bytes = floats(|r| r.bytes);
        c.l2_bytes = floats(|r| r.l2_bytes);
        c.compute_us = floats(|r| r.compute_us);
        c.cube_us = floats(|r| r.cube_us);
        c.vector_us = floats(|r| r.vector_us);
        c.memory_us = floats(|r| r.memory_us);
        c.overhead_us = floats(|r| r.overhead_us);
        c.count = floats(|r| r.count);
        c.bound_codes = rows.iter().map(|r| r.bound.code()).collect();
        c.op_type_codes = Vec::with_capacity(n);
        c.fused_into_codes = Vec::with_capacity(n);
        c.note_codes = Vec::with_capacity(n);
        for r in &rows {
            c.op_type_codes.push(op_types.code(&r.op_type));
            c.fused_into_codes
                .push(fused.optional(r.fused_into.as_deref()));
            c.note_codes.push(notes.optional(r.note.as_deref()));
        }
        (c.op_types, c.fused_into, c.notes) = (op_types.table, fused.table, notes.table);
        c.names = rows.into_iter().map(|r| r.name).collect();
        c
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Row `i` as a record again.
    pub fn row(&self, i: usize) -> NodeCost {
        let text =
            |table: &[String], code: i32| usize::try_from(code).ok().map(|k| table[k].clone());
        NodeCost {
            name: self.names[i].clone(),
            op_type: self.op_types[self.op_type_codes[i] as usize]
                .as_str()
                .into(),
            time_us: self.time_us[i],
            bound: Bound::ALL[usize::from(self.bound_codes[i])],
            flops: self.flops[i],
            padded_flops: self.padded_flops[i],
            bytes: self.bytes[i],
            l2_bytes: self.l2_bytes[i],
            compute_us: self.compute_us[i],
            cube_us: self.cube_us[i],
            vector_us: self.vector_us[i],
            memory_us: self.memory_us[i],
            overhead_us: self.overhead_us[i],
            count: self.count[i],
            fused_into: text(&self.fused_into, self.fused_into_codes[i]),
            note: text(&self.notes, self.note_codes[i]),
        }
    }
}
