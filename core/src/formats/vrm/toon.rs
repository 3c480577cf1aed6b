//! MMD toon ramps ↔ MToon 1.0's shading numbers, both ways, so that a toon becomes a shade
//! that draws like it and the shade comes back as the same toon.
//!
//! MikuMikuDance multiplies the lit colour by the toon's texel at `v = 0.5 − N·L / 2`; MToon
//! blends from the shade colour to the lit colour by
//! `linearstep(−1 + toony, 1 − toony, N·L + shift)`. A ramp whose linear transition is
//! centred at `v = c` and `w` high runs from fully lit at `N·L = 1 − 2c + w` to fully shaded
//! at `N·L = 1 − 2c − w`, so `toony = 1 − w` and `shift = 2c − 1`; the shade colour is the lit
//! colour times the ramp's shadow end (MMD multiplies the texture in as MToon's
//! `shadeMultiplyTexture` does). A ramp white at both ends (no toon) gives a shade equal to
//! the lit colour.
//!
//! The import reads a shade back as a shared toon when its colour over the base colour and
//! its range are those of toon01–10 (what the export writes for them), as no toon when the
//! shade is the base colour, and otherwise as a generated ramp.

use crate::texture::toon::{SHARED_TOONS, ToonRamp};

/// How far a shade's colour over its base may be from a shared toon's shadow colour, per
/// channel (the JSON's linear floats cost less than a step of 8 bits).
const COLOUR_TOLERANCE: f32 = 2.0 / 255.0;

/// How far a shading range's ends may be from a shared toon's, in N·L.
const RANGE_TOLERANCE: f32 = 0.02;

/// MToon's `shadingToonyFactor` and `shadingShiftFactor` of a ramp.
#[must_use]
pub(crate) fn mtoon_toony_and_shift(ramp: &ToonRamp) -> (f32, f32) {
    if ramp.is_white() {
        // Nothing is shaded: the spec's default toony, no shift.
        return (0.9, 0.0);
    }
    (
        (1.0 - ramp.width).clamp(0.0, 1.0),
        (2.0 * ramp.centre - 1.0).clamp(-1.0, 1.0),
    )
}

/// The N·L where a ramp is fully in shadow and where it is fully lit (MToon's
/// `−1 + toony − shift` and `1 − toony − shift` for its [`mtoon_toony_and_shift`]).
#[must_use]
pub(crate) fn n_dot_l_range(ramp: &ToonRamp) -> (f32, f32) {
    let (toony, shift) = mtoon_toony_and_shift(ramp);
    (-1.0 + toony - shift, 1.0 - toony - shift)
}

/// The shared toon (0 = toon01) whose shadow colour is `dark` (the shade over the base colour,
/// sRGB; only the channels `compared` count) and whose range is `range`
/// ([`n_dot_l_range`]); `None` when none is.
#[must_use]
pub(crate) fn shared_toon_of(dark: [f32; 3], compared: [bool; 3], range: (f32, f32)) -> Option<u8> {
    if !compared.contains(&true) {
        return None;
    }
    (0..SHARED_TOONS.len() as u8).find(|&number| {
        let Some(ramp) = ToonRamp::shared(number) else {
            return false;
        };
        let (min, max) = n_dot_l_range(&ramp);
        let colour_matches =
            (0..3).all(|c| !compared[c] || (dark[c] - ramp.shadow[c]).abs() <= COLOUR_TOLERANCE);
        colour_matches
            && (range.0 - min).abs() <= RANGE_TOLERANCE
            && (range.1 - max).abs() <= RANGE_TOLERANCE
    })
}

/// Whether a shade over its base colour is white on the channels `compared`: the material has
/// no toon.
#[must_use]
pub(crate) fn is_untoned(dark: [f32; 3], compared: [bool; 3]) -> bool {
    (0..3).all(|c| !compared[c] || dark[c] >= 1.0 - COLOUR_TOLERANCE)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_shared_toon_comes_back_as_itself() {
        for number in 0..10u8 {
            let ramp = ToonRamp::shared(number).unwrap();
            let range = n_dot_l_range(&ramp);
            assert_eq!(
                shared_toon_of(ramp.shadow, [true; 3], range),
                Some(number),
                "toon{:02}",
                number + 1
            );
        }
    }

    #[test]
    fn other_shades_are_no_shared_toon() {
        let ramp = ToonRamp::shared(0).unwrap();
        let range = n_dot_l_range(&ramp);
        assert_eq!(shared_toon_of([0.5; 3], [true; 3], range), None);
        // toon01's colour with a soft range is not toon01.
        assert_eq!(shared_toon_of(ramp.shadow, [true; 3], (-0.5, 0.5)), None);
        // A black base compares nothing.
        assert_eq!(shared_toon_of(ramp.shadow, [false; 3], range), None);
    }

    #[test]
    fn ramps_become_toony_and_shift() {
        let ramp = ToonRamp {
            lit: [1.0; 3],
            shadow: [0.5; 3],
            centre: 0.75,
            width: 0.25,
        };
        assert_eq!(mtoon_toony_and_shift(&ramp), (0.75, 0.5));
        // Fully lit at N·L = 1 − 2c + w = −0.25, shaded at −0.75.
        assert_eq!(n_dot_l_range(&ramp), (-0.75, -0.25));
        assert_eq!(mtoon_toony_and_shift(&ToonRamp::WHITE), (0.9, 0.0));
        assert!(is_untoned([1.0, 0.995, 0.0], [true, true, false]));
        assert!(!is_untoned([1.0, 0.9, 1.0], [true; 3]));
    }
}
