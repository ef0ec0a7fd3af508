//! x86-64 code, one module per CPU feature it needs.

pub mod adx;
pub mod amm28;
pub mod avx2;
pub mod avx512ifma;
pub mod columns;
pub mod domain;
pub mod two_way;
