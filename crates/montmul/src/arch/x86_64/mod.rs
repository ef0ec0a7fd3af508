//! x86-64 code, one module per CPU feature it needs.

pub mod adx;
pub mod avx2;
pub mod avx512ifma;
pub mod columns;
pub mod two_way;
