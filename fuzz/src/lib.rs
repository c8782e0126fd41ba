//! Fuzzing support for opgraph-core: the fuzz input format ([`plan`]), how
//! it becomes a graph ([`builder`], [`attrs`]), independent shape rules
//! ([`reference`]) and the properties checked after inference ([`oracle`]).
//! The targets in `fuzz_targets/` are thin wrappers around these.

pub mod attrs;
pub mod builder;
pub mod oracle;
pub mod plan;
pub mod reference;
