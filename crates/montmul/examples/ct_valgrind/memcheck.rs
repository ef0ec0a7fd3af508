//! The memcheck client requests of the harness: secrets marked undefined, outputs
//! marked defined again before they are checked, and memcheck's error count.

use crabgrind::memcheck::{mark_memory, vbits, MemState};

/// Marks `len` bytes at `addr` as secret (undefined), and checks that memcheck took
/// note; nothing when not under valgrind.
pub fn secret_bytes(addr: *const u8, len: usize) {
    if len == 0 || !under_valgrind() {
        return;
    }
    mark_memory(addr.cast(), len, MemState::Undefined).expect("under valgrind");
    // Memcheck's validity bits of the bytes (0xff: undefined), read without an error
    // report (as a check request would make).
    let mut v = vec![0u8; len];
    vbits(addr.cast(), &mut v).expect("under valgrind");
    assert!(
        v.iter().all(|&b| b == 0xff),
        "memcheck did not take {len} bytes as undefined"
    );
}

/// Marks the values as secret.
pub fn secret<T>(values: &[T]) {
    secret_bytes(values.as_ptr().cast(), core::mem::size_of_val(values));
}

/// Marks the values as public again (declassified): an output about to be checked.
pub fn public<T>(values: &[T]) {
    public_bytes(values.as_ptr().cast(), core::mem::size_of_val(values));
}

/// Marks `len` bytes at `addr` as public again.
pub fn public_bytes(addr: *const u8, len: usize) {
    let _ = mark_memory(addr.cast(), len, MemState::Defined);
}

pub fn under_valgrind() -> bool {
    crabgrind::valgrind::running_mode().is_valgrind()
}

/// Memcheck's error count so far (0 when not under valgrind).
pub fn errors() -> usize {
    if under_valgrind() {
        crabgrind::valgrind::count_errors()
    } else {
        0
    }
}
