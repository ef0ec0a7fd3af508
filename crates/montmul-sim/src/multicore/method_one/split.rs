//! Method-I's last iteration split over the cores that have finished their iterations,
//! as method-II splits every iteration (seed 002, sec. 4), with the final subtraction
//! on the same parts.
//!
//! Unsplit, the last iteration's core bounds the end: the other cores have finished and
//! it still has its whole iteration to run after the words of the one before arrive.
//! Here the iteration's positions are cut where its carry blocks would be cut (the
//! previous iteration sends its words block by block), and each part goes to a free
//! core: the lowest to the last iteration's own core (its previous iteration,
//! s - 1 - p, ended first), the others to the cores of iterations s - p, s - p + 1, ...
//! The core of iteration s - 2, which makes the words, takes no part. With more blocks
//! than free cores (p - 1) the lowest blocks are merged.
//!
//! Part k, on the positions [lo, hi) (K = hi - lo), makes the products X_j Y_(s-1) and
//! M_j T for j in [lo, hi), so that its sum reaches position hi at most:
//!
//! ```text
//! part 0:   U = Z + P, T = U_0 M', Q = M T, W = U + Q on [0, hi]; T to the others
//! middle:   V = P + Q on [lo, hi] (before Z arrives), V + B, then W = Z + V + B
//! top:      V = P + Q on [lo, s], W = Z + V (Z comes last from the previous
//!           iteration), then W + B
//! ```
//!
//! B is the boundary from the part below, its sum's bits from position lo on: a word
//! and a bit of weight r^(lo+1). A part's sum is below 2 r^(K+1) (below the top part:
//! Z < r^K, P and Q at most (r^K - 1)(r - 1) each, B at most 2r - 2; the top part's
//! sum is that of the whole iteration from position lo on, and Z + P + Q < 2 M r), so
//! the carries out of its top position, one per chain, add up to one bit. The top
//! part's top position is s, and that bit is Z's extra bit.
//!
//! The final subtraction runs on the same parts: each makes the carry of
//! Z + (2^(w s) - M) on its result words from the carry of the part below; the top
//! part's carry out of Z + (2^(w(s+1)) - M) is the selector (1 exactly when Z >= M);
//! then each part selects its words ([`super::subtraction::differences`],
//! [`super::subtraction::select`]), and stores them with write-back.
//!
//! The moves the split adds (Y_(s-1) to the other parts' cores, T, the boundaries, the
//! kept bit of Z) count with the final subtraction's, so that the loop's loads and
//! stores stay those of seed 002, Tables 2 and 3.

use super::super::isa::{Addr, Instr, Reg, Traffic};
use super::code::Code;
use super::registers::{Regs, CARRY, CHAIN_D, CTOP, EKEEP, EOUT, JUNK, ONES, SEL};
use super::setup::Setup;
use super::subtraction::{differences, select};
use crate::multicore::emit::Emit;
use crate::multicore::registers::{MP, T, Y, ZERO};

/// The boundary word and bit from the part below.
const BW: Reg = CARRY[0];
const BE: Reg = CARRY[1];

/// One part of the split iteration: its core and its positions [lo, hi).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Part {
    pub core: usize,
    pub lo: usize,
    pub hi: usize,
}

/// The parts of the last iteration (i = s - 1) of method-I with carry blocks of
/// `block` positions on p cores, or `None` when it stays on one core: fewer than 3
/// cores (the one other core still makes the words the iteration reads), s < 2p, or no
/// cut at a position from 2 to s - 1.
pub(super) fn plan(s: usize, p: usize, block: usize) -> Option<Vec<Part>> {
    if p < 3 || s < 2 * p {
        return None;
    }
    let i = s - 1;
    // The cuts of the iteration's blocks (`method_one::generate`), the highest p - 2.
    let mut cuts: Vec<usize> = (2..s).filter(|&t| (t + i).is_multiple_of(block)).collect();
    if cuts.is_empty() {
        return None;
    }
    let merged = cuts.len().saturating_sub(p - 2);
    cuts.drain(..merged);
    let bounds: Vec<usize> = std::iter::once(0).chain(cuts).chain([s]).collect();
    let core_of = |k: usize| if k == 0 { i % p } else { (s - p + k - 1) % p };
    Some(
        bounds
            .windows(2)
            .enumerate()
            .map(|(k, w)| Part {
                core: core_of(k),
                lo: w[0],
                hi: w[1],
            })
            .collect(),
    )
}

