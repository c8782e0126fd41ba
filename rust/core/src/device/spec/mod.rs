//! Device descriptions: the figures of one Ascend SoC the cost model needs
//! (core counts, Cube and vector rates, clock, buffer sizes, memory
//! bandwidth, launch overheads), with the source of every figure.
//!
//! Presets are TOML data files compiled into the crate; users load their
//! own description from TOML or JSON with the same fields. A preset says
//! whether published measurements validate its times (`validated`); the
//! cost report of an unvalidated one carries [`DeviceSpec::validation_flag`].

use super::soc::Soc;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The preset data files, in listing order.
const PRESETS: &[&str] = &[
    include_str!("presets/ascend310.toml"),
    include_str!("presets/ascend310p3.toml"),
    include_str!("presets/ascend310b1.toml"),
    include_str!("presets/ascend910a.toml"),
    include_str!("presets/ascend910b2.toml"),
];

/// Achievable fractions of peak per unit: what a tuned kernel sustains on
/// real shapes. Calibrated once for all presets (see the cost model's
/// validation benchmark), never per model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Efficiency {
    pub cube: f64,
    pub vector: f64,
    pub memory: f64,
}

/// One SoC. Sizes are bytes, rates per AI core per cycle unless named
/// otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSpec {
    /// ATC's `--soc_version` spelling, e.g. `Ascend310P3`.
    pub name: String,
    /// Other spellings accepted for this device (case-insensitive).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// AI cores with a Cube unit.
    pub ai_cores: u32,
    /// Cores that run vector ops (the AI cores, or split vector cores).
    pub vector_cores: u32,
    pub clock_mhz: f64,
    pub cube_fp16_macs_per_cycle: u32,
    pub cube_int8_macs_per_cycle: u32,
    /// 0 when the Cube has no fp32 mode.
    pub cube_fp32_macs_per_cycle: u32,
    /// On-chip transfer rates (bytes per cycle): L1 to the Cube's left and
    /// right operand buffers, and the Cube's results out of L0C.
    pub l1_to_l0a_bytes_per_cycle: u32,
    pub l1_to_l0b_bytes_per_cycle: u32,
    pub l0c_to_ub_bytes_per_cycle: u32,
    /// Bytes one vector core processes per cycle.
    pub vector_bytes_per_cycle: u32,
    pub l0a_bytes: u64,
    pub l0b_bytes: u64,
    pub l0c_bytes: u64,
    pub l1_bytes: u64,
    pub ub_bytes: u64,
    pub l2_bytes: u64,
    /// Off-chip (DDR / HBM) bandwidth of the whole chip.
    pub memory_gb_per_s: f64,
    /// L2 bandwidth of the whole chip.
    pub l2_gb_per_s: f64,
    /// Fixed cost of one AI Core task (launch, scalar set-up, pipeline fill).
    pub task_launch_us: f64,
    pub ai_cpu_cores: u32,
    /// Fixed cost of one AI CPU task.
    pub ai_cpu_launch_us: f64,
    pub ai_cpu_ns_per_element: f64,
    /// Whether published measurements of the chip validate the times this
    /// description gives (its calibrated constants fitted or checked on
    /// them). The presets say; a description that does not say is taken
    /// as its author's calibration.
    #[serde(default = "taken_as_validated")]
    pub validated: bool,
    /// What validates the times, or why nothing does.
    #[serde(default)]
    pub validation: String,
    pub efficiency: Efficiency,
    /// Where each figure comes from, keyed by field name.
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
}

/// A device description could not be found, read or accepted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown SoC '{name}'; the presets are {}", .known.join(", "))]
    UnknownSoc { name: String, known: Vec<String> },
    /// A target of the soc table (`device::soc`) that no preset describes.
    #[error("no cost preset describes {soc} ({family} family); the presets are {}", .known.join(", "))]
    NoPreset {
        soc: String,
        family: String,
        known: Vec<String>,
    },
    #[error("the device description ({format}) cannot be read: {message}")]
    Parse {
        format: &'static str,
        message: String,
    },
    #[error("the device description '{name}' has {field} = {value}, expected {expected}")]
    Invalid {
        name: String,
        field: &'static str,
        value: String,
        expected: &'static str,
    },
}

impl DeviceSpec {
    /// Every preset, in listing order.
    pub fn presets() -> Vec<DeviceSpec> {
        PRESETS
            .iter()
            .map(|text| DeviceSpec::from_toml(text).expect("built-in presets are valid"))
            .collect()
    }

    /// The preset ATC calls `name` (its name or an alias, ignoring case and
    /// spaces): `Ascend310`, `Ascend310P3` / `Ascend310P`, `Ascend310B1` /
    /// `Ascend310B`, `Ascend910A` / `Ascend910`, `Ascend910B2`.
    ///
    /// A target of the soc table without a preset (e.g. `Ascend910B1`) is
    /// [`SpecError::NoPreset`]; any other name [`SpecError::UnknownSoc`].
    pub fn preset(name: &str) -> Result<DeviceSpec, SpecError> {
        let wanted = normalize(name);
        let presets = DeviceSpec::presets();
        let known = presets.iter().map(|p| p.name.clone()).collect();
        presets
            .into_iter()
            .find(|p| {
                normalize(&p.name) == wanted || p.aliases.iter().any(|a| normalize(a) == wanted)
            })
            .ok_or_else(|| match Soc::from_name(name) {
                Ok(soc) => SpecError::NoPreset {
                    soc: soc.version.to_owned(),
                    family: soc.family.name().to_owned(),
                    known,
                },
                Err(_) => SpecError::UnknownSoc {
                    name: name.to_owned(),
                    known,
                },
            })
    }

