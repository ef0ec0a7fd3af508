//! Montgomery multiplication on real threads: seed 002's method-II, and batches on rayon.
//!
//! **Method-II** (seed 002, Fan, Sakiyama & Verbauwhede, sec. 4.2): every iteration of
//! the outer loop of CIOS is split over all cores. Core k owns a contiguous chunk of the
//! accumulator's words and of the operand words `a[lo..hi]`, `n[lo..hi]`; the word
//! `q_i` is computed by core 0 (the only one that sees the lowest word) and broadcast;
//! after each iteration's shift by one word, the lowest word of core k's chunk moves into
//! the top of core k-1's chunk ("one word shifted across each core boundary"). Here the
//! cores are OS threads that meet at one spin barrier per iteration, so the question the
//! seed asks of its VLIW platform becomes: from which size on does the work of one
//! iteration (2 * s / p word products per thread) outweigh one barrier? Only the pool
//! threads that are free when a product starts take part in it (see `Roster`), so the
//! barrier never waits for a thread that is busy elsewhere.
//!
//! Carries never cross a chunk boundary. The carry out of chunk k at iteration i has the
//! weight of word `hi_k`; after the iteration's division by W it has the weight of word
//! `hi_k - 1`, the top of chunk k itself. So each chunk keeps a pending carry `P` for its
//! top word and folds it in during the next iteration; only the handed-over words travel.
//!
//! Constant-time in the data: every loop bound depends on the sizes only. (Thread
//! scheduling adds timing noise that does not depend on the data.)
//!
//! **Batches**: [`mul_batch`] and [`pow_batch`] spread independent operations over
//! rayon's thread pool, which is how a server gets throughput from many cores.
//!
//! **Pairs**: [`pow_pair`] runs two exponentiations on two cores for the latency of one
//! (RSA's CRT halves), the second core being a helper thread kept warm between calls
//! (`parallel/helper.rs`), not rayon's pool or a thread per call, whose start-up costs
//! more than a pair saves at 2048 bits.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::{ct, Limb, Modulus, Reduction, Residue};

mod helper;

/// Pending carry of a chunk's top word, below 2W + 2 (see [`Chunk::iterate`]).
type Wide = u128;

/// One thread's share: words `lo..hi` of the accumulator, of `a` and of `n`.
struct Chunk<'a> {
    /// The first word of the share.
    lo: usize,
    /// `t[x]` is accumulator word `lo + x` (after the divisions so far).
    t: Vec<u64>,
    /// Carry waiting to be added to the top word `t[len - 1]`.
    pending: Wide,
    a: &'a [u64],
    n: &'a [u64],
}

impl<'a> Chunk<'a> {
    /// A zero accumulator for words `lo..hi` of `a` and `n`.
    fn new((lo, hi): (usize, usize), a: &'a [u64], n: &'a [u64]) -> Self {
        Chunk {
            lo,
            t: vec![0; hi - lo],
            pending: 0,
            a: &a[lo..hi],
            n: &n[lo..hi],
        }
    }
}

impl Chunk<'_> {
    /// The lowest accumulator word of this chunk mod W, pending carry included (it
    /// only sits there when the chunk is a single word).
    fn low_word(&self) -> u64 {
        if self.t.len() == 1 {
            (self.t[0] as Wide + self.pending) as u64
        } else {
            self.t[0]
        }
    }

    /// One CIOS iteration on this chunk: `t += a * b_i + q * n`, then the shift by one
    /// word. Returns the word shifted out at the bottom (for chunk 0 it is zero: q was
    /// chosen for that; for the others it belongs to the chunk below).
    ///
    /// `top` is the word the chunk above handed over in the previous iteration (0 for
    /// the highest chunk): it becomes this chunk's top word before the products.
    fn iterate(&mut self, b_i: u64, q: u64, top: u64) -> u64 {
        let len = self.t.len();
        self.t[len - 1] = top;
        // Pass 1: t += a * b_i. Each mac: t[x] + a[x] b_i + c <= 2^128 - 1.
        let mut c1 = 0u64;
        for x in 0..len - 1 {
            (self.t[x], c1) = u64::mac(self.t[x], self.a[x], b_i, c1);
        }
        let (lo, hi) = u64::mac(self.t[len - 1], self.a[len - 1], b_i, c1);
        // Fold in the pending carry: lo + P < W + 2W + 2, so the sum's high part is at
        // most 3 and the carry out c1_out = hi + that <= (W - 1) + 3 = W + 2.
        let sum = lo as Wide + self.pending;
        self.t[len - 1] = sum as u64;
        let c1_out = hi as Wide + (sum >> 64);
        // Pass 2: t += q * n, written one word down (the division by W).
        let (bottom, mut c2) = u64::mac(self.t[0], q, self.n[0], 0);
        for x in 1..len {
            let (w, c) = u64::mac(self.t[x], q, self.n[x], c2);
            self.t[x - 1] = w;
            c2 = c;
        }
        // The new top word arrives from the chunk above next time. The carries out of
        // both passes now weigh as that top word: P <= (W + 2) + (W - 1) < 2W + 2.
        self.t[len - 1] = 0;
        self.pending = c1_out + c2 as Wide;
        bottom
    }
}

