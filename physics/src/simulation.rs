//! Runs a physics engine between the bones that deform before physics and those after, a fixed
//! 1/60 s step at a time, as MikuMikuDance does: morphs and the bones before physics are
//! evaluated, the engine steps on them (bodies that follow bones move with them, impulse morphs
//! push), its bone transforms go into the pose ([`Pose::physics`]), and the bones after physics
//! (物理後) are evaluated from the result. The pose then holds everything the simulated frame
//! is, so the preview, "apply pose as rest" and `pmx-studio pose` all see the simulated pose.
//!
//! Two engines: MikuMikuDance's rigid bodies and joints ([`MmdWorld`]), and the VRM spring
//! bones the VRM export would write from them (`pmx_core::physics::spring_sim`), so the two
//! can be compared on the same model before exporting.

use crate::world::{MmdWorld, STEP_SECONDS, SolverSettings};
use pmx_core::formats::vmd::{Binding, Motion};
use pmx_core::model::Model;
use pmx_core::physics::spring_sim::SpringSimulation;
use pmx_core::physics::springs::plan_springs;
use pmx_core::pose::{PhysicsBone, Pose, PoseError, PoseEvaluator, Transform};

/// Frames a second of a VMD motion.
pub const MOTION_FPS: f32 = 30.0;

/// Which physics runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// MikuMikuDance's rigid bodies and joints.
    #[default]
    Mmd,
    /// The VRMC_springBone chains (with VRMC_springBone_limit) the VRM export makes of them.
    SpringBones,
}

impl Engine {
    pub const ALL: [Engine; 2] = [Engine::Mmd, Engine::SpringBones];

    /// The command line's name.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Engine::Mmd => "mmd",
            Engine::SpringBones => "springs",
        }
    }

    #[must_use]
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.id() == id)
    }
}

enum Runner {
    Mmd(Box<MmdWorld>),
    /// `None` when the model's springs could not be planned (the notes say why).
    Springs(Option<Box<SpringSimulation>>),
}

/// A model's physics, run on poses of it.
pub struct Simulation {
    engine: Engine,
    runner: Runner,
    evaluator: PoseEvaluator,
    steps: u64,
    /// Reused for the step's output.
    overrides: Vec<PhysicsBone>,
    spring_out: Vec<(usize, Transform)>,
    /// Why the spring bones could not be built, when they could not.
    spring_error: Option<String>,
    /// With the spring bones: each rigid body in its bone's frame, for drawing the bodies
    /// where the simulated bones carry them (the MMD world keeps its own).
    body_offsets: Vec<Transform>,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("engine", &self.engine)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// The simulation of `model`, at rest, not yet reset to a pose.
    #[must_use]
    pub fn new(model: &Model, engine: Engine) -> Self {
        Self::with_settings(model, engine, SolverSettings::default())
    }

    /// [`Simulation::new`] with the MMD world solved with `settings`.
    #[must_use]
    pub fn with_settings(model: &Model, engine: Engine, settings: SolverSettings) -> Self {
        let mut spring_error = None;
        let mut body_offsets = Vec::new();
        let runner = match engine {
            Engine::Mmd => Runner::Mmd(Box::new(MmdWorld::with_settings(model, settings))),
            Engine::SpringBones => {
                body_offsets = crate::placement::bone_offsets(model);
                match SpringSimulation::new(model, &plan_springs(model)) {
                    Ok(springs) => Runner::Springs(Some(Box::new(springs))),
                    Err(error) => {
                        spring_error = Some(error.to_string());
                        Runner::Springs(None)
                    }
                }
            }
        };
        Self {
            engine,
            runner,
            evaluator: PoseEvaluator::new(model),
            steps: 0,
            overrides: Vec::new(),
            spring_out: Vec::new(),
            spring_error,
            body_offsets,
        }
    }

    #[must_use]
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Steps run since the last reset.
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Seconds simulated since the last reset.
    #[must_use]
    pub fn seconds(&self) -> f64 {
        self.steps as f64 * f64::from(STEP_SECONDS)
    }

    /// The MikuMikuDance world, when that is the engine.
    #[must_use]
    pub fn mmd_world(&self) -> Option<&MmdWorld> {
        match &self.runner {
            Runner::Mmd(world) => Some(world),
            Runner::Springs(_) => None,
        }
    }

    /// The spring bones, when they are the engine.
    #[must_use]
    pub fn spring_simulation(&self) -> Option<&SpringSimulation> {
        match &self.runner {
            Runner::Springs(springs) => springs.as_deref(),
            Runner::Mmd(_) => None,
        }
    }

    /// Where every rigid body of `model` (the model the simulation was built for) is after the
    /// last step, in model order: the MMD world's bodies, or where the spring bones carry them.
    pub fn body_transforms(&self, model: &Model, out: &mut Vec<Transform>) {
        match &self.runner {
            Runner::Mmd(world) => world.body_transforms(out),
            Runner::Springs(_) => crate::placement::follow_bones(
                model,
                &self.body_offsets,
                self.evaluator.skeleton.globals(),
                out,
            ),
        }
    }

