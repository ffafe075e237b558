//! What the fuzz passes share (tests/fuzz and the MCP fuzz tests): how long
//! a pass runs, the seed that reproduces it, and the stream of
//! pseudo-random bytes drawn from that seed.

/// `CODERUN_FUZZ_SECONDS`, when set: how long a pass runs (each test has
/// its own short pass for `make test` otherwise).
pub fn seconds() -> Option<u64> {
    std::env::var("CODERUN_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
}

/// `CODERUN_FUZZ_SEED`, or a fresh seed from the clock; the pass prints it
/// so that a failure can be reproduced.
pub fn seed() -> u64 {
    std::env::var("CODERUN_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// A splitmix64 stream.
pub struct Stream(pub u64);

impl Stream {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n.div_ceil(8))
            .flat_map(|_| self.next().to_le_bytes())
            .take(n)
            .collect()
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
