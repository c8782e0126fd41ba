//! Targets: the Ascend SoCs ATC's `--soc_version` names, grouped in
//! families, with what the device passes need to know about each.
//!
//! A [`Soc`] is one row of a static table. Later passes (the cost model)
//! add their figures as fields of [`Soc`] and fill them in the rows; the
//! family constructors keep the rows short where all chips of a family
//! share a figure.

use super::DeviceError;
use crate::types::DataType;
use std::fmt;

/// The SoC families opgraph knows. Chips of one family share the cube
/// unit's fractal sizes and GE's format rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SocFamily {
    /// Ascend 310 (inference, DaVinci v100 core).
    Ascend310,
    /// Ascend 310P (inference, Atlas 300I Pro / 300V).
    Ascend310P,
    /// Ascend 310B (edge inference, Da Vinci v300 core: Atlas 200I A2
    /// module, Atlas 200I DK A2, Atlas 500 A2).
    ///
    /// Nothing in the device passes matches on the family: the format pass
    /// reads only [`Soc::cube`] (GE's C0 per dtype), and every family,
    /// 310B included, has the same 16 × 32-byte Da Vinci fractal, so 310B
    /// tensors get the storage formats and shapes of every other target.
    /// It is a family of its own (not folded into 310 or 310P) because it
    /// is its own core generation, with its own CANN kernel directory
    /// (`ascend310b`) and its own cost preset.
    Ascend310B,
    /// Ascend 910 (training, first generation: 910A / ProA / PremiumA / ProB).
    Ascend910,
    /// Ascend 910B (training, second generation: 910B1 … 910B4).
    Ascend910B,
}

impl SocFamily {
    pub fn name(self) -> &'static str {
        match self {
            SocFamily::Ascend310 => "Ascend310",
            SocFamily::Ascend310P => "Ascend310P",
            SocFamily::Ascend310B => "Ascend310B",
            SocFamily::Ascend910 => "Ascend910",
            SocFamily::Ascend910B => "Ascend910B",
        }
    }
}

impl fmt::Display for SocFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The cube unit's fractal (the tile one cube instruction multiplies):
/// `m0 × k0` by `k0 × n0`, with `k0` spanning `k0_bytes` of the input dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubeFractal {
    /// Rows of a fractal: the `16` of FRACTAL_NZ's `ceil(m / 16)`.
    pub m0: i64,
    /// Columns of the output fractal: the `16` (Ni) of FRACTAL_Z's `ceil(N / 16)`.
    pub n0: i64,
    /// Bytes of one fractal row along K: 32 (16 fp16, 32 int8, 64 int4 elements).
    pub k0_bytes: i64,
}

/// Every family so far multiplies 16 × 32-byte by 32-byte × 16 fractals.
const DAVINCI_CUBE: CubeFractal = CubeFractal {
    m0: 16,
    n0: 16,
    k0_bytes: 32,
};

impl CubeFractal {
    /// GE's C0 for `dtype` (metadef's `kDataTypeAndC0Vec`): one fractal row
    /// of K for types narrower than 16 bits (int8 / uint8: 32, int4: 64,
    /// int2 / uint2: 128, uint1: 256), and the fp16 row (16) for every
    /// other type; GE stores fp32 with C0 = 16 as well.
    pub fn c0(&self, dtype: DataType) -> i64 {
        let row_bits = self.k0_bytes * 8;
        match dtype {
            DataType::Int8 | DataType::Uint8 => row_bits / 8,
            DataType::Int4 => row_bits / 4,
            DataType::Int2 | DataType::Uint2 => row_bits / 2,
            DataType::Uint1 => row_bits,
            _ => row_bits / 16,
        }
    }
}

/// One target: the name ATC spells it with, its family and its figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Soc {
    /// The `--soc_version` spelling (or the family name, for a family-level target).
    pub version: &'static str,
    pub family: SocFamily,
    pub cube: CubeFractal,
}

impl Soc {
    const fn of(version: &'static str, family: SocFamily) -> Soc {
        Soc {
            version,
            family,
            cube: DAVINCI_CUBE,
        }
    }

    /// The target named `name`: an ATC `--soc_version` (e.g. `Ascend310P3`,
    /// `Ascend910B1`) or a family name (`Ascend310`, `Ascend310P`,
    /// `Ascend310B`, `Ascend910`, `Ascend910B`), compared without regard to case.
    ///
    /// `Ascend910B` is the 910B family here. CANN also has a legacy
    /// first-generation soc_version spelled `Ascend910B` (a 30-core 910);
    /// that chip is not listed, as the family name takes the spelling.
    pub fn from_name(name: &str) -> Result<Soc, DeviceError> {
        SOCS.iter()
            .find(|s| s.version.eq_ignore_ascii_case(name.trim()))
            .copied()
            .ok_or_else(|| DeviceError::UnknownSoc {
                given: name.to_owned(),
                known: soc_versions(),
            })
    }

