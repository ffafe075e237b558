//! The configuration's validation and its derived pool count.

use super::*;

#[test]
fn defaults_are_valid() {
    assert_eq!(RuntimeConfig::default().validate(), Ok(()));
}

#[test]
fn zero_fuel_names_key_and_value() {
    let err = RuntimeConfig::new().fuel(0).validate().unwrap_err();
    assert_eq!(err.to_string(), "config.fuel must be positive (got 0)");
}

#[test]
fn front_end_limits_are_bounded() {
    let err = RuntimeConfig::new()
        .max_nesting_depth(100_000)
        .validate()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "config.max_nesting_depth must be between 1 and 10000 (got 100000)"
    );
    let err = RuntimeConfig::new()
        .max_program_bytes(0)
        .validate()
        .unwrap_err();
    assert_eq!(err.key(), "max_program_bytes");
    let err = RuntimeConfig::new()
        .max_total_memory_bytes(Some(1024))
        .validate()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "config.max_total_memory_bytes must be at least 9437184 (9 MiB) (got 1024)"
    );
}

#[test]
fn instance_pools_are_bounded_and_never_outnumber_the_slots() {
    for pools in [0, 65] {
        let err = RuntimeConfig::new()
            .instance_pools(Some(pools))
            .validate()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("config.instance_pools must be between 1 and 64 (got {pools})")
        );
    }
    let mut config = RuntimeConfig::new();
    config.instance_pools(Some(64)).max_concurrent_runs(3);
    assert_eq!(config.validate(), Ok(()));
    assert_eq!(config.pool_count(), 3);
    config.instance_pools(None).max_concurrent_runs(1000);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    assert_eq!(config.pool_count(), cores.min(8));
}

#[test]
fn zero_memory_names_key_and_value() {
    let err = RuntimeConfig::new()
        .max_memory_bytes(0)
        .validate()
        .unwrap_err();
    assert_eq!(err.key(), "max_memory_bytes");
    assert!(err.to_string().ends_with("(got 0)"), "{err}");
}
