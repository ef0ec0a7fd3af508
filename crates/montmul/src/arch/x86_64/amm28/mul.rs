//! The word-serial loop of `amm28-avx2` ([`super`]): four digits of b a block, a scalar
//! corner for their four q, one pass of AVX2 multiply-adds over the accumulator.

use super::digits::{DIGIT, W};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// Words of one shifted copy of a d-digit value ([`shifted`]).
pub(super) const fn copy_len(d: usize) -> usize {
    d + 8
}

/// The stack room of one product: the accumulator (`T` >= 2 d + 8 positions) and the
/// four shifted copies of `a` (`A` >= 4 [`copy_len`] words), each vector of four
/// words one aligned 32-byte access (both lengths are multiples of 4). Left
/// uninitialised: [`amm`] writes the part it uses before reading it (zeroing the whole
/// room of the size class took a tenth of a 2048-bit product).
#[repr(C, align(32))]
pub(super) struct Work<const T: usize, const A: usize> {
    t: [MaybeUninit<u64>; T],
    a: [MaybeUninit<u64>; A],
}

impl<const T: usize, const A: usize> Work<T, A> {
    pub(super) fn new() -> Self {
        Work {
            t: [MaybeUninit::uninit(); T],
            a: [MaybeUninit::uninit(); A],
        }
    }
}

/// `x`, every word now written with `value`, as initialised words.
pub(super) fn init(x: &mut [MaybeUninit<u64>], value: u64) -> &mut [u64] {
    x.fill(MaybeUninit::new(value));
    // SAFETY: every element was just written; `MaybeUninit<u64>` has the layout of
    // `u64`.
    unsafe { &mut *(x as *mut [MaybeUninit<u64>] as *mut [u64]) }
}

/// The d digits `x` in four copies shifted by 0 to 3 digits, interleaved by vector,
/// written to the first 4 [`copy_len`] words of `out` and returned as initialised
/// words: word 16 m + 4 s + l holds digit 4 m + l - s (0 where that is below 0 or from
/// d), for m < d / 4 + 2, [`copy_len`] words a copy. `out` may be uninitialised: every
/// word returned is written here, none read. The loop reads the four shifted vectors of
/// each m from one 128-byte run with aligned loads (unaligned loads of one copy, half
/// of them across cache lines, cost a fifth more on Zen 3). Written with 32-byte
/// stores, which the loop's 32-byte loads can take straight from the store queue (a
/// load that spans several 8-byte stores waits for them to reach the cache).
///
/// Constant-time: the masks depend on m, s and d only.
///
/// # Safety
/// The CPU has AVX2 (the [`crate::arch::Avx2`] token); the lengths are checked here.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn shifted<'a>(x: &[u64], out: &'a mut [MaybeUninit<u64>]) -> &'a mut [u64] {
    let d = x.len();
    assert!(d.is_multiple_of(4) && out.len() >= 4 * copy_len(d));
    let out = &mut out[..4 * copy_len(d)];
    let lanes = _mm256_set_epi64x(3, 2, 1, 0);
    for m in 0..d / 4 + 2 {
        for s in 0..4 {
            // Digit 4 m + l - s for lanes l with 0 <= 4 m + l - s < d.
            let first = (4 * m) as i64 - s as i64;
            let at = _mm256_add_epi64(lanes, _mm256_set1_epi64x(first));
            let mask = _mm256_and_si256(
                _mm256_cmpgt_epi64(at, _mm256_set1_epi64x(-1)),
                _mm256_cmpgt_epi64(_mm256_set1_epi64x(d as i64), at),
            );
            // SAFETY: AVX2 is enabled; the masked load touches only the lanes whose
            // digit index is within x (the pointer itself may lie outside it, formed
            // with wrapping arithmetic); the store is within `out` (16 m + 4 s + 4 <=
            // 16 (d / 4 + 2) = 4 copy_len(d), its length).
            unsafe {
                let p = x.as_ptr().wrapping_offset(first as isize) as *const i64;
                let v = _mm256_maskload_epi64(p, mask);
                _mm256_storeu_si256(out.as_mut_ptr().add(16 * m + 4 * s) as *mut __m256i, v);
            }
        }
    }
    // SAFETY: the loop wrote every word of `out` (m < d / 4 + 2 and s < 4 cover words
    // 0 .. 16 (d / 4 + 2)); `MaybeUninit<u64>` has the layout of `u64`.
    unsafe { &mut *(out as *mut [MaybeUninit<u64>] as *mut [u64]) }
}

