//! The weight display's colours, one per vertex (the 3D view shades them): one bone's weights
//! as a ramp, or every bone in its own colour, blended by the vertex's weights.
//!
//! On the ramp, three things that look alike as numbers are told apart: a vertex that holds
//! the bone at weight 0 (the ramp's blue), a vertex that does not hold the bone at all (a dim
//! slate: the "unweighted area" of that bone) and a vertex with no valid bone at all (magenta,
//! a broken weight).

use pmx_core::model::{Model, Weight};
use rayon::prelude::*;

/// Vertices per parallel task.
const CHUNK: usize = 16 * 1024;

/// A vertex that does not hold the shown bone.
pub const NOT_ON_BONE: [u8; 4] = [58, 64, 84, 255];
/// A vertex with no valid bone at all.
pub const NO_BONE: [u8; 4] = [220, 0, 220, 255];

/// What the weight display shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WeightDisplay {
    /// Bone `0`'s weights on the ramp.
    Bone(usize),
    /// Every bone in its own colour, mixed by weight.
    AllBones,
}

/// The ramp's colour for a weight (0 blue, 0.5 green, 1 red), clamped to 0..1.
#[must_use]
pub fn ramp_color(weight: f32) -> [u8; 4] {
    const COLD: [f32; 3] = [0.10, 0.20, 0.90];
    const MID: [f32; 3] = [0.10, 0.85, 0.20];
    const HOT: [f32; 3] = [0.95, 0.10, 0.10];
    let w = if weight.is_finite() {
        weight.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (a, b, t) = if w < 0.5 {
        (COLD, MID, w * 2.0)
    } else {
        (MID, HOT, w * 2.0 - 1.0)
    };
    let channel = |i: usize| ((a[i] + (b[i] - a[i]) * t) * 255.0).round() as u8;
    [channel(0), channel(1), channel(2), 255]
}

/// Bone `bone`'s own colour in the all-bones display: hues spread by the golden angle, so
/// neighbouring bones (a parent and its child) differ.
#[must_use]
pub fn bone_color(bone: usize) -> [u8; 4] {
    let hue = (bone as f32 * 0.618_034).fract() * 6.0;
    let (saturation, value) = (0.70, 0.95);
    let chroma = value * saturation;
    let x = chroma * (1.0 - ((hue % 2.0) - 1.0).abs());
    let (r, g, b) = match hue as u32 {
        0 => (chroma, x, 0.0),
        1 => (x, chroma, 0.0),
        2 => (0.0, chroma, x),
        3 => (0.0, x, chroma),
        4 => (x, 0.0, chroma),
        _ => (chroma, 0.0, x),
    };
    let m = value - chroma;
    let byte = |c: f32| ((c + m) * 255.0).round() as u8;
    [byte(r), byte(g), byte(b), 255]
}

/// The valid bones a weight holds with their weights (duplicates summed, invalid references and
/// non-finite weights left out).
fn held(weight: &Weight, bone_count: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
    weight
        .bones()
        .iter()
        .zip(weight_values(weight))
        .filter_map(move |(bone, w)| {
            let bone = bone.map(|b| b.get()).filter(|&b| b < bone_count)?;
            Some((bone, if w.is_finite() { w } else { 0.0 }))
        })
}

/// The weights of the slots [`Weight::bones`] lists, in the same order.
fn weight_values(weight: &Weight) -> [f32; 4] {
    match weight {
        Weight::Bdef1 { .. } => [1.0, 0.0, 0.0, 0.0],
        Weight::Bdef2 { weight, .. } | Weight::Sdef { weight, .. } => {
            [*weight, 1.0 - *weight, 0.0, 0.0]
        }
        Weight::Bdef4 { weights, .. } | Weight::Qdef { weights, .. } => *weights,
    }
}

/// One vertex's colour.
#[must_use]
pub fn vertex_color(weight: &Weight, display: WeightDisplay, bone_count: usize) -> [u8; 4] {
    if held(weight, bone_count).next().is_none() {
        return NO_BONE;
    }
    match display {
        WeightDisplay::Bone(bone) => {
            let mut holds = false;
            let mut total = 0.0;
            for (b, w) in held(weight, bone_count) {
                if b == bone {
                    holds = true;
                    total += w;
                }
            }
            if holds {
                ramp_color(total)
            } else {
                NOT_ON_BONE
            }
        }
        WeightDisplay::AllBones => {
            let mut mixed = [0.0f32; 3];
            let mut sum = 0.0;
            for (bone, w) in held(weight, bone_count) {
                let w = w.max(0.0);
                let color = bone_color(bone);
                for (channel, c) in mixed.iter_mut().zip(color) {
                    *channel += f32::from(c) * w;
                }
                sum += w;
            }
            if sum <= 0.0 {
                return NO_BONE;
            }
            let byte = |c: f32| (c / sum).round().clamp(0.0, 255.0) as u8;
            [byte(mixed[0]), byte(mixed[1]), byte(mixed[2]), 255]
        }
    }
}

/// Every vertex's colour, in vertex order.
#[must_use]
pub fn weight_colors(model: &Model, display: WeightDisplay) -> Vec<[u8; 4]> {
    let bone_count = model.bones.len();
    model
        .vertices
        .par_chunks(CHUNK)
        .flat_map_iter(|chunk| {
            chunk
                .iter()
                .map(move |v| vertex_color(&v.weight, display, bone_count))
        })
        .collect()
}

/// The colours of `vertices` (indices past the model's end get [`NO_BONE`]).
#[must_use]
pub fn weight_colors_of(model: &Model, display: WeightDisplay, vertices: &[u32]) -> Vec<[u8; 4]> {
    let bone_count = model.bones.len();
    vertices
        .iter()
        .map(|&v| {
            model.vertices.get(v as usize).map_or(NO_BONE, |vertex| {
                vertex_color(&vertex.weight, display, bone_count)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{Bone, BoneIdx, Vertex};

    fn bone(i: usize) -> Option<BoneIdx> {
        Some(BoneIdx::new(i))
    }

    #[test]
    fn zero_weight_not_on_the_bone_and_no_bone_differ() {
        let bones = 3;
        let zero = Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: 1.0,
        };
        let elsewhere = Weight::Bdef1 { bone: bone(2) };
        let broken = Weight::Bdef1 { bone: bone(7) };
        let on_ramp = vertex_color(&zero, WeightDisplay::Bone(1), bones);
        assert_eq!(on_ramp, ramp_color(0.0));
        assert_eq!(
            vertex_color(&elsewhere, WeightDisplay::Bone(1), bones),
            NOT_ON_BONE
        );
        assert_eq!(
            vertex_color(&broken, WeightDisplay::Bone(1), bones),
            NO_BONE
        );
        assert_ne!(on_ramp, NOT_ON_BONE);
        assert_eq!(
            vertex_color(&elsewhere, WeightDisplay::Bone(2), bones),
            ramp_color(1.0)
        );
    }

    #[test]
    fn all_bones_mix_by_weight() {
        let half = Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: 0.5,
        };
        let mixed = vertex_color(&half, WeightDisplay::AllBones, 2);
        let (a, b) = (bone_color(0), bone_color(1));
        for i in 0..3 {
            let expected = (f32::from(a[i]) + f32::from(b[i])) / 2.0;
            assert!((f32::from(mixed[i]) - expected).abs() <= 1.0);
        }
        assert_ne!(bone_color(0), bone_color(1));
    }

    #[test]
    fn colours_of_some_vertices_match_the_whole_list() {
        let mut model = Model {
            bones: vec![Bone::default(), Bone::default()],
            ..Model::default()
        };
        for i in 0..5 {
            model.vertices.push(Vertex {
                weight: Weight::Bdef2 {
                    bones: [bone(0), bone(1)],
                    weight: i as f32 / 4.0,
                },
                ..Vertex::default()
            });
        }
        let all = weight_colors(&model, WeightDisplay::Bone(0));
        let some = weight_colors_of(&model, WeightDisplay::Bone(0), &[1, 3, 9]);
        assert_eq!(some, vec![all[1], all[3], NO_BONE]);
        assert_eq!(all[4], ramp_color(1.0));
    }
}
