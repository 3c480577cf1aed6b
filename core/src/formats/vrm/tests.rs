//! Tests of the VRM export.