/// Blocks between two carry passes over the accumulator: a position takes at most 8
/// products (each below 2^56) a block, so 16 blocks add below 2^63 to a digit below
/// 2^28 plus one carry below 2^37.
const BLOCKS_PER_CARRY_PASS: usize = 16;

/// Digit counts from which the loop needs its carry passes: below, a position takes at
/// most 2 d <= 254 products below 2^56 and carries below 2^38 in all, below 2^64.
const CARRY_PASS_FROM: usize = 128;

/// One block's corner: positions i .. i + 3 (`u`, with everything below the block
/// already added and the carry into position i) take the products a_j b_(i+s) and
/// n_j q_(i+s) with s + j <= 3; q_(i+s) = u_s n0 mod 2^28 once position i + s has its
/// products and the carry from below. Returns the four q and the carry into position
/// i + 4. `a4` and `n4` are the four lowest digits of a and n, `bs` b_i .. b_(i+3).
#[inline(always)]
fn corner(mut u: [u64; 4], a4: &[u64], n4: &[u64], bs: &[u64], n0: u64) -> ([u64; 4], u64) {
    let mut q = [0u64; 4];
    let mut carry = 0;
    for s in 0..4 {
        u[s] += a4[0] * bs[s];
        q[s] = u[s].wrapping_mul(n0) & DIGIT;
        u[s] += n4[0] * q[s];
        for r in s + 1..4 {
            u[r] += a4[r - s] * bs[s] + n4[r - s] * q[s];
        }
        let c = u[s] >> W;
        if s < 3 {
            u[s + 1] += c;
        } else {
            carry = c;
        }
    }
    (q, carry)
}

