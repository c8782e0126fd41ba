//! Graph structure: inputs, constants and pass-through ops.

use super::{plugin, renamed, same_names, sized, Sized};
use crate::frontend::auto_mapping::{auto_mapping, PortKind};
use crate::frontend::ParserPlugin;

pub(super) fn plugins() -> Vec<ParserPlugin> {
    let mut all = vec![
        // Conversion gives Data its descriptor (dtype, shape) and index.
        renamed("Data", &["Placeholder"]),
        // In a frozen graph the default is what flows; the shape it
        // promises is not enforced (no IR op for it).
        renamed("Identity", &["PlaceholderWithDefault"]),
        // Conversion moves `value` onto the output descriptor.
        plugin("Const", &["Const"], auto_mapping),
        // Run-time checks and copies pass their input through.
        renamed("Identity", &["Identity", "Snapshot", "CheckNumerics"]),
        // EnsureShape passes its input through too, with the shape it asserts.
        renamed("EnsureShape", &["EnsureShape"]),
    ];
    all.extend(same_names(&["StopGradient", "PreventGradient"]));
    const IDENTITY_N: &[Sized] = &[(PortKind::Input, "x", "T"), (PortKind::Output, "y", "T")];
    all.push(sized("IdentityN", &["IdentityN"], IDENTITY_N));
    all
}
