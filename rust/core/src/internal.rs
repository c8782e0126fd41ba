//! opgraph's own bugs as values. A panic is always a bug in opgraph, never
//! the user's input; a pass boundary catches it with [`catch_internal`] and
//! reports an [`InternalError`] carrying the panic message and the source
//! location (`file:line:column`) where it happened.
//!
//! The location is only known to a panic hook, so [`install_panic_hook`]
//! (called by the Python module at import, and by anything else that wants
//! locations) records it in a thread-local that the catching guard reads.
//! While a guard is active the hook prints nothing: the panic is reported
//! once, as the guard's error, instead of as stray text on stderr.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, Once};

/// The last panic's location on any thread: a panic on a worker thread
/// (the memory planner's strategies run in scoped threads) is resumed on
/// the guarded thread, whose own record is then empty.
static ANY_THREAD_LOCATION: Mutex<Option<String>> = Mutex::new(None);

thread_local! {
    /// Guards active on this thread (they nest: a pass inside a binding).
    static GUARDS: Cell<usize> = const { Cell::new(0) };
    /// `file:line:column` of the last panic on this thread, set by the hook.
    static LAST_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A caught panic: opgraph's bug, reported with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalError {
    /// The panic message (`attempt to divide by zero`, an `expect` text ...).
    pub message: String,
    /// `file:line:column` of the panic, when the hook was installed.
    pub location: Option<String>,
}

impl fmt::Display for InternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "internal error in opgraph (please report it): {}",
            self.message
        )?;
        if let Some(location) = &self.location {
            write!(f, " at {location}")?;
        }
        Ok(())
    }
}

impl std::error::Error for InternalError {}

impl InternalError {
    /// The error for a caught panic `payload`, with the location the hook
    /// recorded on this thread (taken, so it is not reused by a later panic).
    pub fn from_panic(payload: &(dyn Any + Send)) -> InternalError {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        let here = LAST_LOCATION.with(|l| l.borrow_mut().take());
        let anywhere = || {
            ANY_THREAD_LOCATION
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
        };
        InternalError {
            message,
            location: here.or_else(anywhere),
        }
    }
}

/// Installs (once per process) a panic hook that records each panic's
/// location for [`catch_internal`], and stays silent for panics a guard will
/// report; other panics go to the hook that was installed before.
pub fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            *ANY_THREAD_LOCATION
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = location.clone();
            LAST_LOCATION.with(|l| *l.borrow_mut() = location);
            if GUARDS.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
}

/// Decrements the guard count even when the guarded function unwinds.
struct GuardScope;

impl GuardScope {
    fn enter() -> GuardScope {
        GUARDS.with(|g| g.set(g.get() + 1));
        LAST_LOCATION.with(|l| *l.borrow_mut() = None);
        GuardScope
    }
}

impl Drop for GuardScope {
    fn drop(&mut self) {
        GUARDS.with(|g| g.set(g.get().saturating_sub(1)));
    }
}

/// Runs `f`, turning a panic into an [`InternalError`]. Callers must treat
/// whatever `f` was mutating as unusable after an error (it may be half
/// updated): the Python bindings mark such a graph poisoned.
pub fn catch_internal<T>(f: impl FnOnce() -> T) -> Result<T, InternalError> {
    let scope = GuardScope::enter();
    let result = catch_unwind(AssertUnwindSafe(f));
    drop(scope);
    result.map_err(|payload| InternalError::from_panic(payload.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_keeps_its_message_and_location() {
        install_panic_hook();
        let line = line!() + 1;
        let err = catch_internal(|| -> u32 { panic!("boom {}", 7) }).unwrap_err();
        assert_eq!(err.message, "boom 7");
        let location = err.location.clone().expect("the hook records the location");
        assert!(
            location.starts_with(&format!("{}:{line}:", file!())),
            "{location}"
        );
        assert!(err.to_string().contains("boom 7 at "), "{err}");
    }

    #[test]
    fn a_panic_on_a_worker_thread_keeps_its_location() {
        install_panic_hook();
        let err = catch_internal(|| {
            let worker = std::thread::spawn(|| panic!("worker bug"));
            if let Err(payload) = worker.join() {
                std::panic::resume_unwind(payload);
            }
        })
        .unwrap_err();
        assert_eq!(err.message, "worker bug");
        assert!(err.location.is_some_and(|l| l.contains("internal.rs:")));
    }

    #[test]
    fn no_panic_is_the_value() {
        assert_eq!(catch_internal(|| 3), Ok(3));
    }

    #[test]
    fn guards_nest_and_unwind_cleanly() {
        install_panic_hook();
        let outer = catch_internal(|| catch_internal(|| panic!("inner")).unwrap_err());
        assert_eq!(outer.unwrap().message, "inner");
        assert_eq!(GUARDS.with(Cell::get), 0);
    }
}
