//! Physics maths shared by the exporters and the live preview: the VRM spring joint limits.

pub mod spring_limit;
