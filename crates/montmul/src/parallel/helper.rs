//! One helper thread per process, kept warm between calls, that runs one job beside the
//! caller: how [`super::pow_pair`] puts the second of two exponentiations on a second
//! core without paying for a new thread on every call.
//!
//! A thread started per call costs tens of microseconds here (spawn and join), and a
//! pool worker that has gone to sleep comes back slowly on a virtual machine
//! (`docs/PERFORMANCE.md`, under `CrtHalves`). So after each job the helper polls for
//! the next one for [`POLL`] before it blocks: a caller that calls again within that
//! time (a server signing in a loop) finds it running. The cost is up to [`POLL`] of a
//! second core's time after the last job of a burst.
//!
//! Nobody ever waits for the helper to become free. A caller that finds it busy (another
//! thread's job, or a job that itself asks for the helper) or not startable gets `None`
//! from [`take`] at once and does the work itself, so concurrent and nested use cannot
//! deadlock.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the helper polls for a next job after finishing one, and how long a caller
/// that finished its own share first polls for the helper's result, before blocking.
pub(crate) const POLL: Duration = Duration::from_micros(500);

/// A job for the helper; it reports its result itself, through a channel it holds.
type Job = Box<dyn FnOnce() + Send>;

/// The helper: its job queue (at most one job is in it, see `busy`) and whether a caller
/// holds it.
struct Helper {
    jobs: Sender<Job>,
    busy: AtomicBool,
}

/// The process's helper, started on first use; `None` where no thread could be started.
fn helper() -> Option<&'static Helper> {
    static HELPER: OnceLock<Option<Helper>> = OnceLock::new();
    HELPER
        .get_or_init(|| {
            let (jobs, queue) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("montmul-helper".into())
                .spawn(move || serve(&queue))
                .ok()
                .map(|_| Helper {
                    jobs,
                    busy: AtomicBool::new(false),
                })
        })
        .as_ref()
}

/// The helper's loop: run each job as it comes; ends when the queue's sender is gone.
fn serve(queue: &Receiver<Job>) {
    while let Some(job) = poll_then_block(queue) {
        job();
    }
}

/// The next message on `rx`: polled for [`POLL`], then waited for. `None` when the
/// sender is gone.
fn poll_then_block<T>(rx: &Receiver<T>) -> Option<T> {
    let start = Instant::now();
    loop {
        // Read the clock once every 64 polls: a poll is a few nanoseconds.
        for _ in 0..64 {
            match rx.try_recv() {
                Ok(x) => return Some(x),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        if start.elapsed() >= POLL {
            return rx.recv().ok();
        }
    }
}

/// The helper, held by one caller until dropped (also when the caller panics); `None`
/// at once where another caller holds it or no thread could be started.
pub(crate) fn take() -> Option<Held> {
    let h = helper()?;
    h.busy
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .ok()
        .map(|_| Held(h))
}

/// The helper, held by one caller.
pub(crate) struct Held(&'static Helper);

impl Held {
    /// Runs `job` on the helper and `here` on the calling thread at the same time.
    /// Returns `here`'s result, and `job`'s: `None` where the job panicked or could not
    /// be handed over, and then the caller computes it itself.
    pub(crate) fn beside<T, R>(
        self,
        job: impl FnOnce() -> T + Send + 'static,
        here: impl FnOnce() -> R,
    ) -> (Option<T>, R)
    where
        T: Send + 'static,
    {
        let (tx, rx) = mpsc::sync_channel::<T>(1);
        let posted = self
            .0
            .jobs
            .send(Box::new(move || {
                if let Ok(t) = catch_unwind(AssertUnwindSafe(job)) {
                    // The caller waits for this unless it panicked: then nobody reads it.
                    let _ = tx.send(t);
                }
            }))
            .is_ok();
        let r = here();
        let t = if posted { poll_then_block(&rx) } else { None };
        (t, r)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.0.busy.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Barrier, Mutex};

    /// The helper is one per process: the tests that look at whether it is free take
    /// turns.
    static TURN: Mutex<()> = Mutex::new(());

    /// [`Held::beside`] where the helper is free, else both here.
    fn beside<T: Send + 'static, R>(
        job: impl FnOnce() -> T + Send + 'static,
        here: impl FnOnce() -> R,
    ) -> (Option<T>, R) {
        match take() {
            Some(h) => h.beside(job, here),
            None => (None, here()),
        }
    }

    fn turn() -> std::sync::MutexGuard<'static, ()> {
        TURN.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[test]
    fn both_run_and_the_helper_runs_the_job_on_another_thread() {
        let _t = turn();
        let caller = std::thread::current().id();
        let (job, here) = beside(move || std::thread::current().id(), || 7);
        assert_eq!(here, 7);
        let job = job.expect("a free helper runs the job");
        assert_ne!(job, caller);
    }

    #[test]
    fn a_job_that_asks_for_the_helper_gets_none_at_once() {
        let _t = turn();
        let (inner, ()) = beside(|| beside(|| 1, || 2), || ());
        assert_eq!(inner, Some((None, 2)));
    }

    #[test]
    fn a_second_caller_finds_the_helper_busy_and_does_not_wait() {
        let _t = turn();
        // The first caller's job waits until the second caller has been answered.
        let go = std::sync::Arc::new(Barrier::new(2));
        let job_go = go.clone();
        let first = std::thread::spawn(move || {
            beside(
                move || {
                    job_go.wait();
                    1
                },
                || (),
            )
            .0
        });
        // Wait until the first caller holds the helper.
        let h = helper().expect("a helper thread");
        while !h.busy.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        let (second, here) = beside(|| 2, || 3);
        go.wait();
        assert_eq!((second, here), (None, 3));
        assert_eq!(first.join().expect("first caller"), Some(1));
    }

    #[test]
    fn a_panic_in_either_half_leaves_the_helper_usable() {
        let _t = turn();
        let (job, here) = beside(|| -> u8 { panic!("a job that panics (expected)") }, || 5);
        assert_eq!((job, here), (None, 5));
        let here_panics = std::panic::catch_unwind(|| {
            beside(
                || 1,
                || -> u8 { panic!("the caller's half panics (expected)") },
            )
        });
        assert!(here_panics.is_err());
        assert_eq!(beside(|| 8, || 9), (Some(8), 9));
    }

    #[test]
    fn pow_pair_gives_pows_results_with_the_helper_free_or_held() {
        use crate::{Modulus, Residue};
        let _t = turn();
        let n: Vec<u8> = (0..128u8).map(|i| i.wrapping_mul(37) | 0x81).collect();
        let m = Modulus::<u64>::from_be_bytes(&n).expect("an odd modulus");
        let a = Residue::from_be_bytes_reduced(&m, &[7; 200]);
        let b = Residue::from_be_bytes_reduced(&m, &[9; 100]);
        let (ea, eb) = ([0xa5; 128], [0x3c; 120]);
        let want = (a.pow(&ea), b.pow(&eb));
        assert!(
            want == crate::parallel::pow_pair(&a, &ea, &b, &eb),
            "helper free"
        );
        let held = take().expect("the helper, free");
        assert!(
            want == crate::parallel::pow_pair(&a, &ea, &b, &eb),
            "helper held"
        );
        drop(held);
    }
}
