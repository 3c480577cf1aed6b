//! Physics by the clock: how many fixed 1/60 s steps a drawn frame runs so that simulated time
//! follows real time, and how far it falls behind when the machine cannot keep up.
//!
//! Each frame hands [`PhysicsClock::advance`] the real time passed since the last frame and what
//! one step costs now (measured by the caller); it answers how many steps to run. Real time
//! not yet simulated is carried to the next frame, so a frame that comes late is caught up by
//! the next ones. A frame never runs more steps than fit in [`FRAME_BUDGET`] at the step's
//! cost (and never more than [`MAX_STEPS_PER_FRAME`]), so a slow machine does not fall into
//! the spiral where each frame's catch-up makes the next frame longer. What cannot be caught
//! up within one frame's bound is dropped: simulated time then runs slower than real time,
//! and [`PhysicsClock::speed`] says by how much over the last [`SPEED_WINDOW`] of real time.
//!
//! Pure accounting on durations handed in: no clock is read here, so the tests run on
//! simulated durations and the same inputs give the same steps.

use std::collections::VecDeque;
use std::time::Duration;

/// The most physics time one drawn frame may take: the window stays responsive (20 frames a
/// second at worst) while the physics falls behind.
pub const FRAME_BUDGET: Duration = Duration::from_millis(50);
/// The most steps one frame runs, whatever the measured cost (half a second of simulated time,
/// so a renderer as slow as 2 frames a second still keeps up): a cost not yet measured, or
/// measured near zero, never lets one frame run away.
pub const MAX_STEPS_PER_FRAME: u32 = 30;
/// The real time [`PhysicsClock::speed`] is measured over.
pub const SPEED_WINDOW: Duration = Duration::from_secs(1);
/// One frame's real time counts for at most this much: a stall of the whole program (a
/// minimised window, a debugger) is reported as one slow second, not as minutes lost.
const MAX_FRAME_SECONDS: f64 = 1.0;
/// One step of simulated time, exactly (the f32 [`crate::STEP_SECONDS`] is a little longer:
/// 18 of it do not fit in 300 ms).
const STEP: f64 = 1.0 / 60.0;
/// Below this speed the physics counts as not keeping up (rounding of the carry keeps a
/// machine that keeps up at exactly 1).
const KEEPING_UP: f64 = 0.99;

/// One frame's accounting in the speed window.
#[derive(Debug, Clone, Copy)]
struct FrameSample {
    real: f64,
    dropped: f64,
}

/// Turns real time into whole physics steps; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct PhysicsClock {
    /// Real time passed but not yet simulated (seconds): less than one step while keeping up,
    /// at most one frame's bound of steps while catching up.
    carry: f64,
    /// The frames of the last [`SPEED_WINDOW`] of real time, oldest first.
    window: VecDeque<FrameSample>,
    /// The real time `window` spans (seconds).
    window_real: f64,
}

