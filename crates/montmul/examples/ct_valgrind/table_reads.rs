//! The table-read cases: the masked reads of the exponentiations' tables on their own,
//! with secret masks and a secret index.

use crate::api;
use crate::memcheck::{public, secret};
use crate::run::Run;
use montmul::Limb;
use montmul_testkit::{random_below_pow2, to_limbs};

/// The table reads alone: a table of secret entries read at a secret index, on 64-bit
/// words (AVX2 where valgrind offers it, the masks made from the index by vector
/// compares) and on limbs of every width without vector intrinsics (the index turned
/// into masks, [`api::entry_mask`]); and the masks' own read path
/// ([`api::masked_or_limbs`]) from masks made one by one.
pub fn table_reads(run: &mut Run) {
    fn read<L: Limb>(run: &mut Run, entries: usize, len: usize) -> String {
        let table: Vec<Vec<L>> = (0..entries)
            .map(|_| to_limbs(&random_below_pow2(&mut run.rng, len as u32 * L::BITS), len))
            .collect();
        for entry in &table {
            secret(entry);
        }
        // As the ladders keep it: the entries one after another (the copy keeps the
        // taint).
        let flat: Vec<L> = table.concat();
        for index in [0, entries / 2, entries - 1] {
            let cell = [index];
            secret(&cell);
            let index_secret = core::hint::black_box(&cell)[0];
            let masks: Vec<u64> = (0..entries)
                .map(|j| api::entry_mask(j, index_secret))
                .collect();
            let mut out = vec![L::ZERO; len];
            api::masked_or_limbs(&flat, &masks, &mut out);
            let mut portable = vec![L::ZERO; len];
            api::select_limbs(&flat, index_secret, &mut portable);
            public(&out);
            public(&portable);
            let want = &table[index];
            public(want);
            assert_eq!(&out, want, "masked read of entry {index}");
            assert_eq!(&portable, want, "portable read of entry {index}");
            if L::BITS == 64 {
                let t64: Vec<u64> = flat.iter().map(|x| x.to_u64()).collect();
                let mut out64 = vec![0u64; len];
                api::select(&t64, index_secret, &mut out64);
                public(&out64);
                assert_eq!(out64, want.iter().map(|x| x.to_u64()).collect::<Vec<_>>());
            }
            secret(want);
        }
        format!("{entries} entries of {len} limbs, secret index")
    }
    for (entries, len) in [(2, 1), (8, 5), (16, 8), (32, 13)] {
        let label = format!("table read u64 {entries}x{len}");
        run.case(&label, |run| read::<u64>(run, entries, len));
        let label = format!("table read u32 {entries}x{len}");
        run.case(&label, |run| read::<u32>(run, entries, len));
        let label = format!("table read u8  {entries}x{len}");
        run.case(&label, |run| read::<u8>(run, entries, len));
    }
}
