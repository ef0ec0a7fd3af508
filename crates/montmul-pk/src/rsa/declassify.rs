//! [`declassify`]: a flag computed in constant time from secrets, declared public where
//! the API reveals it and the code branches on it. One function, used by the private
//! operation, key loading and generation here, and by the prime search, DH and DSA
//! (`crate::rsa::declassify`); its `ct-valgrind` form is what lets the valgrind harness
//! tell those intended branches from a leak.

/// `value`, declared public: a flag computed in constant time from secrets, which the
/// API reveals by design (a key is consistent, a result passed its fault check), about
/// to be branched on. The identity; with the `ct-valgrind` feature it also tells
/// memcheck that the value is defined, so that the valgrind harness
/// (`examples/ct_valgrind_rsa.rs`) reports every other secret-dependent branch, as
/// `montmul::ct`'s own declassification does.
#[inline(always)]
pub(crate) fn declassify(value: u64) -> u64 {
    #[cfg(feature = "ct-valgrind")]
    {
        let cell = [value];
        // Not under valgrind: a no-op (the client request is a few instructions).
        let _ = crabgrind::memcheck::mark_memory(
            cell.as_ptr().cast(),
            core::mem::size_of_val(&cell),
            crabgrind::memcheck::MemState::Defined,
        );
        core::hint::black_box(cell)[0]
    }
    #[cfg(not(feature = "ct-valgrind"))]
    value
}
