//! Size thresholds of the `auto` kernel, in 64-bit limbs.
//!
//! Written by `montmul tune`; edit by re-running it, not by hand.
//! Machine: not yet measured (initial estimates).
//! Date: -

use crate::dispatch::Thresholds;

/// The thresholds `auto` and `karatsuba` use.
pub const TUNED: Thresholds = Thresholds {
    karatsuba_from: 40,
    karatsuba_mul_base: 24,
    karatsuba_sqr_base: 32,
};