/// Words of data memory [`emit`] needs at `tail_at` for p cores.
pub(super) fn tail_words(p: usize) -> usize {
    2 + 2 * p
}

/// Emits the split last iteration and the final subtraction; `tail_at`: the
/// [`tail_words`] words for T, the kept bit and the boundaries.
pub(super) fn emit(set: &Setup, c: &mut Code, parts: &[Part], top_bit: bool, tail_at: Addr) {
    let (s, p) = (set.s, set.p);
    let i = s - 1;
    let own = i % p;
    let (t_at, e_at) = (tail_at, tail_at + 1);
    let bound_at = |k: usize| tail_at + 2 + 2 * k as Addr;
    // Z's bit kept by the last iteration's core from iteration s - 1 - p, of weight
    // r^(s-p+1), goes to H_(s-p) (see `generate`), in the part that makes that product.
    let kept = top_bit && s > p;
    let e_owner = parts.iter().position(|q| (q.lo..q.hi).contains(&(s - p)));
    let count = parts.len();
    c.age = i as u32;
    if let (true, Some(q)) = (kept, e_owner) {
        if parts[q].core != own {
            c.in_loop = false;
            c.store(own, EKEEP, e_at, Traffic::Epilogue);
        }
    }
    for (k, &part) in parts.iter().enumerate() {
        let core = part.core;
        let top = k + 1 == count;
        let owns_e = kept && e_owner == Some(k);
        c.age = i as u32;
        c.in_loop = false;
        if core != own {
            c.load(core, Y, set.y_at + i as Addr, Traffic::Epilogue);
            if owns_e {
                c.load(core, EKEEP, e_at, Traffic::Epilogue);
            }
        }
        c.in_loop = true;
        rows_before_z(set, c, part, top, owns_e);
        if k == 0 {
            first_part(set, c, part, t_at);
        } else {
            upper_part(set, c, part, top, top_bit, t_at, bound_at(k - 1));
        }
        c.in_loop = false;
        if !top {
            c.store(
                core,
                set.regs.w + part.hi as Reg,
                bound_at(k),
                Traffic::Epilogue,
            );
            c.store(core, EOUT, bound_at(k) + 1, Traffic::Epilogue);
        }
        c.age = s as u32;
        compare(set, c, k, part, top, top_bit);
    }
    for (k, &part) in parts.iter().enumerate() {
        let top = k + 1 == count;
        if !top {
            c.load(part.core, SEL, set.sel_at, Traffic::Epilogue);
        }
        let z = |j: usize| set.regs.w + (j + 1) as Reg;
        select(
            c,
            &set.regs,
            set.result,
            part.core,
            result_words(part, top),
            &z,
        );
    }
}

/// The result words [ra, rb) of a part: Z'_j = W_(j+1) for its positions j + 1 below hi
/// (to s for the top part).
fn result_words(part: Part, top: bool) -> (usize, usize) {
    let end = if top { part.hi } else { part.hi - 1 };
    (part.lo.max(1) - 1, end)
}

/// Word t (lo < t <= hi) of a part's row at `base`: L_t + H_(t-1) + Ca below hi, and
/// H_(hi-1) + Ca at hi (a high half is at most 2^w - 2, with the kept bit 2^w - 1;
/// the row is then still below r^(K+1)).
fn row_word(regs: &Regs, base: Reg, part: Part, t: usize) -> Instr {
    regs.row_op_to(base, t, part.hi, t == part.lo + 1)
}

