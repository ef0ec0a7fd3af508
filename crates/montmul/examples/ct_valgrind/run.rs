//! The run of the harness: its cases, counted and named, in groups that each end with
//! a summary line, and the cases in which memcheck's error count grew.

use crate::memcheck::errors;
use montmul_testkit::TestRng;

/// The run: a random generator, the cases run, the cases memcheck complained in, and
/// the kernel the last case's modulus resolved to.
pub struct Run {
    pub rng: TestRng,
    pub cases: usize,
    pub failed: Vec<String>,
    pub engine: Option<&'static str>,
}

impl Run {
    /// Runs the cases of `body` as the group `name` and prints its summary line.
    pub fn group(&mut self, name: &str, body: impl FnOnce(&mut Self)) {
        let (cases, failed) = (self.cases, self.failed.len());
        let start = std::time::Instant::now();
        body(self);
        println!(
            "== {name}: {} cases, {} with leaks, {:.1} s",
            self.cases - cases,
            self.failed.len() - failed,
            start.elapsed().as_secs_f64()
        );
    }

    /// Runs `case`, named `label`, and records whether memcheck's error count grew.
    pub fn case(&mut self, label: &str, case: impl FnOnce(&mut Self) -> String) {
        let before = errors();
        self.engine = None;
        let detail = case(self);
        let new = errors() - before;
        self.cases += 1;
        if new == 0 {
            println!("ok    {label:<40} {detail}");
        } else {
            println!("LEAK  {label:<40} {detail}: {new} memcheck error(s), reported above");
            self.failed.push(label.to_string());
        }
    }
}