    /// GE's C0 for `dtype` on this target (see [`CubeFractal::c0`]).
    pub fn c0(&self, dtype: DataType) -> i64 {
        self.cube.c0(dtype)
    }
}

impl fmt::Display for Soc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.version)
    }
}

/// Every known target: the family names first, then ATC's soc_versions.
pub const SOCS: &[Soc] = &[
    Soc::of("Ascend310", SocFamily::Ascend310),
    Soc::of("Ascend310P", SocFamily::Ascend310P),
    Soc::of("Ascend310B", SocFamily::Ascend310B),
    Soc::of("Ascend910", SocFamily::Ascend910),
    Soc::of("Ascend910B", SocFamily::Ascend910B),
    Soc::of("Ascend310P1", SocFamily::Ascend310P),
    Soc::of("Ascend310P3", SocFamily::Ascend310P),
    Soc::of("Ascend310P5", SocFamily::Ascend310P),
    Soc::of("Ascend310P7", SocFamily::Ascend310P),
    Soc::of("Ascend310B1", SocFamily::Ascend310B),
    Soc::of("Ascend310B2", SocFamily::Ascend310B),
    Soc::of("Ascend310B3", SocFamily::Ascend310B),
    Soc::of("Ascend310B4", SocFamily::Ascend310B),
    Soc::of("Ascend910A", SocFamily::Ascend910),
    Soc::of("Ascend910ProA", SocFamily::Ascend910),
    Soc::of("Ascend910PremiumA", SocFamily::Ascend910),
    Soc::of("Ascend910ProB", SocFamily::Ascend910),
    Soc::of("Ascend910B1", SocFamily::Ascend910B),
    Soc::of("Ascend910B2", SocFamily::Ascend910B),
    Soc::of("Ascend910B2C", SocFamily::Ascend910B),
    Soc::of("Ascend910B3", SocFamily::Ascend910B),
    Soc::of("Ascend910B4", SocFamily::Ascend910B),
];

/// The names [`Soc::from_name`] accepts, in table order.
pub fn soc_versions() -> Vec<&'static str> {
    SOCS.iter().map(|s| s.version).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atc_names_and_family_names_resolve() {
        let b1 = Soc::from_name("Ascend910B1").unwrap();
        assert_eq!(
            (b1.version, b1.family),
            ("Ascend910B1", SocFamily::Ascend910B)
        );
        assert_eq!(
            Soc::from_name("ascend310p3").unwrap().family,
            SocFamily::Ascend310P
        );
        assert_eq!(
            Soc::from_name("Ascend910").unwrap().family,
            SocFamily::Ascend910
        );
        assert_eq!(
            Soc::from_name("Ascend910B").unwrap().family,
            SocFamily::Ascend910B
        );
    }

    #[test]
    fn the_310b_family_has_its_names_and_the_common_fractal() {
        for name in [
            "Ascend310B",
            "Ascend310B1",
            "ascend310b2",
            "Ascend310B3",
            "Ascend310B4",
        ] {
            let soc = Soc::from_name(name).unwrap();
            assert_eq!(soc.family, SocFamily::Ascend310B, "{name}");
            assert_eq!(soc.family.name(), "Ascend310B");
            // The format pass sees only the fractal: 310B stores tensors as 310P does.
            assert_eq!(soc.cube, Soc::from_name("Ascend310P3").unwrap().cube);
        }
    }

    #[test]
    fn an_unknown_soc_lists_the_known_ones() {
        let err = Soc::from_name("Ascend920").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("'Ascend920'"), "{text}");
        for name in [
            "Ascend310",
            "Ascend310P3",
            "Ascend310B1",
            "Ascend910A",
            "Ascend910B4",
        ] {
            assert!(text.contains(name), "{name} missing from: {text}");
        }
    }

    #[test]
    fn c0_follows_ge_table() {
        let soc = Soc::from_name("Ascend310").unwrap();
        assert_eq!(soc.c0(DataType::Float16), 16);
        assert_eq!(soc.c0(DataType::Float), 16, "GE stores fp32 with C0 = 16");
        assert_eq!(soc.c0(DataType::Bf16), 16);
        assert_eq!(soc.c0(DataType::Int32), 16);
        assert_eq!(soc.c0(DataType::Int8), 32);
        assert_eq!(soc.c0(DataType::Uint8), 32);
        assert_eq!(soc.c0(DataType::Int4), 64);
        assert_eq!(soc.c0(DataType::Int2), 128);
        assert_eq!(soc.c0(DataType::Uint1), 256);
        assert_eq!(soc.c0(DataType::Bool), 16, "GE's table gives bool 16");
    }

    #[test]
    fn version_names_are_unique() {
        let names = soc_versions();
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert!(!a.eq_ignore_ascii_case(b), "{a} twice");
            }
        }
    }
}
