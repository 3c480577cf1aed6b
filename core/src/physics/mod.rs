//! Physics maths shared by the exporters and the live preview: the VRM spring joints' limits
//! (their shapes, and the limit an MMD joint becomes), their settings derived from MMD rigid
//! bodies and joints, the springs and colliders a model's physics becomes, and the
//! VRMC_springBone reference simulation of those springs.

pub mod mmd_limit;
pub mod spring_limit;
pub mod spring_params;
pub mod spring_sim;
pub mod springs;
