//! [`CrtHalves`]: the choice of how an RSA private key runs the two halves of its CRT
//! exponentiation (`private.rs`), kept with the key (`key.rs`).

/// How the private operation runs its two CRT halves (`c^dp mod p`, `c^dq mod q`).
/// Every choice gives the same result and is constant-time; they differ in speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrtHalves {
    /// One core, the two halves in lockstep where that is faster
    /// ([`montmul::lanes::pow_x2`] picks: AVX-512 IFMA and halves up to about 1600
    /// bits, so RSA-2048 and RSA-3072), one after the other elsewhere. The default.
    #[default]
    Lockstep,
    /// One core, one half after the other ([`Residue::pow`](montmul::Residue::pow)
    /// twice): the reference.
    OneByOne,
    /// The two halves on two threads, each one [`Residue::pow`](montmul::Residue::pow):
    /// the p half on a scoped thread spawned for the call (on the caller's too where no
    /// thread can be started), the q half on the caller's. The same work, in less
    /// time where a second core is free (0.6x of [`CrtHalves::Lockstep`] at 4096 bits
    /// here; at 2048 bits the thread costs more than it saves: `docs/PERFORMANCE.md`).
    TwoThreads,
}
