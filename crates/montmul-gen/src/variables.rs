//! Naming a program's values with few, reusable variables.
//!
//! The intermediate form gives every value its own local, assigned once. Printed as one
//! `let` per value, a 2048-bit kernel would open tens of thousands of nested scopes (a
//! `let` scope lasts to the end of the block), and compilers recurse over that nesting
//! when they write debug information: rustc overflows its stack. So each value is
//! stored in the variable named after its base name (`t3`, `c`), as in the pseudocode,
//! once that variable's previous value has been read for the last time; when it is
//! still needed, a numbered sibling (`c_1`) takes the value. Each statement reads all its
//! inputs before it writes, so a value may replace one that its own statement reads.

use std::collections::HashMap;

use crate::ir::{Local, Program, Val};

/// Where each local lives and where each variable is declared.
#[derive(Debug)]
pub struct Variables {
    /// Per local: index into `names`, or `None` for a local no operation writes.
    of: Vec<Option<usize>>,
    /// Per local: whether writing it is the first assignment of its variable.
    first: Vec<bool>,
    names: Vec<String>,
    assignments: Vec<usize>,
}

impl Variables {
    /// Allocates variables for the locals of `program`, in one pass over the operations.
    pub fn allocate(program: &Program) -> Self {
        let ops = program.ops();
        let mut last_use = vec![None; program.locals()];
        for (i, op) in ops.iter().enumerate() {
            for v in op.inputs() {
                if let Val::Local(l) = v {
                    last_use[l.index()] = Some(i);
                }
            }
        }
        let mut vars = Variables {
            of: vec![None; program.locals()],
            first: vec![false; program.locals()],
            names: Vec::new(),
            assignments: Vec::new(),
        };
        // Per base name: the local each numbered variable holds now (None: free).
        let mut slots: HashMap<String, Vec<Option<Local>>> = HashMap::new();
        let mut slot_var: HashMap<(String, usize), usize> = HashMap::new();
        let mut home: Vec<Option<usize>> = vec![None; program.locals()];
        for (i, op) in ops.iter().enumerate() {
            for v in op.inputs() {
                if let Val::Local(l) = v {
                    if last_use[l.index()] == Some(i) {
                        let holders = slots.get_mut(program.base(l)).expect("read after write");
                        if let Some(slot) = home[l.index()] {
                            if holders[slot] == Some(l) {
                                holders[slot] = None;
                            }
                        }
                    }
                }
            }
            for out in op.outputs() {
                let base = program.base(out).to_string();
                let holders = slots.entry(base.clone()).or_default();
                let slot = match holders.iter().position(Option::is_none) {
                    Some(free) => free,
                    None => {
                        holders.push(None);
                        holders.len() - 1
                    }
                };
                holders[slot] = Some(out);
                home[out.index()] = Some(slot);
                let var = *slot_var.entry((base.clone(), slot)).or_insert_with(|| {
                    vars.names.push(match slot {
                        0 => base.clone(),
                        k => format!("{base}_{k}"),
                    });
                    vars.assignments.push(0);
                    vars.names.len() - 1
                });
                vars.first[out.index()] = vars.assignments[var] == 0;
                vars.assignments[var] += 1;
                vars.of[out.index()] = Some(var);
            }
        }
        vars
    }

    fn var(&self, local: Local) -> usize {
        self.of[local.index()].expect("every local that is read was written")
    }

    /// The variable that holds `local`.
    pub fn name(&self, local: Local) -> &str {
        &self.names[self.var(local)]
    }

    /// Whether the statement writing `local` is where its variable is declared.
    pub fn declares(&self, local: Local) -> bool {
        self.first[local.index()]
    }

    /// Whether the variable of `local` is assigned more than once (`let mut` in Rust).
    pub fn reassigned(&self, local: Local) -> bool {
        self.assignments[self.var(local)] > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Arg;

    #[test]
    fn reuses_a_variable_only_when_its_value_is_dead() {
        let mut p = Program::new();
        let a0 = Val::Limb(Arg::A, 0);
        let (x, c1) = p.mul_add(a0, a0, &[], "t0", "c");
        // c1 stays live while the next carry is made: the next c needs a sibling.
        let (y, c2) = p.mul_add(a0, x, &[], "t0", "c");
        let (z, _) = p.add(&[y, c1, c2], "t0", "c");
        p.store(0, z);
        p.drop_dead_code();
        let v = Variables::allocate(&p);
        let local = |v: Val| match v {
            Val::Local(l) => l,
            _ => unreachable!(),
        };
        assert_eq!(v.name(local(x)), "t0");
        assert_eq!(v.name(local(y)), "t0");
        assert_eq!(v.name(local(z)), "t0");
        assert_eq!(v.name(local(c1)), "c");
        assert_eq!(v.name(local(c2)), "c_1");
        assert!(v.declares(local(x)) && !v.declares(local(y)));
        assert!(v.reassigned(local(x)) && !v.reassigned(local(c2)));
    }
}
