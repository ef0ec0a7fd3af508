//! The vocabulary of the program generators: the [`Builder`] that collects the data
//! memory and each core's code, where input and output words come from and go to
//! ([`Src`], [`Dst`]), the operands' addresses ([`Layout`]), and the scratch registers
//! of these generators. Each part of a program (`iteration.rs`, `sliced.rs`,
//! `residency.rs`, `epilogue.rs`) adds its own methods to the builder.

use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Instr, Reg, Traffic};
use crate::multicore::registers::ZERO;

// The scratch registers of this generator, after those of `multicore::registers`. `Mul`
// writes a pair (r, r + 1).
pub(super) const L1: Reg = 5;
pub(super) const L2: Reg = 7;
pub(super) const S: Reg = 9;
pub(super) const C: Reg = 10;
pub(super) const BB: Reg = 11;
pub(super) const ELO: Reg = 12;
pub(super) const EHI: Reg = 13;
pub(super) const XT: Reg = 14;
pub(super) const MT: Reg = 15;
pub(super) const ZT: Reg = 16;
pub(super) const BT: Reg = 17;
pub(super) const U: Reg = 18; // and 19
pub(super) const NC: Reg = 20;
pub(super) const DC: Reg = 21;
pub(super) const DC2: Reg = 22;
pub(super) const D: Reg = 23;
/// V's carry past the slice's top word, until it joins E_hi (the epilogue's DC is free
/// during the loop).
pub(super) const VH: Reg = DC;

// The epilogue works on two words at a time; the loop's registers are free by then.
// Temporaries for loaded words, constants, sums, selection products (with r + 1) and
// results, for the first and the second word.
pub(super) const PAIR_X: [Reg; 2] = [XT, ZT];
pub(super) const PAIR_M: [Reg; 2] = [MT, BT];
pub(super) const PAIR_D: [Reg; 2] = [D, C];
pub(super) const PAIR_U: [Reg; 2] = [U, L1];
pub(super) const PAIR_S: [Reg; 2] = [S, BB];

/// Where an input word comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Src {
    Zero,
    Reg(Reg),
    Mem(Addr, Traffic),
}

/// Where an output word goes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Dst {
    Drop,
    Reg(Reg),
    Mem(Addr, Traffic),
}

pub(super) struct Layout {
    pub(super) x: Addr,
    pub(super) y: Addr,
    pub(super) m: Addr,
    pub(super) mp: Addr,
    pub(super) neg_m: Addr,
}

pub(super) struct Builder {
    pub(super) memory: Vec<u64>,
    pub(super) code: Vec<Vec<Instr>>,
}

impl Emit for Builder {
    fn emit(&mut self, core: usize, instr: Instr) {
        self.code[core].push(instr);
    }
}

impl Builder {
    pub(super) fn alloc(&mut self, words: usize) -> Addr {
        let at = self.memory.len() as Addr;
        self.memory.resize(self.memory.len() + words, 0);
        at
    }

    pub(super) fn place(&mut self, words: &[u64]) -> Addr {
        let at = self.memory.len() as Addr;
        self.memory.extend_from_slice(words);
        at
    }

    /// The register holding `src` (loading it into `temp` if it is in memory).
    pub(super) fn fetch(&mut self, core: usize, src: Src, temp: Reg) -> Reg {
        match src {
            Src::Zero => ZERO,
            Src::Reg(r) => r,
            Src::Mem(addr, traffic) => {
                self.load(core, temp, addr, traffic);
                temp
            }
        }
    }

    /// Sets `reg` to `src`.
    pub(super) fn fetch_into(&mut self, core: usize, src: Src, reg: Reg) {
        match src {
            Src::Zero => self.sub(core, reg, ZERO, ZERO),
            Src::Reg(r) if r == reg => {}
            Src::Reg(r) => self.add(core, reg, r, ZERO),
            Src::Mem(addr, traffic) => self.load(core, reg, addr, traffic),
        }
    }

    pub(super) fn put(&mut self, core: usize, dst: Dst, reg: Reg) {
        if let Dst::Mem(addr, traffic) = dst {
            self.store(core, reg, addr, traffic);
        }
    }
}
