//! Method-II on threads and the rayon batches against the num-bigint oracle.

use montmul::lab;
use montmul::parallel::{mont_mul_split, mul_batch, pow_batch, pow_pair, threads_used};
use montmul::{Limb, Modulus, Reduction, Residue};
use montmul_testkit::num_bigint::BigUint;
use montmul_testkit::{self as kit, TestRng};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn check(n: &BigUint, a: &BigUint, b: &BigUint, pool: Option<&rayon::ThreadPool>, lazy: bool) {
    let threads = pool.map_or(1, |p| p.current_num_threads());
    // R = 2^(64 s) > 4n for lazy reduction, as `Reduction::Lazy` chooses it.
    let s = (n.bits() as u32 + if lazy { 2 } else { 0 }).div_ceil(64) as usize;
    let nl = kit::to_limbs::<u64>(n, s);
    let n0 = u64::inv_mod_word(nl[0]).wrapping_neg();
    let mut out = vec![0u64; s];
    mont_mul_split(
        &nl,
        n0,
        &kit::to_limbs(a, s),
        &kit::to_limbs(b, s),
        &mut out,
        pool,
        lazy,
    );
    let got = kit::from_limbs(&out);
    let want = kit::mont_mul(a, b, n, 64 * s as u32);
    let bound = if lazy { n << 1u32 } else { n.clone() };
    assert!(
        got < bound,
        "{} threads, {} bits: {got:x} out of range",
        threads,
        n.bits()
    );
    assert_eq!(got % n, want, "{threads} threads, {} bits", n.bits());
}

#[test]
fn method_two_matches_the_oracle_for_every_thread_count() {
    let mut rng = TestRng::new(99);
    let pools: Vec<rayon::ThreadPool> = [1, 2, 3, 5].into_iter().map(pool).collect();
    for bits in [2u32, 63, 64, 65, 127, 200, 1024, 3000] {
        for n in [kit::random_modulus(&mut rng, bits)]
            .into_iter()
            .chain(kit::edge_moduli(bits, 64))
        {
            for p in [None].into_iter().chain(pools.iter().map(Some)) {
                for lazy in [false, true] {
                    let top = if lazy { &n << 1u32 } else { n.clone() };
                    let a = kit::random_below(&mut rng, &top);
                    let b = kit::random_below(&mut rng, &top);
                    check(&n, &a, &b, p, lazy);
                    let edge = &top - 1u32;
                    check(&n, &edge, &edge, p, lazy);
                    check(&n, &BigUint::from(0u32), &edge, p, lazy);
                }
            }
        }
    }
}

#[test]
fn beyond_the_modulus_limit() {
    // Raw limbs are not bound by MAX_BITS: 65536 bits, as the seed's scaling question needs.
    let mut rng = TestRng::new(5);
    let n = kit::random_modulus(&mut rng, 65536);
    let a = kit::random_below(&mut rng, &n);
    let b = kit::random_below(&mut rng, &n);
    check(&n, &a, &b, Some(&pool(2)), false);
    assert_eq!(threads_used(1024, 2), 2);
    assert_eq!(threads_used(3, 8), 1);
}

#[test]
fn batches_match_one_by_one() {
    let mut rng = TestRng::new(11);
    let n = kit::random_modulus(&mut rng, 512);
    let m = Modulus::<u64>::with_kernel(
        &kit::to_limbs(&n, 8),
        lab::default::<u64>(),
        Reduction::Full,
    )
    .unwrap();
    let xs: Vec<BigUint> = (0..9).map(|_| kit::random_below(&mut rng, &n)).collect();
    let rs: Vec<Residue<u64>> = xs
        .iter()
        .map(|x| Residue::new(&m, &kit::to_limbs(x, 8)).unwrap())
        .collect();
    let prods = mul_batch(
        &rs,
        &rs[1..].iter().chain(&rs[..1]).cloned().collect::<Vec<_>>(),
    );
    for (i, p) in prods.iter().enumerate() {
        let want = (&xs[i] * &xs[(i + 1) % xs.len()]) % &n;
        assert_eq!(kit::from_limbs(&p.to_limbs()), want);
    }
    let e = [0x01, 0x00, 0x01];
    for (x, p) in xs.iter().zip(pow_batch(&rs, &e)) {
        assert_eq!(
            kit::from_limbs(&p.to_limbs()),
            x.modpow(&BigUint::from(65537u32), &n)
        );
    }
}

