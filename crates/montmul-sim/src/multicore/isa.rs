//! The instruction set of one core (seed 002, Table 1): seven instructions on w-bit
//! registers and one carry flag.

/// A register number in one core's register file.
pub type Reg = u16;

/// A word address in the shared data memory.
pub type Addr = u32;

/// Why a load or store touches the data memory, for the counts of seed 002, Tables 2-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Traffic {
    /// A word of X, Y or M (N_load-opr).
    Operand,
    /// A word moved between cores or spilled between iterations: Z, T, the shifted
    /// boundary word (N_load-tr, N_store-tr).
    Transfer,
    /// A constant of the modulus, M' = -M^-1 mod 2^w (not counted by the seed).
    Constant,
    /// The final carry normalisation and conditional subtraction, after the loop (not
    /// counted by the seed's tables).
    Epilogue,
}

/// One instruction of seed 002, Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instr {
    /// No operation.
    Nop,
    /// `Ri = mem[addr]`.
    Load {
        /// Destination register.
        rd: Reg,
        /// Address.
        addr: Addr,
        /// What the word is, for the counts.
        traffic: Traffic,
    },
    /// `mem[addr] = Ri`.
    Store {
        /// Source register.
        rs: Reg,
        /// Address.
        addr: Addr,
        /// What the word is, for the counts.
        traffic: Traffic,
    },
    /// `{R(i+1), Ri} = Rj * Rk`: the low word in `rd`, the high word in `rd + 1`.
    Mul {
        /// Destination of the low word (the high word goes to `rd + 1`).
        rd: Reg,
        /// First factor.
        rj: Reg,
        /// Second factor.
        rk: Reg,
    },
    /// `{Ca, Ri} = Rj + Rk`.
    Add {
        /// Destination.
        rd: Reg,
        /// First addend.
        rj: Reg,
        /// Second addend.
        rk: Reg,
    },
    /// `{Ca, Ri} = Rj + Rk + Ca`.
    Adc {
        /// Destination.
        rd: Reg,
        /// First addend.
        rj: Reg,
        /// Second addend.
        rk: Reg,
    },
    /// `Ri = Rj - Rk` (mod 2^w; the carry flag is left alone).
    Sub {
        /// Destination.
        rd: Reg,
        /// Minuend.
        rj: Reg,
        /// Subtrahend.
        rk: Reg,
    },
}

impl Instr {
    /// Registers the instruction reads.
    pub fn sources(&self) -> Vec<Reg> {
        match *self {
            Instr::Nop | Instr::Load { .. } => Vec::new(),
            Instr::Store { rs, .. } => vec![rs],
            Instr::Mul { rj, rk, .. }
            | Instr::Add { rj, rk, .. }
            | Instr::Adc { rj, rk, .. }
            | Instr::Sub { rj, rk, .. } => vec![rj, rk],
        }
    }

    /// Registers the instruction writes.
    pub fn destinations(&self) -> Vec<Reg> {
        match *self {
            Instr::Nop | Instr::Store { .. } => Vec::new(),
            Instr::Load { rd, .. }
            | Instr::Add { rd, .. }
            | Instr::Adc { rd, .. }
            | Instr::Sub { rd, .. } => vec![rd],
            Instr::Mul { rd, .. } => vec![rd, rd + 1],
        }
    }

    /// The memory access, if the instruction makes one: (address, is a store, traffic).
    pub fn memory(&self) -> Option<(Addr, bool, Traffic)> {
        match *self {
            Instr::Load { addr, traffic, .. } => Some((addr, false, traffic)),
            Instr::Store { addr, traffic, .. } => Some((addr, true, traffic)),
            _ => None,
        }
    }
}