/// A sense-reversing spin barrier; every caller of one round passes the same count.
struct SpinBarrier {
    waiting: AtomicUsize,
    generation: AtomicUsize,
}

impl SpinBarrier {
    fn new() -> Self {
        SpinBarrier {
            waiting: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
        }
    }

    /// Blocks until `threads` threads have called `wait`; everything a thread wrote
    /// before its call is visible to every thread after it (AcqRel on the counters).
    /// Only threads that are all running this code may meet here (see [`Roster`]).
    fn wait(&self, threads: usize) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == threads {
            self.waiting.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::AcqRel);
        } else {
            spin_until(|| self.generation.load(Ordering::Acquire) != generation);
        }
    }
}

/// Spins briefly (the partner is normally a few hundred cycles away), then yields, so
/// that more threads than cores still make progress, until `done` holds.
fn spin_until(mut done: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !done() {
        if spins < 1 << 12 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// Who takes part in one split product. The barrier may only count threads that are
/// already running the split: a pool thread that is busy elsewhere (another split on
/// the same pool, or the `par_iter` this call was made from) would never arrive, and
/// everyone would wait for ever. So each helper task joins when it starts; the calling
/// thread closes the roster, and helpers that start after that do nothing. Nobody waits
/// for a thread that is not running: helpers wait only for the caller to close.
struct Roster(AtomicUsize);

/// The bit of [`Roster`] that says it is closed; the bits below count the helpers.
const CLOSED: usize = 1 << (usize::BITS - 1);

impl Roster {
    fn new() -> Self {
        Roster(AtomicUsize::new(0))
    }

    /// A helper's place (1, 2, ...), or `None` when the caller has closed the roster.
    fn join(&self) -> Option<usize> {
        let mut state = self.0.load(Ordering::Acquire);
        loop {
            if state & CLOSED != 0 {
                return None;
            }
            match self.0.compare_exchange_weak(
                state,
                state + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(state + 1),
                Err(now) => state = now,
            }
        }
    }

    /// Waits (for the running caller only) until the roster is closed, then returns the
    /// count of participants, the caller included.
    fn participants(&self) -> usize {
        spin_until(|| self.0.load(Ordering::Acquire) & CLOSED != 0);
        (self.0.load(Ordering::Acquire) & !CLOSED) + 1
    }

    /// The caller: waits until `helpers` have joined or `patience` has passed, then
    /// closes and returns the count of participants, the caller included.
    fn close(&self, helpers: usize, patience: Duration) -> usize {
        let start = Instant::now();
        spin_until(|| self.0.load(Ordering::Acquire) >= helpers || start.elapsed() > patience);
        (self.0.fetch_or(CLOSED, Ordering::AcqRel) & !CLOSED) + 1
    }
}

/// The word boundaries of `threads` chunks of `s` words, each at least 2 words long.
fn chunk_bounds(s: usize, threads: usize) -> Vec<(usize, usize)> {
    let p = threads.clamp(1, (s / 2).max(1));
    (0..p).map(|k| (k * s / p, (k + 1) * s / p)).collect()
}

/// The most threads [`mont_mul_split`] uses for `s` words: chunks need at least two
/// words, so at most s / 2. Pool threads busy elsewhere when the call starts do not
/// take part, so it may use fewer.
pub fn threads_used(s: usize, threads: usize) -> usize {
    chunk_bounds(s, threads).len()
}

/// `out = a * b * 2^(-64 s) mod n` (s = `n.len()`) by method-II over the threads of
/// `pool` (all of them, or s / 2 if fewer; without a pool, on the calling thread alone),
/// for odd `n` with `n0 = -n^-1 mod 2^64`. With `lazy` false, `a` and `b` must be below
/// n and so is the output; with `lazy` true (R > 4n required) all are below 2n.
///
/// The threads wait for each other once per iteration, so only pool threads that are
/// free when the call starts take part: the caller waits for them at most about as
/// long as the product takes on one thread, then goes on with those that came (alone,
/// if none did). Any use is safe, from several threads at once on one pool or from
/// inside the pool's own `par_iter`, but a pool kept for this call gives the speed-up.
///
/// Works on raw limbs, so it is not limited to [`crate::MAX_BITS`]: the seed's
/// question is about large sizes. Every slice has `s` limbs.
///
/// # Panics
/// When a slice does not have `s` limbs, or `n` is empty or even.
pub fn mont_mul_split(
    n: &[u64],
    n0: u64,
    a: &[u64],
    b: &[u64],
    out: &mut [u64],
    pool: Option<&rayon::ThreadPool>,
    lazy: bool,
) {
    let threads = pool.map_or(1, |p| p.current_num_threads());
    let s = n.len();
    assert!(
        a.len() == s && b.len() == s && out.len() == s,
        "operands must have s limbs"
    );
    assert!(s >= 1 && n[0] & 1 == 1, "the modulus must be odd");
    let p = threads_used(s, threads);
    let chunks = match pool {
        Some(pool) if p > 1 => threaded(pool, p, n, a, b, n0),
        _ => {
            let mut chunk = Chunk::new((0, s), a, n);
            single(&mut chunk, b, n0, a[0], s);
            vec![chunk]
        }
    };
    gather(&chunks, n, out, lazy);
}

/// q_i = (t_0 + a_0 b_i) n0' mod W, where t_0 is the lowest accumulator word.
#[inline]
fn next_q(t0: u64, a0: u64, b_i: u64, n0: u64) -> u64 {
    t0.wrapping_add(a0.wrapping_mul(b_i)).wrapping_mul(n0)
}

fn single(chunk: &mut Chunk<'_>, b: &[u64], n0: u64, a0: u64, s: usize) {
    for &b_i in &b[..s] {
        let q = next_q(chunk.low_word(), a0, b_i, n0);
        let bottom = chunk.iterate(b_i, q, 0);
        debug_assert_eq!(bottom, 0, "q clears the lowest word");
    }
}

/// Method-II on the calling thread and at most `p - 1` helpers from `pool`: the chunks,
/// lowest first, one per participant.
fn threaded<'a>(
    pool: &rayon::ThreadPool,
    p: usize,
    n: &'a [u64],
    a: &'a [u64],
    b: &[u64],
    n0: u64,
) -> Vec<Chunk<'a>> {
    let s = b.len();
    // Double-buffered mailboxes: iteration i writes slot i % 2 and reads slot (i+1) % 2,
    // so a thread running one iteration ahead never overwrites a word not yet read.
    let handover: [Vec<AtomicU64>; 2] = [
        (0..p).map(|_| AtomicU64::new(0)).collect(),
        (0..p).map(|_| AtomicU64::new(0)).collect(),
    ];
    let q = [AtomicU64::new(next_q(0, a[0], b[0], n0)), AtomicU64::new(0)];
    let barrier = SpinBarrier::new();
    let roster = Roster::new();
    let done: Mutex<Vec<Option<Chunk<'a>>>> = Mutex::new((0..p).map(|_| None).collect());
    // Participant k of `count`: chunk k of `count` chunks.
    let run = |k: usize, count: usize| {
        let mut chunk = Chunk::new(chunk_bounds(s, count)[k], a, n);
        for (i, &b_i) in b.iter().enumerate() {
            let (cur, prev) = (i % 2, (i + 1) % 2);
            let q_i = q[cur].load(Ordering::Relaxed);
            // The word chunk k+1 shifted out in iteration i - 1 (0 at the start).
            let top = match (i, k + 1 < count) {
                (0, _) | (_, false) => 0,
                _ => handover[prev][k + 1].load(Ordering::Relaxed),
            };
            let bottom = chunk.iterate(b_i, q_i, top);
            handover[cur][k].store(bottom, Ordering::Relaxed);
            if k == 0 && i + 1 < s {
                q[prev].store(
                    next_q(chunk.low_word(), a[0], b[i + 1], n0),
                    Ordering::Relaxed,
                );
            }
            barrier.wait(count);
        }
        lock(&done)[k] = Some(chunk);
    };
    // Waiting for helpers longer than the whole product takes alone (about s^2 word
    // products at a nanosecond or less each) cannot pay; a thread wakes in tens of us.
    let patience = Duration::from_nanos((s * s) as u64).max(Duration::from_micros(20));
    let count = pool.scope(|scope| {
        let (run, roster) = (&run, &roster);
        for _ in 1..p {
            scope.spawn(move |_| {
                if let Some(k) = roster.join() {
                    run(k, roster.participants());
                }
            });
        }
        let count = roster.close(p - 1, patience);
        run(0, count);
        count
    });
    let mut chunks: Vec<Chunk<'a>> = done
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_iter()
        .flatten()
        .collect();
    debug_assert_eq!(chunks.len(), count);
    // The last handed-over words: chunk k+1's bottom from the final iteration becomes
    // chunk k's top word, which `gather` reads from `t[len - 1]`.
    let last = (s + 1) % 2;
    for k in 0..count - 1 {
        let len = chunks[k].t.len();
        chunks[k].t[len - 1] = handover[last][k + 1].load(Ordering::Relaxed);
    }
    chunks
}

