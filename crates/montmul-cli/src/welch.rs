//! Welch's t-test on two classes of timings, with the mean and variance kept online
//! (Welford 1962), as dudect does (Reparaz, Balasch, Verbauwhede, "Dude, is my code
//! constant time?", DATE 2017): no measurement is stored, so 10^8 of them take no
//! memory.
//!
//! The statistic is t = (mean_0 - mean_1) / sqrt(var_0 / n_0 + var_1 / n_1) with the
//! sample variances (n - 1 in the denominator). dudect's thresholds: |t| below 4.5 is no
//! evidence of a leak, above 10 a leak beyond reasonable doubt.
//!
//! Self-contained (no other module of the command line): `tests/ct_check.rs` includes
//! it to check the statistic against values computed by hand.

/// Below this |t|, dudect finds no leak.
pub const NO_LEAK_BELOW: f64 = 4.5;

/// Above this |t|, dudect calls it a leak.
pub const LEAK_ABOVE: f64 = 10.0;

/// Count, mean and sum of squared deviations of a stream of values (Welford's update:
/// numerically stable where the naive sum of squares cancels).
#[derive(Clone, Copy, Debug, Default)]
pub struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    /// Adds one value.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// How many values were added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Their mean (0 for none).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// Their sample variance, with n - 1 in the denominator (0 below two values).
    pub fn variance(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            self.m2 / (self.n - 1) as f64
        }
    }
}

/// Welch's t-test of class 0 against class 1, fed one measurement at a time.
#[derive(Clone, Copy, Debug, Default)]
pub struct TTest {
    classes: [Moments; 2],
}

impl TTest {
    /// Adds measurement `x` of class `class` (0 or 1; anything else counts as 1).
    pub fn push(&mut self, class: usize, x: f64) {
        self.classes[class.min(1)].push(x);
    }

    /// The moments of class `class` (0 or 1).
    pub fn class(&self, class: usize) -> &Moments {
        &self.classes[class.min(1)]
    }

    /// Measurements in both classes together.
    pub fn count(&self) -> u64 {
        self.classes[0].count() + self.classes[1].count()
    }

    /// Welch's t: 0 while a class has fewer than two measurements or both have no
    /// variance at all (nothing to tell apart).
    pub fn t(&self) -> f64 {
        let [a, b] = &self.classes;
        if a.count() < 2 || b.count() < 2 {
            return 0.0;
        }
        let se = (a.variance() / a.count() as f64 + b.variance() / b.count() as f64).sqrt();
        if se == 0.0 {
            return 0.0;
        }
        (a.mean() - b.mean()) / se
    }
}

/// The verdict below [`NO_LEAK_BELOW`].
pub const NO_LEAK: &str = "no leak found";

/// dudect's word for a |t|: "no leak found" below 4.5, "probably leaks" up to 10,
/// "leaks" above.
pub fn verdict(t: f64) -> &'static str {
    let t = t.abs();
    if t < NO_LEAK_BELOW {
        NO_LEAK
    } else if t <= LEAK_ABOVE {
        "probably leaks"
    } else {
        "leaks"
    }
}
