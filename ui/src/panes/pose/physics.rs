//! The pose pane's physics row: MikuMikuDance's rigid bodies and joints, or the VRM spring bones
//! the export would write, run live on the pose (Play / Pause / Reset / one step), also while a
//! motion plays or is scrubbed (the motion at 30 frames a second drives the bodies that follow
//! bones, the physics steps at 60). Playing runs by the clock ([`PhysicsClock`]): as many steps a
//! frame as real time asks for, within what fits in 50 ms of the measured step time; when that
//! is not enough the motion and the physics slow down together and the row says by how much.
//! The result lives in the pose ([`Pose::physics`]), never in the document, so "apply pose as
//! rest" takes the simulated pose.

use super::PoseState;
use crate::i18n::Language;
use pmx_core::model::{ElementKind, Model, RigidMode};
use pmx_core::pose::{Pose, PoseError, Transform};
use pmx_physics::simulation::MOTION_FPS;
use pmx_physics::{BodyMotion, Engine, PhysicsClock, STEP_SECONDS, Simulation};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A scrub further than this (motion frames) or backwards starts the physics over at the new
/// frame and lets it settle; a shorter scrub forward plays the frames in between.
const SCRUB_PLAY_FRAMES: f32 = 60.0;
/// Seconds the physics settles after a reset on a scrubbed frame.
const SETTLE_SECONDS: f32 = 1.0;

/// The physics preview of one document's pose.
#[derive(Default)]
pub struct PhysicsPreview {
    /// Physics on: the pose gets the simulation's result.
    pub enabled: bool,
    /// Steps run as time passes (otherwise only by the step button and scrubbing).
    pub playing: bool,
    pub engine: Engine,
    simulation: Option<Simulation>,
    /// Start over at the current pose before the next step.
    needs_reset: bool,
    last_tick: Option<Instant>,
    /// Real time into steps while playing, and how far the physics falls behind it.
    clock: PhysicsClock,
    /// Wall time of the last step.
    pub last_step: Duration,
    /// Body placements after the last step (model space), shared with the 3D view.
    placements: Option<Arc<[Transform]>>,
    generation: u64,
}

impl std::fmt::Debug for PhysicsPreview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhysicsPreview")
            .field("enabled", &self.enabled)
            .field("playing", &self.playing)
            .field("engine", &self.engine)
            .field("steps", &self.simulation.as_ref().map(Simulation::steps))
            .finish_non_exhaustive()
    }
}

impl PhysicsPreview {
    /// The model changed: the world is built again (and starts over) when next needed.
    pub fn invalidate(&mut self) {
        self.simulation = None;
        self.needs_reset = true;
        self.placements = None;
        self.generation += 1;
    }

    /// Starts over at the current pose before the next step.
    pub fn request_reset(&mut self) {
        self.needs_reset = true;
    }

    /// The simulation, when one has run.
    #[must_use]
    pub fn simulation(&self) -> Option<&Simulation> {
        self.simulation.as_ref()
    }

    /// The clock that runs the steps while playing: [`PhysicsClock::speed`] says whether the
    /// physics keeps up with real time.
    #[must_use]
    pub fn clock(&self) -> &PhysicsClock {
        &self.clock
    }

    /// Where the last step put the rigid bodies, with a generation that changes with them.
    #[must_use]
    pub fn placements(&self) -> Option<(u64, Arc<[Transform]>)> {
        self.placements.clone().map(|p| (self.generation, p))
    }

    fn ensure(&mut self, model: &Model, pose: &mut Pose) {
        let wrong_engine = self
            .simulation
            .as_ref()
            .is_some_and(|s| s.engine() != self.engine);
        if self.simulation.is_none() || wrong_engine {
            self.simulation = Some(Simulation::new(model, self.engine));
            self.needs_reset = true;
        }
        if self.needs_reset
            && let Some(simulation) = &mut self.simulation
        {
            // A pose made for this model always fits it (the pane rebuilds both together).
            let _ = simulation.reset(model, pose);
            self.needs_reset = false;
        }
    }

