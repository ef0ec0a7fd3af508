//! [`CrtHalves`]: the choice of how an RSA private key runs the two halves of its CRT
//! exponentiation (`private.rs`), kept with the key (`key.rs`).

/// How the private operation runs its two CRT halves (`c^dp mod p`, `c^dq mod q`).
/// Every choice gives the same result and is constant-time; they differ in speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrtHalves {
    /// One core, the two halves in lockstep where that is faster
    /// ([`montmul::lanes::pow_x2`] picks: AVX-512 IFMA and halves up to about 1600
    /// bits, so RSA-2048 and RSA-3072, or up to 2048 bits, to RSA-4096, where the CPU
    /// does not split 512-bit multiply-adds), one after the other elsewhere.
    /// The default.
    #[default]
    Lockstep,
    /// One core, one half after the other ([`Residue::pow`](montmul::Residue::pow)
    /// twice): the reference.
    OneByOne,
    /// The two halves on two cores ([`montmul::parallel::pow_pair`]): the p half on the
    /// helper thread the process keeps for this, the q half on the caller's; both on
    /// the caller's, as [`CrtHalves::Lockstep`] runs them, where the helper is busy with
    /// another caller. The same work, in less time where a second core is free: 0.53x
    /// of [`CrtHalves::Lockstep`] at 4096 bits, 0.6x at 3072 and 0.75x at 2048 here,
    /// signing in a loop; a call after the machine has been idle costs more
    /// (`docs/PERFORMANCE.md`).
    TwoThreads,
}