/// The guarded value, also after a panic elsewhere (the data is written whole or not).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Adds every chunk's words and pending carries into `out`, then reduces.
fn gather(chunks: &[Chunk<'_>], n: &[u64], out: &mut [u64], lazy: bool) {
    let s = n.len();
    // The value is below 2n < 2R, but pending carries make it redundant: accumulate into
    // s + 2 words, then everything above word s must be a single top bit.
    let mut acc = vec![0u64; s + 2];
    for chunk in chunks {
        add_at(&mut acc, chunk.lo, &chunk.t);
        let top = chunk.lo + chunk.t.len() - 1;
        add_at(
            &mut acc,
            top,
            &[chunk.pending as u64, (chunk.pending >> 64) as u64],
        );
    }
    out.copy_from_slice(&acc[..s]);
    debug_assert!(acc[s + 1] == 0 && acc[s] <= 1);
    if !lazy {
        ct::reduce_once(out, acc[s], n);
    }
}

/// `acc += words * W^at`, carrying to the end of `acc`.
fn add_at(acc: &mut [u64], at: usize, words: &[u64]) {
    let mut carry = 0;
    for (j, slot) in acc.iter_mut().enumerate().skip(at) {
        let w = words.get(j - at).copied().unwrap_or(0);
        (*slot, carry) = u64::adc(*slot, w, carry);
    }
}

/// [`mont_mul_split`] on a [`Modulus`]: the Montgomery product of two residues' limbs
/// (below [`Modulus::bound`]) on the threads of `pool`.
pub fn mont_mul_threads(
    m: &Modulus<u64>,
    a: &[u64],
    b: &[u64],
    out: &mut [u64],
    pool: Option<&rayon::ThreadPool>,
) {
    let lazy = m.reduction() == Reduction::Lazy;
    mont_mul_split(m.n(), m.n0(), a, b, out, pool, lazy);
}

/// The lanes one rayon task hands to [`crate::lanes`]: at most
/// [`crate::lanes::MAX_LANES`], and few enough that every thread of the pool gets work.
fn lanes_per_task(jobs: usize) -> usize {
    jobs.div_ceil(rayon::current_num_threads())
        .clamp(1, crate::lanes::MAX_LANES)
}

/// `a[i] * b[i]` for every i: batches of up to [`crate::lanes::MAX_LANES`] through
/// [`crate::lanes::mul_lanes`], spread over rayon's thread pool.
///
/// # Panics
/// When the slices differ in length or a pair belongs to different moduli.
pub fn mul_batch<L: Limb>(a: &[Residue<L>], b: &[Residue<L>]) -> Vec<Residue<L>> {
    assert_eq!(a.len(), b.len(), "mul_batch needs slices of equal length");
    let per = lanes_per_task(a.len());
    a.par_chunks(per)
        .zip(b.par_chunks(per))
        .flat_map_iter(|(x, y)| crate::lanes::mul_lanes(x, y).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

/// `base[i]^e` for every i (constant-time in `e`, as [`Residue::pow`]): batches of up
/// to [`crate::lanes::MAX_LANES`] through [`crate::lanes::pow_lanes`], spread over
/// rayon's thread pool.
pub fn pow_batch<L: Limb>(bases: &[Residue<L>], exponent_be: &[u8]) -> Vec<Residue<L>> {
    let per = lanes_per_task(bases.len());
    let exponents = [exponent_be; crate::lanes::MAX_LANES];
    bases
        .par_chunks(per)
        .flat_map_iter(|chunk| {
            // A chunk has at most MAX_LANES bases and as many exponents: no error.
            crate::lanes::pow_lanes(chunk, &exponents[..chunk.len()])
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

/// `(a^ea, b^eb)`, exactly [`Residue::pow`]'s, the first on a second core: on a helper
/// thread that the process keeps for this, which polls for the next call for half a
/// millisecond after each one before it sleeps. Where the helper is busy (another
/// thread is in `pow_pair`) or no thread can be started, both run here as
/// [`crate::lanes::pow_x2`] runs them (in lockstep where that is faster); nobody waits
/// for the helper. How RSA's two CRT halves run on two cores.
///
/// Constant-time in the bases and the exponents' values, as [`Residue::pow`]; which way
/// it runs depends on other callers only.
pub fn pow_pair<L: Limb>(
    a: &Residue<L>,
    ea: &[u8],
    b: &Residue<L>,
    eb: &[u8],
) -> (Residue<L>, Residue<L>) {
    let Some(held) = helper::take() else {
        return crate::lanes::pow_x2(a, ea, b, eb).unwrap_or_else(|_| (a.pow(ea), b.pow(eb)));
    };
    let (job_base, job_exp) = (a.clone(), zeroize::Zeroizing::new(ea.to_vec()));
    let (x, y) = held.beside(move || job_base.pow(&job_exp), || b.pow(eb));
    (x.unwrap_or_else(|| a.pow(ea)), y)
}