    /// Runs `steps` on the simulation (started over first when asked), times them and gives
    /// the view the bodies' new placements once, whatever the number of steps.
    fn run(
        &mut self,
        model: &Model,
        pose: &mut Pose,
        steps: impl FnOnce(&mut Simulation, &mut Pose) -> Result<(), PoseError>,
    ) {
        self.ensure(model, pose);
        let Some(simulation) = &mut self.simulation else {
            return;
        };
        let (before, started) = (simulation.steps(), Instant::now());
        // A pose made for this model always fits it (the pane rebuilds both together).
        let _ = steps(simulation, pose);
        let ran = simulation.steps().saturating_sub(before);
        if ran > 0 {
            self.last_step = started.elapsed().div_f64(ran as f64);
        }
        self.refresh_placements(model);
    }

    fn refresh_placements(&mut self, model: &Model) {
        let Some(simulation) = &self.simulation else {
            return;
        };
        let mut list = Vec::with_capacity(model.rigid_bodies.len());
        simulation.body_transforms(model, &mut list);
        self.placements = Some(list.into());
        self.generation += 1;
    }

    /// Physics off: the pose loses the simulation's result.
    fn switch_off(&mut self, pose: &mut Pose) {
        self.enabled = false;
        self.playing = false;
        pose.physics.clear();
        self.placements = None;
        self.generation += 1;
        self.needs_reset = true;
    }
}

impl PoseState {
    /// Runs the physics for the time passed since the last frame (while playing; a loaded
    /// motion advances with it, step for step). Returns whether anything stepped.
    pub fn tick_physics(&mut self, model: &Model, now: Instant) -> bool {
        let physics = &mut self.physics;
        if !(physics.enabled && physics.playing) {
            physics.last_tick = None;
            // A pause is not falling behind: the clock starts afresh with the next play.
            physics.clock.reset();
            return false;
        }
        let elapsed = physics
            .last_tick
            .map_or(Duration::ZERO, |last| now.saturating_duration_since(last));
        physics.last_tick = Some(now);
        let step_cost = physics.last_step;
        self.advance_by_clock(model, elapsed, step_cost) > 0
    }

    /// Runs the steps `real_elapsed` of real time asks for when a step costs `step_cost` (see
    /// [`PhysicsClock::advance`]): the frame's part of [`PoseState::tick_physics`], on
    /// durations handed in. Returns the steps run.
    pub fn advance_by_clock(
        &mut self,
        model: &Model,
        real_elapsed: Duration,
        step_cost: Duration,
    ) -> u32 {
        let steps = self.physics.clock.advance(real_elapsed, step_cost);
        if steps > 0 {
            self.advance(model, steps);
        }
        steps
    }

    /// `steps` steps, a loaded motion moving on by a 60th of a second before each (and round
    /// again from the start, the physics starting over with it, past its last frame).
    fn advance(&mut self, model: &Model, steps: u32) {
        let motion = &mut self.motion;
        self.physics.run(model, &mut self.pose, |simulation, pose| {
            for _ in 0..steps {
                if let Some(loaded) = motion.as_mut() {
                    let mut frame = loaded.frame + STEP_SECONDS * MOTION_FPS;
                    let round_again = frame > loaded.motion.last_frame() as f32;
                    if round_again {
                        frame = 0.0;
                    }
                    loaded.frame = frame;
                    loaded.motion.sample(&loaded.binding, frame, pose);
                    if round_again {
                        simulation.reset(model, pose)?;
                    }
                }
                simulation.step(model, pose)?;
            }
            Ok(())
        });
        if self.motion.is_some() {
            self.refresh_euler();
        }
        self.stale = true;
    }

    /// One step by the button (also when paused).
    pub fn step_physics_once(&mut self, model: &Model) {
        self.physics.enabled = true;
        self.advance(model, 1);
    }

    /// Starts the physics over at the current pose (bodies where its bones put them).
    pub fn reset_physics(&mut self, model: &Model) {
        self.physics.request_reset();
        if self.physics.enabled {
            self.physics.ensure(model, &mut self.pose);
            self.physics.refresh_placements(model);
            self.stale = true;
        }
    }