/// What needs no Z: the part's loads of M, its row P (X loaded two ahead when it does
/// not stay), and its words of 2^(w s) - M.
fn rows_before_z(set: &Setup, c: &mut Code, part: Part, top: bool, owns_e: bool) {
    let (core, regs) = (part.core, &set.regs);
    let pb = regs.p;
    let x_load = |c: &mut Code, j: usize| {
        if !set.res.x && j < part.hi {
            c.load(core, set.x_reg(j), set.x_at + j as Addr, Traffic::Operand);
        }
    };
    // The loads of M before the row P: the port is less busy as the core's last
    // iteration ends than later (docs/ARCHITECTURES.md, Fig. 6).
    if !set.res.m {
        for j in part.lo..part.hi {
            c.load(core, set.m_reg(j), set.m_at + j as Addr, Traffic::Operand);
        }
    }
    x_load(c, part.lo);
    x_load(c, part.lo + 1);
    for j in part.lo..part.hi {
        c.mul(core, Regs::low(pb, j), set.x_reg(j), Y);
        x_load(c, j + 2);
    }
    if owns_e {
        let h = Regs::high(pb, set.s - set.p);
        c.add(core, h, h, EKEEP);
    }
    for t in part.lo + 1..=part.hi {
        c.emit(core, row_word(regs, pb, part, t));
    }
    // The words of 2^(w s) - M for the final subtraction (M_j of the other parts is in
    // the core's registers from its earlier iterations).
    let (ra, rb) = result_words(part, top);
    c.in_loop = false;
    c.mul(core, ONES, set.m_reg(0), MP);
    for j in ra..rb {
        c.emit(core, set.neg_m_word(j));
    }
    c.in_loop = true;
}

/// The row Q = M T on the part's products, its `Mul`s one step ahead of its chain.
fn row_q(set: &Setup, c: &mut Code, part: Part) {
    let (core, qb) = (part.core, set.regs.q);
    let mul = |c: &mut Code, j: usize| {
        if j < part.hi {
            c.mul(core, Regs::low(qb, j), set.m_reg(j), T);
        }
    };
    mul(c, part.lo);
    mul(c, part.lo + 1);
    for t in part.lo + 1..=part.hi {
        mul(c, t + 1);
        c.emit(core, row_word(&set.regs, qb, part, t));
    }
}

/// Loads word t of the previous iteration's Z (t = s: its extra bit) when t < `end`.
fn load_z(set: &Setup, c: &mut Code, core: usize, t: usize, end: usize) {
    let s = set.s;
    if t >= end {
        return;
    }
    let at = if t < s {
        set.z_at(s - 2, t)
    } else {
        set.e_at(s - 2)
    };
    c.load(core, set.regs.z + t as Reg, at, Traffic::Transfer);
}

/// Part 0: U = Z + P, T = U_0 M' (stored for the other parts), Q = M T, W = U + Q on
/// [0, hi]; its carry out of hi in EOUT.
fn first_part(set: &Setup, c: &mut Code, part: Part, t_at: Addr) {
    let (core, regs) = (part.core, &set.regs);
    let hi = part.hi;
    let (pw, qw) = (|t| regs.row_word(regs.p, t), |t| regs.row_word(regs.q, t));
    let u = |t: usize| regs.u + t as Reg;
    let store_t = |c: &mut Code| {
        c.in_loop = false;
        c.store(core, T, t_at, Traffic::Epilogue);
        c.in_loop = true;
    };
    load_z(set, c, core, 0, hi);
    load_z(set, c, core, 1, hi);
    for t in 0..hi {
        c.chain(core, t == 0, u(t), regs.z + t as Reg, pw(t));
        if t == 1 || hi == 1 {
            c.mul(core, T, u(0), MP);
        }
        // T is ready two instructions after its Mul.
        if t == 3 {
            store_t(c);
        }
        load_z(set, c, core, t + 2, hi);
    }
    // Z + P < r^(hi+1): no carry out.
    c.adc(core, u(hi), pw(hi), ZERO);
    if hi <= 3 {
        store_t(c);
    }
    row_q(set, c, part);
    for t in 0..=hi {
        let rd = if t == 0 { JUNK } else { regs.w + t as Reg };
        c.chain(core, t == 0, rd, u(t), qw(t));
    }
    c.adc(core, EOUT, ZERO, ZERO);
}

