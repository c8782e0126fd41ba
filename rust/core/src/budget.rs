//! The memory budget: how many bytes opgraph's allocations hold, and how
//! many they may hold before a pass stops with a typed error.
//!
//! A failed allocation aborts a Rust process (stable Rust cannot turn it
//! into a panic, let alone an error), so a graph too large for the memory
//! the process may use must be stopped *before* an allocation fails. The
//! Python extension installs [`CountingAllocator`] as its global allocator;
//! the long passes (decoding, conversion, inference, the device passes) take
//! a [`Budget`] when they start and call [`Budget::check`] as they go.
//! Without the counting allocator (the core's own tests, other embedders)
//! nothing is counted and every check passes.

use std::alloc::{GlobalAlloc, Layout};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long one reading of the process's limits serves
/// [`Budget::for_this_process`].
const REREAD_AFTER: Duration = Duration::from_millis(250);

/// Bytes held by allocations made through [`CountingAllocator`].
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The share of the process's limit opgraph's own allocations may reach:
/// the rest is for what is not counted here (the Python interpreter, the
/// memory-mapped model file, allocator slack), and for the allocations a
/// pass makes between two checks.
pub const BUDGET_PERCENT_OF_LIMIT: usize = 85;

/// A global allocator that counts the bytes `A` holds for opgraph.
pub struct CountingAllocator<A>(pub A);

// SAFETY: every call is forwarded to `A` unchanged; only a counter is
// updated beside it, and only for allocations that succeeded.
unsafe impl<A: GlobalAlloc> GlobalAlloc for CountingAllocator<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.0.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = self.0.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

/// Bytes opgraph's allocations hold now (0 without [`CountingAllocator`]).
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// What opgraph may hold while one pass runs.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// `None`: no limit known, or nothing is counted.
    limit: Option<Limit>,
}

#[derive(Clone, Copy, Debug)]
struct Limit {
    bytes: usize,
    source: LimitSource,
}

/// Where a limit comes from, for the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSource {
    /// The process's address-space limit (`ulimit -v`, `RLIMIT_AS`).
    AddressSpace,
    /// The control group's memory limit (`memory.max`, e.g. a container's).
    ControlGroup,
    /// The memory the machine had available when the pass started.
    Available,
}

impl fmt::Display for LimitSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitSource::AddressSpace => "the process's address-space limit (ulimit -v)",
            LimitSource::ControlGroup => "the control group's memory limit (memory.max)",
            LimitSource::Available => "the memory available on this machine",
        })
    }
}

/// A pass would need more memory than the process may use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "opgraph would hold {} MiB and may use at most {} MiB ({}); \
     give the process more memory or use a smaller model",
    .live / MIB,
    .limit / MIB,
    .limit_source
)]
pub struct OverBudget {
    pub live: usize,
    pub limit: usize,
    pub limit_source: LimitSource,
}

const MIB: usize = 1 << 20;

impl Budget {
    /// No limit: every check passes.
    pub const UNLIMITED: Budget = Budget { limit: None };

    /// The budget of this process now: the tightest of its address-space
    /// limit, its control group's limit and the memory available, less what
    /// other parts of the process already use, times
    /// [`BUDGET_PERCENT_OF_LIMIT`]. Reads `/proc` and `/sys` (Linux); where
    /// they cannot be read, or nothing is counted, the budget is unlimited.
    pub fn for_this_process() -> Budget {
        let live = live_bytes();
        if live == 0 {
            return Budget::UNLIMITED;
        }
        // Reading the limits costs tens of microseconds, as much as
        // converting a small model: passes started within a moment of each
        // other share one reading (the limits move far slower than that).
        static RECENT: Mutex<Option<(Instant, Budget)>> = Mutex::new(None);
        let mut recent = RECENT
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((at, budget)) = *recent {
            if at.elapsed() < REREAD_AFTER {
                return budget;
            }
        }
        let budget = Budget::read(live);
        *recent = Some((Instant::now(), budget));
        budget
    }

    fn read(live: usize) -> Budget {
        let candidates = [
            address_space_room().map(|room| (room, LimitSource::AddressSpace)),
            control_group_room().map(|room| (room, LimitSource::ControlGroup)),
            available_room().map(|room| (room, LimitSource::Available)),
        ];
        let limit = candidates
            .into_iter()
            .flatten()
            .min_by_key(|&(room, _)| room)
            .map(|(room, source)| Limit {
                bytes: live.saturating_add(room) / 100 * BUDGET_PERCENT_OF_LIMIT,
                source,
            });
        Budget { limit }
    }

    /// Err when opgraph holds more than the budget allows.
    pub fn check(&self) -> Result<(), OverBudget> {
        self.check_with(0)
    }

    /// Err when opgraph would hold more than the budget allows after
    /// allocating `more` bytes.
    pub fn check_with(&self, more: usize) -> Result<(), OverBudget> {
        let Some(limit) = self.limit else {
            return Ok(());
        };
        let live = live_bytes().saturating_add(more);
        if live > limit.bytes {
            return Err(OverBudget {
                live,
                limit: limit.bytes,
                limit_source: limit.source,
            });
        }
        Ok(())
    }
}

/// Bytes the address-space limit still allows, if one is set.
fn address_space_room() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line.split_whitespace().nth(3)?;
    let soft: usize = soft.parse().ok()?; // "unlimited" does not parse
    let used = proc_status_kib("VmSize")?.saturating_mul(1024);
    Some(soft.saturating_sub(used))
}

/// Bytes the control group's limit still allows, if one is set (cgroup v2).
fn control_group_room() -> Option<usize> {
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let max: usize = read("memory.max")?.trim().parse().ok()?; // "max" does not parse
    let current: usize = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// Bytes the machine has available (`MemAvailable`).
fn available_room() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

fn proc_status_kib(field: &str) -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlimited_budget_passes_every_check() {
        assert!(Budget::UNLIMITED.check_with(usize::MAX).is_ok());
    }

    #[test]
    fn a_budget_fails_past_its_limit_and_names_its_source() {
        let budget = Budget {
            limit: Some(Limit {
                bytes: 10 * MIB,
                source: LimitSource::ControlGroup,
            }),
        };
        let live = live_bytes();
        assert!(budget.check_with((10 * MIB).saturating_sub(live)).is_ok());
        let err = budget.check_with(11 * MIB).unwrap_err();
        assert!(err.limit == 10 * MIB && err.live >= 11 * MIB);
        let message = err.to_string();
        assert!(message.contains("at most 10 MiB"), "{message}");
        assert!(message.contains("memory.max"), "{message}");
    }

    #[test]
    fn this_machine_reports_available_memory() {
        // /proc/meminfo exists wherever these tests run (Linux CI).
        assert!(available_room().is_some_and(|room| room > 0));
    }
}
