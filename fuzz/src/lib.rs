//! What the fuzz targets share: the fuzzer's bytes read as a sequence of choices, the
//! dispatch on the word size, numbers between montmul's limbs and the num-bigint oracle
//! of `montmul-testkit`, and the per-kernel size caps that keep one run short.
//!
//! Every target asserts agreement with the oracle; a panic anywhere (montmul's or an
//! assertion's) is a finding.

use montmul::lab::Kernel;
use montmul::{Limb, Modulus, Reduction};
use num_bigint::BigUint;
use num_traits::One;

pub use montmul_testkit::{edge_operands, from_limbs, modulus_for, to_limbs};

/// The fuzzer's bytes, read front to back as choices; past the end every read is 0 or
/// empty, so every input is a valid sequence of choices.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// Reads `data` from its first byte.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    /// The next byte (0 past the end).
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// A length below `max + 1` from the next two bytes.
    pub fn len(&mut self, max: usize) -> usize {
        let raw = u16::from_le_bytes([self.byte(), self.byte()]) as usize;
        raw % (max + 1)
    }

    /// The next `len(max)` bytes (fewer where the input ends).
    pub fn bytes(&mut self, max: usize) -> &'a [u8] {
        let n = self.len(max).min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head
    }

    /// What is left.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }
}

/// Runs `$f::<L>($args)` for the limb type that `$code % 4` names (8, 16, 32, 64 bits).
#[macro_export]
macro_rules! for_word {
    ($code:expr, $f:ident ( $($arg:expr),* )) => {
        match $code % 4 {
            0 => $f::<u8>($($arg),*),
            1 => $f::<u16>($($arg),*),
            2 => $f::<u32>($($arg),*),
            _ => $f::<u64>($($arg),*),
        }
    };
}

/// The integer of big-endian bytes.
pub fn big(bytes: &[u8]) -> BigUint {
    BigUint::from_bytes_be(bytes)
}

/// How costly one product of the kernel is, for the size caps: the bit-serial
/// algorithms (one pass per bit), the other portable ones, and the 64-bit kernels made
/// for large sizes (where Karatsuba and the IFMA vector counts only start).
pub enum Cost {
    /// `radix2`, `mwr2mm`: one pass over the modulus per bit.
    BitSerial,
    /// The word-serial seed algorithms.
    Portable,
    /// `auto`, `karatsuba`, `mulx-*`, `gen-cios`, `cios-fixed`, `amm52-ifma`.
    Fast,
}

/// A size cap for 64-bit words, scaled to the word of `L` (a product costs about the
/// square of the limb count, so narrower words get proportionally fewer bytes), at
/// least 16 bytes.
pub fn cap<L: Limb>(bytes_at_64: usize) -> usize {
    (bytes_at_64 * L::BITS as usize / 64).max(16)
}

/// The cost class of kernel `k`.
pub fn cost<L: Limb>(k: &dyn Kernel<L>) -> Cost {
    match k.info().name {
        "radix2" | "mwr2mm" => Cost::BitSerial,
        "sos" | "cios" | "fios" | "fips" | "cihs" | "two-way" | "columns" => Cost::Portable,
        _ => Cost::Fast,
    }
}

/// Kernel number `sel` of the list of `L` (modulo its length), with one of its policies
/// (`pol`), or `None` where this CPU cannot run it or the kernel refuses this word with
/// a typed error (a guard: the lists hold only the kernels of their word; the `modulus`
/// target checks those refusals).
pub fn pick_kernel<L: Limb>(sel: u8, pol: u8) -> Option<(&'static dyn Kernel<L>, Reduction)> {
    let all = montmul::lab::all::<L>();
    let k = all[sel as usize % all.len()];
    let info = k.info();
    if !(info.available)() || !info.words.contains(&L::BITS) {
        return None;
    }
    Some((k, info.reductions[pol as usize % info.reductions.len()]))
}

/// An odd modulus above 1 from the fuzzer's bytes (the low bit set; 1 becomes 3), as
/// the kernel and exponentiation targets need one to test anything.
pub fn odd_modulus(bytes: &[u8]) -> BigUint {
    let n = big(bytes) | BigUint::one();
    if n.is_one() {
        BigUint::from(3u32)
    } else {
        n
    }
}

/// The bound residues stay below: n, or 2n under lazy reduction.
pub fn bound_of<L: Limb>(m: &Modulus<L>, n: &BigUint) -> BigUint {
    match m.reduction() {
        Reduction::Full => n.clone(),
        Reduction::Lazy => n << 1,
    }
}

/// An operand below `bound` for modulus `m`: the fuzzer's bytes reduced, the top of the
/// range, or one of the test kit's edge operands (0, 1, n-1, all-ones limbs, ...).
pub fn operand<L: Limb>(input: &mut Input, m: &Modulus<L>, n: &BigUint) -> BigUint {
    let bound = bound_of(m, n);
    match input.byte() % 4 {
        0 => {
            let edges = edge_operands(n, L::BITS, m.limbs() as u32 * L::BITS);
            edges[input.byte() as usize % edges.len()].clone()
        }
        1 => &bound - 1u32,
        _ => big(input.bytes(2 * m.byte_len() + 8)) % bound,
    }
}
