//! Fuzzing support for opgraph-core: the fuzz input format ([`plan`]), how
//! it becomes a graph ([`builder`], [`attrs`]), independent shape rules
//! ([`reference`]), the properties checked after inference ([`oracle`])
//! and how a decode is compared with that of its re-encoding ([`reencode`]).
//! The targets in `fuzz_targets/` are thin wrappers around these.

pub mod attrs;
pub mod builder;
pub mod oracle;
pub mod plan;
pub mod reencode;
pub mod reference;
