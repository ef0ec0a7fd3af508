//! Method-I in column form: Alg. 1 word by word, with two carry words per iteration.

use super::code::Code;
use super::registers::{Regs, EOUT, JUNK, ONES, SEL};
use super::setup::Setup;
use crate::multicore::code::{Operands, Program};
use crate::multicore::config::Config;
use crate::multicore::emit::Emit;
use crate::multicore::isa::{Addr, Reg, Traffic};
use crate::multicore::registers::{MP, T, Y, ZERO};
use crate::SimError;

/// Method-I in column form (seed 002, Alg. 1 word by word, as sec. 4 describes core-1
/// making "Z_0 to Z_15 one by one"): iteration i runs on core i mod p, word j by word j,
/// with two carry words, C1 for X Y_i and C2 for M T (each word's sum is below r^2,
/// so a carry word never overflows):
///
/// ```text
/// word 0:  t = P_0 + Z_0; C1 = PH_0 + Ca; T = t M'; C2 = QH_0 + carry(t + QL_0)
/// word j:  u = QL_j + C2; C2' = QH_j + Ca; t = PL_j + C1; C1' = PH_j + Ca;
///          t = t + Z_j; C1 = C1' + Ca; u = u + t; C2 = C2' + Ca; store u (Z'_(j-1))
/// top:     Z'_(s-1) = C1 + C2 (+ Z_s), and Z'_s its carry
/// ```
///
/// 8 additions, 2 `Mul`s, 2 loads (M_j, Z_j) and a store per word, ordered so that the
/// next word's loads and products fill the slots between the dependent additions. The
/// first iteration (Z = 0) and the shared final subtraction are as in
/// [`generate`](super::generate); X is loaded word by word in the first iteration and
/// up front in each core's first iteration otherwise. Z's extra bit (n = w s) goes to
/// the next core through memory with the words, in every iteration: a core cannot keep
/// it as in [`generate`](super::generate), since here Z and X Y_i share the carry word
/// C1, and a bit added to a high half could make C1 reach 2^w.
pub fn generate_columns(config: &Config, ops: &Operands<'_>) -> Result<Program, SimError> {
    let (set, memory, mut c) = Setup::new(config, ops)?;
    let (s, p, res) = (set.s, set.p, set.res);
    let regs = &set.regs;
    // Carry words: C1 and C2 out of each word, and their first halves.
    let k1 = regs.total as Reg;
    let k1n = k1 + s as Reg;
    let k2 = k1n + s as Reg;
    let k2n = k2 + s as Reg;
    let total = regs.total + 4 * s;
    let (result, sel_at) = (set.result, set.sel_at);
    let (split, parts, own_from) = (set.split, set.parts, set.own_from);
    let top_bit = ops.top_bit;
    let pl = |j: usize| Regs::low(regs.p, j);
    let ph = |j: usize| Regs::high(regs.p, j);
    let ql = |j: usize| Regs::low(regs.q, j);
    let qh = |j: usize| Regs::high(regs.q, j);
    let tr = |j: usize| regs.u + j as Reg;
    // u(j) is Z'_(j-1); u(s) is Z'_(s-1).
    let ur = |j: usize| regs.w + j as Reg;
    let zr = |j: usize| regs.z + j as Reg;
    for i in 0..s {
        let core = set.begin(&mut c, i);
        let fresh = i == 0;
        let last = i + 1 == s;
        let c1 = |j: usize| {
            if fresh && j == 0 {
                ph(0)
            } else {
                k1 + j as Reg
            }
        };
        let load_x = !res.x || i < p;
        let load_m = !res.m;
        // X is loaded word by word in the first iteration, which waits for nothing,
        // and up front (while the core waits for the previous iteration) elsewhere.
        let x_ahead = load_x && !fresh;
        if x_ahead {
            for j in 0..s {
                c.load(core, set.x_reg(j), set.x_at + j as Addr, Traffic::Operand);
            }
        }
        let lx = |c: &mut Code, j: usize| {
            if load_x && !x_ahead && j < s {
                c.load(core, set.x_reg(j), set.x_at + j as Addr, Traffic::Operand);
            }
        };
        let lm = |c: &mut Code, j: usize| {
            if load_m && j < s {
                c.load(core, set.m_reg(j), set.m_at + j as Addr, Traffic::Operand);
            }
        };
        let lz = |c: &mut Code, j: usize| {
            if !fresh {
                c.load(core, zr(j), set.z_at(i - 1, j), Traffic::Transfer);
            }
        };
        let mul_p = |c: &mut Code, j: usize| {
            if j < s {
                c.mul(core, pl(j), set.x_reg(j), Y);
            }
        };
        let mul_q = |c: &mut Code, j: usize| {
            if j < s {
                c.mul(core, ql(j), set.m_reg(j), T);
            }
        };
        // Z'_(j-1) = u(j): sent on, or (last iteration) kept or sent for the final
        // subtraction.
        let send = |c: &mut Code, j: usize| {
            if !last {
                c.store(core, ur(j), set.z_at(i, j - 1), Traffic::Transfer);
            } else if j - 1 < own_from {
                c.in_loop = false;
                c.store(core, ur(j), set.z_at(i, j - 1), Traffic::Epilogue);
                c.in_loop = true;
            }
        };
        // Word 0 and T.
        lx(&mut c, 0);
        lx(&mut c, 1);
        lm(&mut c, 0);
        mul_p(&mut c, 0);
        lz(&mut c, 0);
        lm(&mut c, 1);
        let t0 = if fresh {
            pl(0)
        } else {
            c.add(core, tr(0), pl(0), zr(0));
            c.adc(core, c1(0), ph(0), ZERO);
            tr(0)
        };
        mul_p(&mut c, 1);
        c.mul(core, T, t0, MP);
        lx(&mut c, 2);
        lm(&mut c, 2);
        mul_q(&mut c, 0);
        mul_q(&mut c, 1);
        lx(&mut c, 3);
        c.add(core, JUNK, ql(0), t0);
        c.adc(core, k2, qh(0), ZERO);
        for j in 1..s {
            c.add(core, ur(j), ql(j), k2 + (j - 1) as Reg);
            c.adc(core, k2n + j as Reg, qh(j), ZERO);
            c.add(core, tr(j), pl(j), c1(j - 1));
            if fresh {
                c.adc(core, c1(j), ph(j), ZERO);
            } else {
                lz(&mut c, j);
                c.adc(core, k1n + j as Reg, ph(j), ZERO);
                c.add(core, tr(j), tr(j), zr(j));
                c.adc(core, c1(j), k1n + j as Reg, ZERO);
            }
            c.add(core, ur(j), ur(j), tr(j));
            c.adc(core, k2 + j as Reg, k2n + j as Reg, ZERO);
            send(&mut c, j);
            mul_q(&mut c, j + 1);
            mul_p(&mut c, j + 1);
            lm(&mut c, j + 2);
            lx(&mut c, j + 3);
        }
        // The top: Z'_(s-1) = C1 + C2 (+ Z_s when it travels), Z'_s its carry.
        let c2_top = k2 + (s - 1) as Reg;
        let travels = !fresh && top_bit;
        let e_dst = EOUT;
        if travels {
            c.load(core, zr(s), set.e_at(i - 1), Traffic::Transfer);
            c.add(core, ur(s), c1(s - 1), zr(s));
            c.adc(core, e_dst, ZERO, ZERO);
            c.add(core, ur(s), ur(s), c2_top);
            c.adc(core, e_dst, e_dst, ZERO);
        } else {
            c.add(core, ur(s), c1(s - 1), c2_top);
            if top_bit {
                c.adc(core, e_dst, ZERO, ZERO);
            }
        }
        send(&mut c, s);
        if top_bit && !last {
            c.store(core, EOUT, set.e_at(i), Traffic::Transfer);
        }
        if i + p < s {
            c.load(core, Y, set.y_at + (i + p) as Addr, Traffic::Operand);
        }
        if last {
            // The last core's part of the final subtraction: its words of 2^(w s) - M,
            // the carry chain of Z + (2^(w(s+1)) - M) from the part below, the selector.
            c.in_loop = false;
            c.age = s as u32;
            c.mul(core, ONES, set.m_reg(0), MP);
            for j in own_from..s {
                c.emit(core, set.neg_m_word(j));
            }
            if own_from > 0 {
                set.carry_in(&mut c, core, parts - 1);
            }
            for j in own_from..s {
                c.chain(
                    core,
                    j == 0,
                    regs.d + j as Reg,
                    ur(j + 1),
                    regs.n + j as Reg,
                );
            }
            let e = if top_bit { EOUT } else { ZERO };
            c.adc(core, JUNK, e, ONES);
            c.adc(core, SEL, ZERO, ZERO);
            if split {
                c.store(core, SEL, sel_at, Traffic::Epilogue);
            }
            let z = |j: usize| ur(j + 1);
            set.own_result(&mut c, core, &z);
        }
    }
    set.other_parts(&mut c);
    Ok(Program {
        cores: c.code,
        memory,
        result_regs: c.result_regs,
        result,
        registers: total,
        in_loop: c.marks,
        urgency: c.ages,
    })
}