    /// The warning a cost report on this description carries when no
    /// published measurement validates it (`validated = false`).
    pub fn validation_flag(&self) -> Option<String> {
        (!self.validated).then(|| {
            format!(
                "no published measurement validates the {} preset: treat its times as uncalibrated",
                self.name
            )
        })
    }

    pub fn from_toml(text: &str) -> Result<DeviceSpec, SpecError> {
        let spec: DeviceSpec = toml::from_str(text).map_err(|e| SpecError::Parse {
            format: "TOML",
            message: match e.span().and_then(|span| line_at(text, span.start)) {
                Some((number, line)) => format!("{} (line {number}: `{line}`)", e.message()),
                None => e.message().to_owned(),
            },
        })?;
        spec.validate()?;
        Ok(spec)
    }

    pub fn from_json(text: &str) -> Result<DeviceSpec, SpecError> {
        let spec: DeviceSpec = serde_json::from_str(text).map_err(|e| SpecError::Parse {
            format: "JSON",
            message: match json_key_before(text, e.line(), e.column()) {
                // A value of the wrong type or range sits right after its
                // key; a missing or unknown field, or bad syntax, does not.
                Some(key) if is_bad_value(&e) => format!("field \"{key}\": {e}"),
                _ => e.to_string(),
            },
        })?;
        spec.validate()?;
        Ok(spec)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a DeviceSpec always serializes")
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a DeviceSpec always serializes")
    }

    /// Cycles per microsecond.
    pub fn cycles_per_us(&self) -> f64 {
        self.clock_mhz
    }

    /// Peak Cube MACs per second of the whole chip for `macs_per_cycle`.
    pub fn peak_macs_per_s(&self, macs_per_cycle: u32) -> f64 {
        f64::from(self.ai_cores) * f64::from(macs_per_cycle) * self.clock_mhz * 1e6
    }

    /// Checks every figure is usable: counts and rates positive, fractions in (0, 1].
    pub fn validate(&self) -> Result<(), SpecError> {
        let bad = |field: &'static str, value: String, expected: &'static str| {
            Err(SpecError::Invalid {
                name: self.name.clone(),
                field,
                value,
                expected,
            })
        };
        if self.name.trim().is_empty() {
            return bad("name", format!("{:?}", self.name), "a non-empty SoC name");
        }
        for (field, value) in [
            ("ai_cores", self.ai_cores),
            ("vector_cores", self.vector_cores),
            ("cube_fp16_macs_per_cycle", self.cube_fp16_macs_per_cycle),
            ("cube_int8_macs_per_cycle", self.cube_int8_macs_per_cycle),
            ("vector_bytes_per_cycle", self.vector_bytes_per_cycle),
            ("l1_to_l0a_bytes_per_cycle", self.l1_to_l0a_bytes_per_cycle),
            ("l1_to_l0b_bytes_per_cycle", self.l1_to_l0b_bytes_per_cycle),
            ("l0c_to_ub_bytes_per_cycle", self.l0c_to_ub_bytes_per_cycle),
            ("ai_cpu_cores", self.ai_cpu_cores),
        ] {
            if value == 0 {
                return bad(field, value.to_string(), "a positive integer");
            }
        }
        for (field, value) in [
            ("l0a_bytes", self.l0a_bytes),
            ("l0b_bytes", self.l0b_bytes),
            ("l0c_bytes", self.l0c_bytes),
            ("l1_bytes", self.l1_bytes),
            ("ub_bytes", self.ub_bytes),
        ] {
            if value == 0 {
                return bad(field, value.to_string(), "a positive size in bytes");
            }
        }
        for (field, value) in [
            ("clock_mhz", self.clock_mhz),
            ("memory_gb_per_s", self.memory_gb_per_s),
            ("l2_gb_per_s", self.l2_gb_per_s),
            ("ai_cpu_ns_per_element", self.ai_cpu_ns_per_element),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return bad(field, value.to_string(), "a positive number");
            }
        }
        for (field, value) in [
            ("task_launch_us", self.task_launch_us),
            ("ai_cpu_launch_us", self.ai_cpu_launch_us),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return bad(field, value.to_string(), "a number >= 0");
            }
        }
        for (field, value) in [
            ("efficiency.cube", self.efficiency.cube),
            ("efficiency.vector", self.efficiency.vector),
            ("efficiency.memory", self.efficiency.memory),
        ] {
            if !(value.is_finite() && value > 0.0 && value <= 1.0) {
                return bad(field, value.to_string(), "a fraction in (0, 1]");
            }
        }
        Ok(())
    }
}

fn taken_as_validated() -> bool {
    true
}

fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests;

/// Line `(number, trimmed text)` holding byte `offset` of `text`.
fn line_at(text: &str, offset: usize) -> Option<(usize, &str)> {
    let start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    Some((
        text[..start].matches('\n').count() + 1,
        text[start..end].trim(),
    ))
}

/// Whether `e` is about a value (its type or range) rather than the text's
/// syntax or the set of fields.
fn is_bad_value(e: &serde_json::Error) -> bool {
    let message = e.to_string();
    e.classify() == serde_json::error::Category::Data
        && (message.starts_with("invalid value") || message.starts_with("invalid type"))
}

/// The JSON object key whose value holds `line`:`column` (serde_json's
/// 1-based position of an error), so a bad value is named by its field.
fn json_key_before(text: &str, line: usize, column: usize) -> Option<&str> {
    let line_start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2)?.0 + 1
    };
    let before = text.get(..(line_start + column).min(text.len()))?;
    let colon = before.rfind("\":")?;
    let open = before[..colon].rfind('"')?;
    Some(&before[open + 1..colon])
}