/// Part k >= 1: V = P + Q while the words of Z are on their way, then Z and the
/// boundary from the part below: the boundary first in a middle part (it comes from
/// words that arrived a block earlier; the words of Z are loaded meanwhile), last in
/// the top part. Its carry out of hi in EOUT.
fn upper_part(
    set: &Setup,
    c: &mut Code,
    part: Part,
    top: bool,
    top_bit: bool,
    t_at: Addr,
    below: Addr,
) {
    let (core, regs) = (part.core, &set.regs);
    let (lo, hi) = (part.lo, part.hi);
    let (pw, qw) = (|t| regs.row_word(regs.p, t), |t| regs.row_word(regs.q, t));
    let v = |t: usize| regs.u + t as Reg;
    let w = |t: usize| regs.w + t as Reg;
    c.in_loop = false;
    c.load(core, T, t_at, Traffic::Epilogue);
    c.in_loop = true;
    row_q(set, c, part);
    let z_end = if top && top_bit { hi + 1 } else { hi };
    let z = |t: usize| if t < z_end { regs.z + t as Reg } else { ZERO };
    // Below the top part, the words of Z are loaded one per addition of the boundary's
    // chain, before their own.
    let next_z = std::cell::Cell::new(if top { z_end } else { lo });
    let early_z = |c: &mut Code| {
        if next_z.get() < z_end {
            load_z(set, c, core, next_z.get(), z_end);
            next_z.set(next_z.get() + 1);
        }
    };
    for t in lo..=hi {
        c.chain(core, t == lo, v(t), pw(t), qw(t));
    }
    c.adc(core, CTOP, ZERO, ZERO);
    // + B on [lo, hi] from `src` into W.
    let add_boundary = |c: &mut Code, src: &dyn Fn(usize) -> Reg, carry: Reg| {
        c.in_loop = false;
        c.load(core, BW, below, Traffic::Epilogue);
        c.load(core, BE, below + 1, Traffic::Epilogue);
        c.in_loop = true;
        for t in lo..=hi {
            let rk = match t - lo {
                0 => BW,
                1 => BE,
                _ => ZERO,
            };
            c.chain(core, t == lo, w(t), src(t), rk);
            early_z(c);
        }
        c.adc(core, carry, CTOP, ZERO);
    };
    if top {
        // W = Z + V, each word of Z loaded two ahead of its addition.
        load_z(set, c, core, lo, z_end);
        load_z(set, c, core, lo + 1, z_end);
        for t in lo..=hi {
            c.chain(core, t == lo, w(t), z(t), v(t));
            load_z(set, c, core, t + 2, z_end);
        }
        c.adc(core, CTOP, CTOP, ZERO);
        add_boundary(c, &w, EOUT);
    } else {
        add_boundary(c, &v, CTOP);
        for t in lo..=hi {
            c.chain(core, t == lo, w(t), z(t), w(t));
        }
        c.adc(core, EOUT, CTOP, ZERO);
    }
}

/// The part's carry of Z + (2^(w s) - M) on its result words, from the part below and
/// to the part above (the top part: the selector, to every part), and its differences
/// D_j - Z_j for the selection.
fn compare(set: &Setup, c: &mut Code, k: usize, part: Part, top: bool, top_bit: bool) {
    let (core, regs) = (part.core, &set.regs);
    let (ra, rb) = result_words(part, top);
    if k > 0 {
        set.carry_in(c, core, k);
    }
    for j in ra..rb {
        let rd = regs.d + j as Reg;
        c.chain(
            core,
            k == 0 && j == ra,
            rd,
            regs.w + (j + 1) as Reg,
            regs.n + j as Reg,
        );
    }
    if top {
        let e = if top_bit { EOUT } else { ZERO };
        // Z_s + (2^w - 1): the top word of 2^(w(s+1)) - M.
        c.adc(core, JUNK, e, ONES);
        c.adc(core, SEL, ZERO, ZERO);
        c.store(core, SEL, set.sel_at, Traffic::Epilogue);
    } else {
        c.adc(core, CARRY[CHAIN_D], ZERO, ZERO);
        c.store(core, CARRY[CHAIN_D], set.carry_at(k + 1), Traffic::Epilogue);
    }
    let z = |j: usize| regs.w + (j + 1) as Reg;
    differences(c, regs, core, (ra, rb), &z);
}
