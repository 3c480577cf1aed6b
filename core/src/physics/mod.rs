//! Physics maths shared by the exporters and the live preview: the VRM spring joints' limits,
//! their settings derived from MMD rigid bodies and joints, and the springs and colliders a
//! model's physics becomes.

pub mod spring_limit;
pub mod spring_params;
pub mod springs;
