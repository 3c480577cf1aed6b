// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]
fn main() {}