/// Runs `f` on its own thread and fails the test if it has not finished after a minute
/// (a hang becomes a failure, not a test run that never ends).
fn within_a_minute(what: &str, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        f();
        let _ = tx.send(());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(60)) {
        Ok(()) => {}
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: hung"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// One 4096-bit operand set and its Montgomery product from the oracle.
struct Case {
    n: Vec<u64>,
    n0: u64,
    a: Vec<u64>,
    b: Vec<u64>,
    want: Vec<u64>,
}

impl Case {
    fn new(seed: u64) -> Self {
        let mut rng = TestRng::new(seed);
        let n = kit::random_modulus(&mut rng, 4096);
        let a = kit::random_below(&mut rng, &n);
        let b = kit::random_below(&mut rng, &n);
        let nl = kit::to_limbs::<u64>(&n, 64);
        Case {
            n0: u64::inv_mod_word(nl[0]).wrapping_neg(),
            n: nl,
            a: kit::to_limbs(&a, 64),
            b: kit::to_limbs(&b, 64),
            want: kit::to_limbs(&kit::mont_mul(&a, &b, &n, 4096), 64),
        }
    }

    fn check_on(&self, pool: &rayon::ThreadPool) {
        let mut out = vec![0u64; 64];
        mont_mul_split(
            &self.n,
            self.n0,
            &self.a,
            &self.b,
            &mut out,
            Some(pool),
            false,
        );
        assert_eq!(out, self.want);
    }
}

#[test]
fn two_callers_on_one_pool_do_not_hang() {
    // Each caller's first task occupies one of the two pool threads and waited, before
    // the fix, at the barrier for a partner that the other caller held.
    within_a_minute("two threads splitting on one 2-thread pool", || {
        let pool = std::sync::Arc::new(pool(2));
        let case = std::sync::Arc::new(Case::new(17));
        // The callers start each product together, so that both reach the pool at once.
        let start = std::sync::Arc::new(std::sync::Barrier::new(2));
        let callers: Vec<_> = (0..2)
            .map(|_| {
                let (pool, case, start) = (pool.clone(), case.clone(), start.clone());
                std::thread::spawn(move || {
                    for _ in 0..2000 {
                        start.wait();
                        case.check_on(&pool);
                    }
                })
            })
            .collect();
        for c in callers {
            c.join().unwrap();
        }
    });
}

#[test]
fn a_split_inside_the_pools_own_par_iter_does_not_hang() {
    use rayon::prelude::*;
    within_a_minute("splitting from inside par_iter on the same pool", || {
        let pool = pool(2);
        let case = Case::new(23);
        pool.install(|| {
            (0..64).into_par_iter().for_each(|_| case.check_on(&pool));
        });
    });
}

#[test]
fn pow_pair_matches_the_oracle() {
    let mut rng = TestRng::new(31);
    for bits in [64u32, 256, 1024, 1536, 2048] {
        let s = bits.div_ceil(64) as usize;
        let (n1, n2) = (
            kit::random_modulus(&mut rng, bits),
            kit::random_modulus(&mut rng, bits - 3),
        );
        let m1 = Modulus::<u64>::from_be_bytes(&n1.to_bytes_be()).unwrap();
        let m2 = Modulus::<u64>::from_be_bytes(&n2.to_bytes_be()).unwrap();
        let (x1, x2) = (
            kit::random_below(&mut rng, &n1),
            kit::random_below(&mut rng, &n2),
        );
        let (e1, e2) = (
            kit::random_below(&mut rng, &n1),
            kit::random_below(&mut rng, &n2),
        );
        let a = Residue::new(&m1, &kit::to_limbs(&x1, s)).unwrap();
        let b = Residue::new(&m2, &kit::to_limbs(&x2, s)).unwrap();
        let (p1, p2) = pow_pair(&a, &e1.to_bytes_be(), &b, &e2.to_bytes_be());
        assert_eq!(
            kit::from_limbs(&p1.to_limbs()),
            x1.modpow(&e1, &n1),
            "{bits} bits, a"
        );
        assert_eq!(
            kit::from_limbs(&p2.to_limbs()),
            x2.modpow(&e2, &n2),
            "{bits} bits, b"
        );
    }
}

#[test]
fn pow_pair_from_many_threads_at_once_is_right_and_does_not_hang() {
    // One helper for the process: most callers find it busy and run both halves
    // themselves; nobody waits for it.
    within_a_minute("pow_pair from 6 threads", || {
        let mut rng = TestRng::new(37);
        let n = kit::random_modulus(&mut rng, 1024);
        let m = Modulus::<u64>::from_be_bytes(&n.to_bytes_be()).unwrap();
        let x = kit::random_below(&mut rng, &n);
        let e = kit::random_below(&mut rng, &n);
        let want = x.modpow(&e, &n);
        let a = Residue::new(&m, &kit::to_limbs(&x, 16)).unwrap();
        let e = e.to_bytes_be();
        std::thread::scope(|s| {
            for _ in 0..6 {
                s.spawn(|| {
                    for _ in 0..20 {
                        let (p, q) = pow_pair(&a, &e, &a, &e);
                        assert_eq!(kit::from_limbs(&p.to_limbs()), want);
                        assert_eq!(p, q);
                    }
                });
            }
        });
    });
}
