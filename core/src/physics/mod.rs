//! Physics maths shared by the exporters and the live preview: the VRM spring joints' limits
//! and their settings derived from MMD rigid bodies and joints.

pub mod spring_limit;
pub mod spring_params;
