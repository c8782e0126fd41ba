//! Pass tests on small hand-built graphs: where TransData goes, what is
//! converted in place, the precision policy, bodies, errors, and the
//! validity check itself.

mod conds;
mod graphs;
mod more_ops;
mod placement;
mod policy;
mod validity;
