//! Every Montgomery multiplication algorithm of the seeds, one file each, generic over
//! the limb type. These are the readable reference forms; the fast paths live beside
//! them and are tested against them.

pub mod cios;
pub mod karatsuba;
