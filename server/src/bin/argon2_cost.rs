//! `argon2_cost`: prints the argon2id parameters `/auth/v1` hashes with and what one hash and one
//! verification cost on this machine, for `make bench-auth` to compare sign-in throughput with.

use std::time::Instant;

use server::auth::password::{hash_blocking, verify_blocking, ARGON2_M_COST, ARGON2_P_COST, ARGON2_T_COST};

fn main() {
    let rounds = 20;
    let mut hash = String::new();
    let start = Instant::now();
    for _ in 0..rounds {
        hash = hash_blocking("benchmark password").unwrap_or_default();
    }
    let hash_ms = start.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    let start = Instant::now();
    for _ in 0..rounds {
        verify_blocking("benchmark password", &hash);
    }
    let verify_ms = start.elapsed().as_secs_f64() * 1000.0 / f64::from(rounds);
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!(
        "argon2id m={ARGON2_M_COST} KiB t={ARGON2_T_COST} p={ARGON2_P_COST}: hash {hash_ms:.1} ms, verify {verify_ms:.1} ms; \
         {cores} core(s) => at most {:.0} verifications/s",
        cores as f64 * 1000.0 / verify_ms
    );
}