    /// Why the spring bones could not be built from the model's physics.
    #[must_use]
    pub fn spring_error(&self) -> Option<&str> {
        self.spring_error.as_deref()
    }

    /// How many spring chains and spring joints run, when the spring bones are the engine.
    #[must_use]
    pub fn spring_counts(&self) -> Option<(usize, usize)> {
        let springs = self.spring_simulation()?;
        let joints = (0..springs.chain_count())
            .map(|chain| springs.joint_tails(chain).count())
            .sum();
        Some((springs.chain_count(), joints))
    }

    /// The evaluator of the last step (bones and skinning matrices of the simulated pose; call
    /// [`PoseEvaluator::evaluate`] with the pose to skin the vertices).
    #[must_use]
    pub fn evaluator(&self) -> &PoseEvaluator {
        &self.evaluator
    }

    /// Starts over from `pose` without physics: every body (or spring tail) where the pose's
    /// bones put it, at rest speed. Clears `pose.physics`.
    pub fn reset(&mut self, model: &Model, pose: &mut Pose) -> Result<(), PoseError> {
        pose.physics.clear();
        self.evaluator.evaluate_before_physics(model, pose)?;
        let globals = self.evaluator.skeleton.globals();
        match &mut self.runner {
            Runner::Mmd(world) => world.reset(globals),
            Runner::Springs(Some(springs)) => springs.reset(globals),
            Runner::Springs(None) => {}
        }
        self.evaluator.finish_after_physics(pose);
        self.steps = 0;
        Ok(())
    }

    /// One 1/60 s step on `pose` as it is (the user's or the motion's bones and morphs): its
    /// `physics` is replaced with the step's result and the bones are evaluated with it.
    pub fn step(&mut self, model: &Model, pose: &mut Pose) -> Result<(), PoseError> {
        pose.physics.clear();
        self.evaluator.evaluate_before_physics(model, pose)?;
        let globals = self.evaluator.skeleton.globals();
        match &mut self.runner {
            Runner::Mmd(world) => {
                world.step(
                    globals,
                    self.evaluator.morphs.impulses(),
                    &mut self.overrides,
                );
            }
            Runner::Springs(Some(springs)) => {
                springs.step(globals, STEP_SECONDS, &mut self.spring_out);
                self.overrides.clear();
                self.overrides.extend(
                    self.spring_out
                        .iter()
                        .map(|&(bone, transform)| PhysicsBone::placed(bone, transform)),
                );
            }
            Runner::Springs(None) => self.overrides.clear(),
        }
        pose.physics.clone_from(&self.overrides);
        self.evaluator.finish_after_physics(pose);
        self.steps += 1;
        Ok(())
    }

    /// `seconds` of steps (rounded to whole steps) with `pose` held still.
    pub fn run_for(
        &mut self,
        model: &Model,
        pose: &mut Pose,
        seconds: f32,
    ) -> Result<(), PoseError> {
        for _ in 0..steps_in(seconds) {
            self.step(model, pose)?;
        }
        Ok(())
    }

    /// Plays `motion` from frame 0 to `to_frame` (motion frames, 30 a second) with the physics
    /// at 60 steps a second, each step on the motion sampled at its own time: the way
    /// MikuMikuDance arrives at a frame when it plays. Starts with a reset at frame 0.
    pub fn run_motion(
        &mut self,
        model: &Model,
        motion: &Motion,
        binding: &Binding,
        to_frame: f32,
        pose: &mut Pose,
    ) -> Result<(), PoseError> {
        motion.sample(binding, 0.0, pose);
        self.reset(model, pose)?;
        self.play_motion(model, motion, binding, 0.0, to_frame, pose)
    }

    /// Goes on from motion frame `from` to `to` at 60 steps a second, each step on the motion
    /// sampled at its own time (no reset: the physics carries on from where it is); `pose` ends
    /// on frame `to`.
    pub fn play_motion(
        &mut self,
        model: &Model,
        motion: &Motion,
        binding: &Binding,
        from: f32,
        to: f32,
        pose: &mut Pose,
    ) -> Result<(), PoseError> {
        let frames_a_step = STEP_SECONDS * MOTION_FPS;
        let steps = steps_in((to - from).max(0.0) / MOTION_FPS);
        for step in 1..=steps {
            let frame = (from + step as f32 * frames_a_step).min(to);
            motion.sample(binding, frame, pose);
            self.step(model, pose)?;
        }
        if steps == 0 || from + (steps as f32 * frames_a_step) < to {
            motion.sample(binding, to, pose);
        }
        Ok(())
    }
}

/// Whole steps in `seconds` (at most ten minutes' worth: the preview and the command line
/// stay bounded on any input).
#[must_use]
pub fn steps_in(seconds: f32) -> u64 {
    const MAX_STEPS: f32 = 600.0 * 60.0;
    if !seconds.is_finite() || seconds <= 0.0 {
        return 0;
    }
    (seconds / STEP_SECONDS).round().min(MAX_STEPS) as u64
}
