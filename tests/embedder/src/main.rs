//! The README's library example, as a user's crate would build it.

include!(concat!(env!("OUT_DIR"), "/readme_example.rs"));
