//! The live physics of the pose pane and of `pmx-studio pose --physics`: MikuMikuDance's
//! rigid bodies and joints on rapier ([`world`]), and the driver that runs them, or the VRM
//! spring bones the export would write, between the bones before and after physics
//! ([`simulation`]). No GUI dependency.

pub mod clock;
pub mod generate;
pub mod placement;
pub mod world;

pub use clock::PhysicsClock;
pub use world::{
    BodyMotion, BodyState, MmdWorld, PhysicsNote, STEP_SECONDS, SolverSettings, WorldStats,
};
pub mod simulation;

pub use simulation::{Engine, Simulation};
