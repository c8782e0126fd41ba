//! A report's rows as columns: one vector per field, the strings that
//! repeat (op types, notes, fusion anchors) interned into tables, so that a
//! million rows leave the core as a few arrays instead of a million records.

use super::report::{Bound, NodeCost};
use super::rows::Rows;
use crate::name_index::NameIndex;

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

/// Distinct strings in first-seen order, and each one's code (its place in
/// the table; the index holds places only, so each string is stored once).
#[derive(Default)]
struct Interner {
    table: Vec<String>,
    codes: NameIndex,
    /// The last string's code: neighbouring rows often repeat one.
    last: Option<usize>,
}

impl Interner {
    fn code(&mut self, text: &str) -> i32 {
        let Interner { table, codes, last } = self;
        let code = match *last {
            Some(code) if table[code] == text => code,
            _ => match codes.get(text, |p| &table[p]) {
                Some(code) => code,
                None => {
                    table.push(text.to_owned());
                    codes.insert_new(text, table.len() - 1, |p| &table[p]);
                    table.len() - 1
                }
            },
        };
        *last = Some(code);
        code as i32
    }

    fn optional(&mut self, text: Option<&str>) -> i32 {
        text.map_or(NONE, |t| self.code(t))
    }
}

/// Columns filled row by row, the strings interned as they come: what a
/// cost walk writes into when the report leaves as columns, so that no
/// record per node (about 200 bytes) is ever held.
#[derive(Default)]
pub struct ColumnRows {
    columns: CostColumns,
    op_types: Interner,
    fused_into: Interner,
    notes: Interner,
}

impl Rows for ColumnRows {
    /// Room for `n` more rows.
    fn reserve(&mut self, n: usize) {
        let c = &mut self.columns;
        c.names.reserve(n);
        c.op_type_codes.reserve(n);
        c.bound_codes.reserve(n);
        for column in [
            &mut c.time_us,
            &mut c.flops,
            &mut c.padded_flops,
            &mut c.bytes,
            &mut c.l2_bytes,
            &mut c.compute_us,
            &mut c.cube_us,
            &mut c.vector_us,
            &mut c.memory_us,
            &mut c.overhead_us,
            &mut c.count,
        ] {
            column.reserve(n);
        }
        c.fused_into_codes.reserve(n);
        c.note_codes.reserve(n);
    }

    fn push(&mut self, row: NodeCost) {
        let c = &mut self.columns;
        c.op_type_codes.push(self.op_types.code(&row.op_type));
        c.bound_codes.push(row.bound.code());
        c.time_us.push(row.time_us);
        c.flops.push(row.flops);
        c.padded_flops.push(row.padded_flops);
        c.bytes.push(row.bytes);
        c.l2_bytes.push(row.l2_bytes);
        c.compute_us.push(row.compute_us);
        c.cube_us.push(row.cube_us);
        c.vector_us.push(row.vector_us);
        c.memory_us.push(row.memory_us);
        c.overhead_us.push(row.overhead_us);
        c.count.push(row.count);
        c.fused_into_codes
            .push(self.fused_into.optional(row.fused_into.as_deref()));
        c.note_codes.push(self.notes.optional(row.note.as_deref()));
        c.names.push(row.name);
    }

    fn len(&self) -> usize {
        self.columns.len()
    }

    /// Sets row `i`'s note and execution count (a caller's, once its
    /// bodies are walked).
    fn set_note_and_count(&mut self, i: usize, note: String, count: f64) {
        self.columns.note_codes[i] = self.notes.code(&note);
        self.columns.count[i] = count;
    }

    /// The total time of the rows from `i` on.
    fn time_from(&self, i: usize) -> f64 {
        self.columns.time_us[i..].iter().sum()
    }

    /// Appends `other`'s rows (a branch walked apart), re-coding its strings.
    fn append(&mut self, other: ColumnRows) {
        let other = other.finish();
        self.reserve(other.len());
        for i in 0..other.len() {
            self.push(other.row(i));
        }
    }
}

impl ColumnRows {
    /// The columns, their string tables complete.
    pub fn finish(mut self) -> CostColumns {
        self.columns.op_types = self.op_types.table;
        self.columns.fused_into = self.fused_into.table;
        self.columns.notes = self.notes.table;
        self.columns
    }
}

impl CostColumns {
    /// The columns of `rows`, which they consume (names move, not copy).
    pub fn from_rows(rows: Vec<NodeCost>) -> CostColumns {
        let mut columns = ColumnRows::default();
        columns.reserve(rows.len());
        for row in rows {
            columns.push(row);
        }
        columns.finish()
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