    /// Physics on or off.
    pub fn set_physics_enabled(&mut self, model: &Model, enabled: bool) {
        if enabled {
            self.physics.enabled = true;
            self.reset_physics(model);
        } else {
            self.physics.switch_off(&mut self.pose);
            self.stale = true;
        }
    }

    /// Switches between MikuMikuDance physics and the VRM spring bones (starting over).
    pub fn set_physics_engine(&mut self, model: &Model, engine: Engine) {
        if self.physics.engine != engine {
            self.physics.engine = engine;
            self.physics.simulation = None;
            self.reset_physics(model);
        }
    }

    /// Shows the motion at `frame`, the physics following it when on (see
    /// [`PoseState::set_frame`] for the motion alone).
    pub fn scrub_to(&mut self, model: &Model, frame: f32) {
        let from = self.motion.as_ref().map_or(0.0, |m| m.frame);
        self.set_frame(frame);
        self.physics_after_scrub(model, from);
    }

    /// With physics on, the motion moved from `from` to the frame it is at now: a short step
    /// forward plays the physics through the frames in between; anything else starts over at
    /// the new frame and settles.
    fn physics_after_scrub(&mut self, model: &Model, from: f32) {
        if !self.physics.enabled {
            return;
        }
        let Some(loaded) = &self.motion else {
            return;
        };
        let to = loaded.frame;
        if to > from && to - from <= SCRUB_PLAY_FRAMES {
            self.physics.run(model, &mut self.pose, |simulation, pose| {
                simulation.play_motion(model, &loaded.motion, &loaded.binding, from, to, pose)
            });
        } else {
            self.physics.request_reset();
            self.physics.run(model, &mut self.pose, |simulation, pose| {
                simulation.run_for(model, pose, SETTLE_SECONDS)
            });
        }
        self.stale = true;
    }

    /// Where the rigid bodies are in the pose the view shows: the physics' placements while
    /// it runs, else where the posed bones carry them; `None` at rest.
    #[must_use]
    pub fn body_placements(&self, model: &Model) -> Option<(u64, Arc<[Transform]>)> {
        if self.physics.enabled {
            return self.physics.placements();
        }
        let evaluator = self.evaluated()?;
        if self.pose.is_rest() || model.rigid_bodies.is_empty() {
            return None;
        }
        let offsets = pmx_physics::placement::bone_offsets(model);
        let mut list = Vec::new();
        pmx_physics::placement::follow_bones(
            model,
            &offsets,
            evaluator.skeleton.globals(),
            &mut list,
        );
        Some((self.generation(), list.into()))
    }
}