/// `out` = the d normalised digits of (a b + Q n) / 2^(28 d), which is congruent to
/// a b 2^(-28 d) mod n, and below 2n when a b < 2^(28 d) n.
///
/// `a`, `b` and `out` hold d digits each, `n_sh` n's [`shifted`] copies; every digit
/// is below 2^28. `n0` = -n^-1 mod 2^28. `work` holds the room of d digits; it is
/// overwritten.
///
/// The pass of block k adds, to position i + 4 m + l (m >= 1, i = 4 k), the products
/// a_(4m + l - s) b_(i+s) and n_(4m + l - s) q_(i+s), s = 0..3: lane l of the vectors
/// m of the copies shifted by s. Its first vector, positions i + 4 .. i + 7, is all the
/// next block's corner needs, so that corner runs right after it, in scalar registers,
/// beside the rest of the pass: the chain of the four q does not wait for the pass.
///
/// Bounds: q_i makes position i a multiple of 2^28 once q_i n is added, and its value
/// moves up as a carry, so after the d steps positions d upward hold the quotient by
/// 2^(28 d). A position takes two products (each below 2^56) from each of at most d
/// steps, plus carries: below 2^64 without a carry pass for d < [`CARRY_PASS_FROM`],
/// and from there, with the carry pass every [`BLOCKS_PER_CARRY_PASS`] blocks, below
/// 2^63 + 2^38.
///
/// Constant-time: the loop counts and every address depend on d only.
///
/// # Safety
/// The CPU has AVX2 (the [`crate::arch::Avx2`] token); the lengths are checked here.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn amm<const T: usize, const A: usize>(
    a: &[u64],
    b: &[u64],
    n_sh: &[u64],
    n0: u64,
    work: &mut Work<T, A>,
    out: &mut [u64],
) {
    let d = a.len();
    let l = copy_len(d);
    assert!(d.is_multiple_of(4) && d > 0 && b.len() == d && out.len() == d);
    assert!(n_sh.len() >= 4 * l && A >= 4 * l && T >= 2 * d + 8);
    // SAFETY: AVX2 is enabled on this function; `shifted` checks the lengths.
    let copies = unsafe { shifted(a, &mut work.a) };
    let t = init(&mut work.t[..2 * d + 8], 0);
    let n4 = &n_sh[..4];
    let blocks = d / 4;
    let (mut q, mut carry) = corner([0; 4], &a[..4], n4, &b[..4], n0);
    for k in 0..blocks {
        let i = 4 * k;
        let mut next = ([0u64; 4], 0u64);
        // SAFETY: AVX2 is enabled on this function. Vector m reads words 16 m .. 16 m +
        // 16 of the copies, within 4 l = 16 (d / 4 + 2) for m <= d / 4, and accumulator
        // positions i + 4 m .. i + 4 m + 4, below 2 d <= T, 32-byte aligned (`Work`).
        unsafe {
            let bv: [__m256i; 4] = core::array::from_fn(|s| _mm256_set1_epi64x(b[i + s] as i64));
            let qv = q.map(|x| _mm256_set1_epi64x(x as i64));
            let (ap, np) = (copies.as_ptr(), n_sh.as_ptr());
            let tp = t.as_mut_ptr().add(i);
            let pass =
                |m: usize| pass_vector(ap.add(16 * m), np.add(16 * m), tp.add(4 * m), &bv, &qv);
            let x1 = pass(1);
            if k + 1 < blocks {
                let u = [
                    _mm256_extract_epi64::<0>(x1) as u64 + carry,
                    _mm256_extract_epi64::<1>(x1) as u64,
                    _mm256_extract_epi64::<2>(x1) as u64,
                    _mm256_extract_epi64::<3>(x1) as u64,
                ];
                next = corner(u, &a[..4], n4, &b[i + 4..i + 8], n0);
            }
            // The rest two vectors at a time.
            let mut m = 2;
            while m < blocks {
                pass_pair(ap.add(16 * m), np.add(16 * m), tp.add(4 * m), &bv, &qv);
                m += 2;
            }
            if m == blocks {
                pass(m);
            }
        }
        if k + 1 < blocks {
            if d >= CARRY_PASS_FROM && k % BLOCKS_PER_CARRY_PASS == BLOCKS_PER_CARRY_PASS - 1 {
                // Positions i + 4 .. i + 7 went to the next corner; the live ones are
                // i + 8 .. i + d + 4 (the top one takes a carry).
                carry_pass(&mut t[i + 8..i + d + 5]);
            }
            (q, carry) = next;
        }
    }
    // The quotient: positions d .. 2d, the last corner's carry into position d.
    t[d] += carry;
    carry_pass(&mut t[d..2 * d + 1]);
    debug_assert_eq!(t[2 * d], 0, "the result is below 2^(28 d)");
    out.copy_from_slice(&t[d..2 * d]);
}

/// Two vectors of a block's pass, m and m + 1, interleaved; as [`pass_vector`].
///
/// # Safety
/// As [`pass_vector`], for 32 words at `a` and `n` and 8 at `t`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pass_pair(a: *const u64, n: *const u64, t: *mut u64, b: &[__m256i; 4], q: &[__m256i; 4]) {
    // SAFETY: as in `pass_vector`.
    unsafe {
        core::arch::asm!(
            "vpmuludq {x}, {b0}, ymmword ptr [{a}]",
            "vpmuludq {u}, {b0}, ymmword ptr [{a} + 128]",
            "vpmuludq {y}, {q0}, ymmword ptr [{n}]",
            "vpmuludq {v}, {q0}, ymmword ptr [{n} + 128]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpmuludq {y}, {b1}, ymmword ptr [{a} + 32]",
            "vpmuludq {v}, {b1}, ymmword ptr [{a} + 160]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpmuludq {y}, {q1}, ymmword ptr [{n} + 32]",
            "vpmuludq {v}, {q1}, ymmword ptr [{n} + 160]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpmuludq {y}, {b2}, ymmword ptr [{a} + 64]",
            "vpmuludq {v}, {b2}, ymmword ptr [{a} + 192]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpmuludq {y}, {q2}, ymmword ptr [{n} + 64]",
            "vpmuludq {v}, {q2}, ymmword ptr [{n} + 192]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpmuludq {y}, {b3}, ymmword ptr [{a} + 96]",
            "vpmuludq {v}, {b3}, ymmword ptr [{a} + 224]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpmuludq {y}, {q3}, ymmword ptr [{n} + 96]",
            "vpmuludq {v}, {q3}, ymmword ptr [{n} + 224]",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {u}, {u}, {v}",
            "vpaddq {x}, {x}, ymmword ptr [{t}]",
            "vpaddq {u}, {u}, ymmword ptr [{t} + 32]",
            "vmovdqa ymmword ptr [{t}], {x}",
            "vmovdqa ymmword ptr [{t} + 32], {u}",
            a = in(reg) a,
            n = in(reg) n,
            t = in(reg) t,
            b0 = in(ymm_reg) b[0],
            b1 = in(ymm_reg) b[1],
            b2 = in(ymm_reg) b[2],
            b3 = in(ymm_reg) b[3],
            q0 = in(ymm_reg) q[0],
            q1 = in(ymm_reg) q[1],
            q2 = in(ymm_reg) q[2],
            q3 = in(ymm_reg) q[3],
            x = out(ymm_reg) _,
            y = out(ymm_reg) _,
            u = out(ymm_reg) _,
            v = out(ymm_reg) _,
            options(nostack, preserves_flags),
        );
    }
}