impl PhysicsClock {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the time carried and the speed measured (the physics starts over, or it was
    /// paused: a pause is not falling behind).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// The most steps one frame may run when a step costs `step_cost`: as many as fit in
    /// [`FRAME_BUDGET`], at least one (the physics always moves), at most
    /// [`MAX_STEPS_PER_FRAME`].
    #[must_use]
    pub fn steps_bound(step_cost: Duration) -> u32 {
        let cost = step_cost.as_secs_f64();
        if cost <= 0.0 || !cost.is_finite() {
            return MAX_STEPS_PER_FRAME;
        }
        let fit = (FRAME_BUDGET.as_secs_f64() / cost).floor();
        if fit >= f64::from(MAX_STEPS_PER_FRAME) {
            MAX_STEPS_PER_FRAME
        } else {
            (fit as u32).max(1)
        }
    }

    /// `real_elapsed` has passed since the last frame and a step costs `step_cost`: the number
    /// of steps to run now. Time beyond what this frame and the next can run within their
    /// bound is dropped and counted against [`PhysicsClock::speed`].
    pub fn advance(&mut self, real_elapsed: Duration, step_cost: Duration) -> u32 {
        let step = STEP;
        let real = real_elapsed.as_secs_f64().min(MAX_FRAME_SECONDS);
        let bound = Self::steps_bound(step_cost);
        self.carry += real;
        // The small epsilon keeps 1/60 s of carry (a sum of f64 frame times) one whole step.
        let due = ((self.carry + 1e-9) / step).floor();
        let steps = if due >= f64::from(bound) {
            bound
        } else {
            due as u32
        };
        self.carry = (self.carry - f64::from(steps) * step).max(0.0);
        // What is left is caught up by the next frame when it fits in its bound; the rest
        // is lost.
        let keep = f64::from(bound) * step;
        let dropped = (self.carry - keep).max(0.0);
        self.carry -= dropped;
        self.record(FrameSample { real, dropped });
        steps
    }

    fn record(&mut self, sample: FrameSample) {
        self.window.push_back(sample);
        self.window_real += sample.real;
        let window = SPEED_WINDOW.as_secs_f64();
        while let Some(oldest) = self.window.front().copied() {
            if self.window_real - oldest.real < window {
                break;
            }
            self.window.pop_front();
            self.window_real -= oldest.real;
        }
    }

    /// Simulated time over real time during the last [`SPEED_WINDOW`] (1 when keeping up,
    /// 0.45 when the physics ran 0.45 s in the last second); 1 before any time passed.
    #[must_use]
    pub fn speed(&self) -> f64 {
        // Summed afresh (a few hundred frames at most): running sums would leave rounding
        // behind, and a machine that keeps up must read exactly 1.
        let (real, dropped) = self.window.iter().fold((0.0, 0.0), |(real, dropped), s| {
            (real + s.real, dropped + s.dropped)
        });
        if real <= 0.0 {
            return 1.0;
        }
        ((real - dropped) / real).clamp(0.0, 1.0)
    }

    /// Whether the physics fell behind real time in the last [`SPEED_WINDOW`].
    #[must_use]
    pub fn is_behind(&self) -> bool {
        self.speed() < KEEPING_UP
    }

    /// Real time passed but not simulated yet (seconds).
    #[must_use]
    pub fn carried_seconds(&self) -> f64 {
        self.carry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(milliseconds: f64) -> Duration {
        Duration::from_secs_f64(milliseconds / 1e3)
    }

    /// Runs `frames` frames of `frame_ms` real time each at `cost_ms` a step; the steps run.
    fn run(clock: &mut PhysicsClock, frames: usize, frame_ms: f64, cost_ms: f64) -> u64 {
        (0..frames)
            .map(|_| u64::from(clock.advance(ms(frame_ms), ms(cost_ms))))
            .sum()
    }

    #[test]
    fn keeping_up_runs_sixty_steps_a_second_of_real_time() {
        for frame_ms in [
            1000.0 / 144.0,
            1000.0 / 60.0,
            1000.0 / 30.0,
            1000.0 / 24.0,
            45.0,
        ] {
            let mut clock = PhysicsClock::new();
            let frames = (10_000.0 / frame_ms) as usize;
            let steps = run(&mut clock, frames, frame_ms, 1.0);
            let expected = frames as f64 * frame_ms / 1000.0 * 60.0;
            assert!(
                (steps as f64 - expected).abs() <= 1.0,
                "{frame_ms} ms frames: {steps} steps, {expected} expected"
            );
            assert_eq!(clock.speed(), 1.0, "{frame_ms} ms frames keep up");
            assert!(!clock.is_behind());
        }
    }

    #[test]
    fn a_sixtieth_of_a_second_is_one_step_and_less_is_none_yet() {
        let mut clock = PhysicsClock::new();
        assert_eq!(clock.advance(ms(10.0), ms(1.0)), 0);
        assert_eq!(
            clock.advance(ms(10.0), ms(1.0)),
            1,
            "20 ms carried: one step"
        );
        assert!((clock.carried_seconds() - (0.020 - 1.0 / 60.0)).abs() < 1e-9);
        let mut clock = PhysicsClock::new();
        assert_eq!(
            clock.advance(Duration::from_secs_f64(1.0 / 60.0), ms(1.0)),
            1
        );
        assert_eq!(clock.advance(Duration::ZERO, ms(1.0)), 0);
    }

    #[test]
    fn the_bound_keeps_a_frame_within_its_budget() {
        assert_eq!(PhysicsClock::steps_bound(ms(1.0)), MAX_STEPS_PER_FRAME);
        assert_eq!(
            PhysicsClock::steps_bound(Duration::ZERO),
            MAX_STEPS_PER_FRAME
        );
        assert_eq!(PhysicsClock::steps_bound(ms(8.8)), 5);
        assert_eq!(PhysicsClock::steps_bound(ms(10.0)), 5);
        assert_eq!(PhysicsClock::steps_bound(ms(20.0)), 2);
        assert_eq!(PhysicsClock::steps_bound(ms(80.0)), 1, "at least one step");
        for cost in [0.5, 3.0, 8.8, 16.0, 24.0, 49.0] {
            let bound = PhysicsClock::steps_bound(ms(cost));
            assert!(
                f64::from(bound) * cost <= 50.0,
                "{bound} steps of {cost} ms exceed the budget"
            );
        }
    }

    #[test]
    fn a_slow_frame_is_caught_up_by_the_next_within_the_bound() {
        let mut clock = PhysicsClock::new();
        run(&mut clock, 60, 1000.0 / 60.0, 4.0);
        // One frame of 300 ms: 18 steps due, the bound at 4 ms a step is 12.
        let first = clock.advance(ms(300.0), ms(4.0));
        assert_eq!(first, 12);
        let second = clock.advance(ms(1000.0 / 60.0), ms(4.0));
        assert_eq!(second, 7, "the 6 steps left and this frame's one");
        assert_eq!(clock.speed(), 1.0, "nothing was lost");
        assert!(clock.carried_seconds() < 1.0 / 60.0);
    }

    #[test]
    fn a_machine_that_cannot_keep_up_runs_bounded_frames_and_says_how_slow() {
        // A step costs 25 ms: two fit in a 50 ms frame; each frame takes its steps' time
        // (the renderer's cost left out), so 120 ms of real time pass a frame at the start.
        let mut clock = PhysicsClock::new();
        let cost = 25.0;
        let mut frame_ms = 120.0;
        let mut frame_steps = Vec::new();
        for _ in 0..200 {
            let steps = clock.advance(ms(frame_ms), ms(cost));
            assert!(steps <= 2, "{steps} steps in one frame");
            frame_steps.push(steps);
            frame_ms = f64::from(steps) * cost + 5.0;
        }
        assert!(clock.is_behind());
        // Each frame runs 2 steps (33.3 ms simulated) in 55 ms of real time.
        let expected = (2.0 / 60.0) / 0.055;
        assert!(
            (clock.speed() - expected).abs() < 0.01,
            "speed {} expected {expected}",
            clock.speed()
        );
        // No spiral: the frames stay at the bound.
        assert!(frame_steps[100..].iter().all(|&s| s == 2));
    }

    #[test]
    fn the_speed_is_over_the_last_second_and_recovers() {
        let mut clock = PhysicsClock::new();
        // Two seconds at 40 ms a step: one step a frame of 45 ms real time.
        run(&mut clock, 44, 45.0, 40.0);
        let slow = clock.speed();
        assert!(
            (slow - (1.0 / 60.0) / 0.045).abs() < 0.02,
            "slow speed {slow}"
        );
        // The machine is fast again: after one more second the window is all fast frames.
        run(&mut clock, 70, 1000.0 / 60.0, 1.0);
        assert_eq!(clock.speed(), 1.0);
        assert!(!clock.is_behind());
    }

    #[test]
    fn a_stall_counts_as_at_most_a_second_and_reset_forgets_it() {
        let mut clock = PhysicsClock::new();
        // A minute without frames at 4 ms a step: one second counts, 12 steps run, 12 more
        // are kept for the next frame and the rest (0.6 s) is lost.
        let steps = clock.advance(Duration::from_secs(60), ms(4.0));
        assert_eq!(steps, 12);
        assert!((clock.carried_seconds() - 0.2).abs() < 1e-9);
        assert!(
            (clock.speed() - 0.4).abs() < 1e-9,
            "speed {}",
            clock.speed()
        );
        assert!(clock.is_behind());
        clock.reset();
        assert_eq!(clock.speed(), 1.0);
        assert_eq!(clock.carried_seconds(), 0.0);
    }

    #[test]
    fn the_same_frames_give_the_same_steps() {
        let frames: Vec<(f64, f64)> = (0..500)
            .map(|i| (5.0 + f64::from(i * 37 % 90), 1.0 + f64::from(i * 13 % 30)))
            .collect();
        let steps = |clock: &mut PhysicsClock| -> Vec<u32> {
            frames
                .iter()
                .map(|&(real, cost)| clock.advance(ms(real), ms(cost)))
                .collect()
        };
        assert_eq!(
            steps(&mut PhysicsClock::new()),
            steps(&mut PhysicsClock::new())
        );
    }
}