/// The physics row: on/off, engine, Play/Pause, Reset, one step, the status and the picked
/// body's readout.
pub(super) fn physics_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &mut PoseState,
    document: &crate::document::Document,
) {
    let model = &document.model;
    ui.horizontal_wrapped(|ui| {
        let mut enabled = state.physics.enabled;
        if ui
            .checkbox(&mut enabled, lang.tr("physics.enabled"))
            .on_hover_text(lang.tr("physics.enabled_hint"))
            .changed()
        {
            state.set_physics_enabled(model, enabled);
        }
        let mut engine = state.physics.engine;
        egui::ComboBox::from_id_salt("physics.engine")
            .selected_text(engine_name(lang, engine))
            .show_ui(ui, |ui| {
                for choice in Engine::ALL {
                    ui.selectable_value(&mut engine, choice, engine_name(lang, choice));
                }
            })
            .response
            .on_hover_text(lang.tr("physics.engine_hint"));
        if engine != state.physics.engine {
            state.set_physics_engine(model, engine);
        }
        let play_label = if state.physics.playing {
            lang.tr("physics.pause")
        } else {
            lang.tr("physics.play")
        };
        if ui.button(play_label).clicked() {
            if !state.physics.enabled {
                state.set_physics_enabled(model, true);
            }
            state.physics.playing = !state.physics.playing;
        }
        if ui.button(lang.tr("physics.reset")).clicked() {
            state.reset_physics(model);
        }
        if ui.button(lang.tr("physics.step")).clicked() {
            state.physics.playing = false;
            state.step_physics_once(model);
        }
        // The status and the warning each stay on one line: where the row is too narrow,
        // the row wraps before them instead of breaking them in the middle.
        let whole =
            |text: egui::RichText| egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend);
        if let Some(simulation) = state.physics.simulation().filter(|_| state.physics.enabled) {
            let status = lang.format(
                "physics.status",
                &[
                    ("seconds", &format!("{:.2}", simulation.seconds())),
                    ("steps", &simulation.steps()),
                    (
                        "ms",
                        &format!("{:.2}", state.physics.last_step.as_secs_f64() * 1e3),
                    ),
                ],
            );
            ui.add(whole(egui::RichText::new(status).weak()));
        }
        let clock = state.physics.clock();
        if state.physics.playing && clock.is_behind() {
            // Whole percents, never 100 % while behind.
            let percent = (clock.speed() * 100.0).floor().min(99.0);
            let behind = lang.format("physics.behind", &[("percent", &percent)]);
            ui.add(whole(
                egui::RichText::new(behind).color(ui.visuals().warn_fg_color),
            ))
            .on_hover_text(lang.tr("physics.behind_hint"));
        }
    });
    if !state.physics.enabled {
        return;
    }
    let Some(simulation) = state.physics.simulation() else {
        return;
    };
    if let Some(world) = simulation.mmd_world() {
        let notes = world.notes();
        if !notes.is_empty() {
            ui.weak(lang.format("physics.notes", &[("count", &notes.len())]))
                .on_hover_text(
                    notes
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
        }
        let picked = {
            let selection = document.selection.get(ElementKind::RigidBody);
            selection.current.or_else(|| selection.indices.first())
        };
        if let Some(index) = picked
            && let (Some(body), Some(state)) = (model.rigid_bodies.get(index), world.body(index))
        {
            let p = state.transform.translation;
            let euler = pmx_core::model::facts::quat_to_euler_degrees(state.transform.rotation);
            ui.label(lang.format(
                "physics.body_readout",
                &[
                    ("index", &index),
                    ("name", &body.name_ja.as_str()),
                    ("mode", &mode_name(lang, body.mode, state.motion)),
                    ("position", &format!("({:.3}, {:.3}, {:.3})", p.x, p.y, p.z)),
                    (
                        "rotation",
                        &format!("({:.1}°, {:.1}°, {:.1}°)", euler.x, euler.y, euler.z),
                    ),
                    ("speed", &format!("{:.2}", state.linear_velocity.length())),
                    (
                        "spin",
                        &format!("{:.1}", state.angular_velocity.length().to_degrees()),
                    ),
                ],
            ));
        } else if !model.rigid_bodies.is_empty() {
            ui.weak(lang.tr("physics.pick_a_body"));
        }
    } else if let Some(error) = simulation.spring_error() {
        ui.colored_label(ui.visuals().warn_fg_color, error);
    } else if let Some((chains, joints)) = simulation.spring_counts() {
        ui.weak(lang.format(
            "physics.springs_status",
            &[("chains", &chains), ("joints", &joints)],
        ));
    }
}

fn engine_name(lang: Language, engine: Engine) -> &'static str {
    match engine {
        Engine::Mmd => lang.tr("physics.engine_mmd"),
        Engine::SpringBones => lang.tr("physics.engine_springs"),
    }
}

fn mode_name(lang: Language, mode: RigidMode, motion: BodyMotion) -> &'static str {
    if motion == BodyMotion::FollowsBone && mode != RigidMode::FollowBone {
        return lang.tr("physics.mode_static");
    }
    match mode {
        RigidMode::FollowBone => lang.tr("physics.mode_follow"),
        RigidMode::Physics => lang.tr("physics.mode_physics"),
        RigidMode::PhysicsWithBone => lang.tr("physics.mode_physics_bone"),
        RigidMode::Unknown(_) => lang.tr("physics.mode_follow"),
    }
}