/// One vector of a block's pass: the four positions at `t` += sum over s of
/// lo32(a shifted by s) b_(i+s) + lo32(n shifted by s) q_(i+s), the shifted vectors
/// of a and n the 128-byte runs at `a` and `n` ([`shifted`]); returns the new
/// positions. Eight `vpmuludq` with their memory operands and eight `vpaddq`, in asm:
/// LLVM, which sees `_mm256_mul_epu32` as a 64-bit product of masked values, emitted
/// some of them as three multiplications and two shifts, and with the products in
/// separate asm blocks it spent an address computation on each load.
///
/// # Safety
/// The CPU has AVX2; `a` and `n` point to 16 readable words, `t` to 4 writable words
/// on a 32-byte boundary.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pass_vector(
    a: *const u64,
    n: *const u64,
    t: *mut u64,
    b: &[__m256i; 4],
    q: &[__m256i; 4],
) -> __m256i {
    let x: __m256i;
    // SAFETY: the caller guarantees AVX2, the 128 bytes at `a` and `n` and the 32
    // aligned bytes at `t`; the asm reads those and writes `t` and its outputs only.
    unsafe {
        core::arch::asm!(
            "vpmuludq {x}, {b0}, ymmword ptr [{a}]",
            "vpmuludq {y}, {q0}, ymmword ptr [{n}]",
            "vpaddq {x}, {x}, {y}",
            "vpmuludq {y}, {b1}, ymmword ptr [{a} + 32]",
            "vpmuludq {z}, {q1}, ymmword ptr [{n} + 32]",
            "vpaddq {y}, {y}, {z}",
            "vpaddq {x}, {x}, {y}",
            "vpmuludq {y}, {b2}, ymmword ptr [{a} + 64]",
            "vpmuludq {z}, {q2}, ymmword ptr [{n} + 64]",
            "vpaddq {y}, {y}, {z}",
            "vpaddq {x}, {x}, {y}",
            "vpmuludq {y}, {b3}, ymmword ptr [{a} + 96]",
            "vpmuludq {z}, {q3}, ymmword ptr [{n} + 96]",
            "vpaddq {y}, {y}, {z}",
            "vpaddq {x}, {x}, {y}",
            "vpaddq {x}, {x}, ymmword ptr [{t}]",
            "vmovdqa ymmword ptr [{t}], {x}",
            a = in(reg) a,
            n = in(reg) n,
            t = in(reg) t,
            b0 = in(ymm_reg) b[0],
            b1 = in(ymm_reg) b[1],
            b2 = in(ymm_reg) b[2],
            b3 = in(ymm_reg) b[3],
            q0 = in(ymm_reg) q[0],
            q1 = in(ymm_reg) q[1],
            q2 = in(ymm_reg) q[2],
            q3 = in(ymm_reg) q[3],
            x = out(ymm_reg) x,
            y = out(ymm_reg) _,
            z = out(ymm_reg) _,
            options(nostack, preserves_flags),
        );
    }
    x
}

/// Propagates the carries of `x[.. len - 1]` upward, each of those positions left
/// below 2^28, the last one taking the carry out.
fn carry_pass(x: &mut [u64]) {
    let (last, body) = x.split_last_mut().expect("a position");
    let mut c = 0u64;
    for p in body {
        let v = *p + c;
        *p = v & DIGIT;
        c = v >> W;
    }
    *last += c;
}
