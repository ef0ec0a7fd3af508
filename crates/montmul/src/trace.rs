//! The steps of an exponentiation as a [`Trace`] sees them: the seam through which the
//! tests check that a constant-time ladder's sequence of squarings, products and table
//! reads depends on the exponent's length only. Re-exported by [`crate::exp`]; its own
//! file so that the per-word hooks of [`crate::kernel`] can name it without importing
//! `exp`, which imports `kernel`.

/// One step of an exponentiation, as a [`Trace`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A Montgomery squaring.
    Sqr,
    /// A Montgomery multiplication.
    Mul,
    /// A read of entry `index` of the precomputed table.
    Read(usize),
}

/// Receives every step of an exponentiation.
pub trait Trace {
    /// Called once per step, in order.
    fn step(&mut self, step: Step);
}

/// Ignores the steps (the production case: compiled away).
impl Trace for () {
    #[inline(always)]
    fn step(&mut self, _: Step) {}
}

/// Records the steps.
impl Trace for Vec<Step> {
    fn step(&mut self, step: Step) {
        self.push(step);
    }
}
