//! The glTF document being written and its binary buffer, packed as GLB at the end.

use crate::formats::WriteError;
use crate::formats::bytes::{PutLe, u32_at};
use gltf_json as json;
use json::accessor::{ComponentType, GenericComponentType, IndexComponentType, Type};
use json::validation::{Checked, USize64};
use json::{Index, buffer};

/// A glTF root under construction plus the bytes of its one buffer.
#[derive(Debug, Default)]
pub(super) struct Builder {
    pub root: json::Root,
    pub bin: Vec<u8>,
}

fn view_target(target: Option<buffer::Target>) -> Option<Checked<buffer::Target>> {
    target.map(Checked::Valid)
}

impl Builder {
    /// Appends `bytes` as a new buffer view, 4-byte aligned (every accessor component type
    /// the writer uses is at most 4 bytes, and images do not care).
    pub fn view(&mut self, bytes: &[u8], target: Option<buffer::Target>) -> Index<buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: view_target(target),
            extensions: None,
            extras: Default::default(),
        })
    }

    fn accessor(
        &mut self,
        view: Option<Index<buffer::View>>,
        count: usize,
        component: ComponentType,
        type_: Type,
        min_max: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<json::Accessor> {
        let (min, max) = match min_max {
            Some((min, max)) => (Some(min), Some(max)),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: view,
            byte_offset: view.map(|_| USize64(0)),
            count: USize64::from(count),
            component_type: Checked::Valid(GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Checked::Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A float vector accessor (VEC2/VEC3/VEC4/MAT4 by `type_`), with min/max when asked
    /// (POSITION must have them).
    pub fn floats<const N: usize>(
        &mut self,
        values: &[[f32; N]],
        type_: Type,
        target: Option<buffer::Target>,
        with_bounds: bool,
    ) -> Index<json::Accessor> {
        let mut bytes = Vec::with_capacity(values.len() * N * 4);
        for value in values {
            bytes.put_f32s(value);
        }
        let view = self.view(&bytes, target);
        let bounds = with_bounds.then(|| bounds(values));
        self.accessor(Some(view), values.len(), ComponentType::F32, type_, bounds)
    }

    /// Triangle indices, u16 when every index fits below the u16 primitive-restart value.
    pub fn indices(&mut self, indices: &[u32], vertex_count: usize) -> Index<json::Accessor> {
        let mut bytes = Vec::with_capacity(indices.len() * 4);
        let component = if vertex_count <= 0xFFFF {
            for &index in indices {
                bytes.put_u16(index as u16);
            }
            ComponentType::U16
        } else {
            for &index in indices {
                bytes.put_u32(index);
            }
            ComponentType::U32
        };
        let view = self.view(&bytes, Some(buffer::Target::ElementArrayBuffer));
        self.accessor(Some(view), indices.len(), component, Type::Scalar, None)
    }

    /// JOINTS_0: u8 when the skin has at most 256 joints, else u16.
    pub fn joints(&mut self, joints: &[[u16; 4]], joint_count: usize) -> Index<json::Accessor> {
        let mut bytes = Vec::with_capacity(joints.len() * 8);
        let component = if joint_count <= 256 {
            for &joint in joints.iter().flatten() {
                bytes.put_u8(joint as u8);
            }
            ComponentType::U8
        } else {
            for &joint in joints.iter().flatten() {
                bytes.put_u16(joint);
            }
            ComponentType::U16
        };
        let view = self.view(&bytes, Some(buffer::Target::ArrayBuffer));
        self.accessor(Some(view), joints.len(), component, Type::Vec4, None)
    }

    /// A VEC3 morph target accessor of `count` elements, zero except at `entries` (sorted by
    /// index): sparse, so a morph that moves 40 vertices of a 20,000-vertex primitive stores
    /// 40 values. POSITION targets need their bounds, which include the zeros.
    pub fn sparse_vec3(
        &mut self,
        count: usize,
        entries: &[(u32, [f32; 3])],
        with_bounds: bool,
    ) -> Index<json::Accessor> {
        let mut bounds_min = [f32::INFINITY; 3];
        let mut bounds_max = [f32::NEG_INFINITY; 3];
        for (_, value) in entries {
            for axis in 0..3 {
                bounds_min[axis] = bounds_min[axis].min(value[axis]);
                bounds_max[axis] = bounds_max[axis].max(value[axis]);
            }
        }
        if entries.len() < count || entries.is_empty() {
            // The untouched vertices are zeros, which the bounds must include.
            for axis in 0..3 {
                bounds_min[axis] = bounds_min[axis].min(0.0);
                bounds_max[axis] = bounds_max[axis].max(0.0);
            }
        }
        let bounds = with_bounds.then(|| {
            (
                serde_json::json!(bounds_min.map(f64::from)),
                serde_json::json!(bounds_max.map(f64::from)),
            )
        });
        let index = self.accessor(None, count, ComponentType::F32, Type::Vec3, bounds);
        if entries.is_empty() {
            return index;
        }
        let mut index_bytes = Vec::with_capacity(entries.len() * 4);
        let mut value_bytes = Vec::with_capacity(entries.len() * 12);
        for (index, value) in entries {
            index_bytes.put_u32(*index);
            value_bytes.put_f32s(value);
        }
        let indices_view = self.view(&index_bytes, None);
        let values_view = self.view(&value_bytes, None);
        if let Some(accessor) = self.root.accessors.get_mut(index.value()) {
            accessor.sparse = Some(json::accessor::sparse::Sparse {
                count: USize64::from(entries.len()),
                indices: json::accessor::sparse::Indices {
                    buffer_view: indices_view,
                    byte_offset: USize64(0),
                    component_type: Checked::Valid(IndexComponentType(ComponentType::U32)),
                    extensions: None,
                    extras: Default::default(),
                },
                values: json::accessor::sparse::Values {
                    buffer_view: values_view,
                    byte_offset: USize64(0),
                    extensions: None,
                    extras: Default::default(),
                },
                extensions: None,
                extras: Default::default(),
            });
        }
        index
    }

    /// The GLB: header, JSON chunk (space-padded), BIN chunk (zero-padded).
    pub fn finish(mut self) -> Result<Vec<u8>, WriteError> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        if !self.bin.is_empty() {
            self.root.buffers = vec![json::Buffer {
                byte_length: USize64::from(self.bin.len()),
                name: None,
                uri: None,
                extensions: None,
                extras: Default::default(),
            }];
        }
        let mut json_bytes =
            serde_json::to_vec(&self.root).map_err(|e| WriteError::Serialize(e.to_string()))?;
        while !json_bytes.len().is_multiple_of(4) {
            json_bytes.push(b' ');
        }
        let too_big = || WriteError::Unrepresentable {
            path: "glb".into(),
            message: "the file would be larger than 4 GiB, which GLB cannot address".into(),
        };
        let bin_chunk = if self.bin.is_empty() {
            0
        } else {
            8 + self.bin.len()
        };
        let total = u32::try_from(12 + 8 + json_bytes.len() + bin_chunk).map_err(|_| too_big())?;
        let json_len = u32::try_from(json_bytes.len()).map_err(|_| too_big())?;
        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(b"glTF");
        out.put_u32(2);
        out.put_u32(total);
        out.put_u32(json_len);
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json_bytes);
        if !self.bin.is_empty() {
            let bin_len = u32::try_from(self.bin.len()).map_err(|_| too_big())?;
            out.put_u32(bin_len);
            out.extend_from_slice(b"BIN\0");
            out.extend_from_slice(&self.bin);
        }
        Ok(out)
    }
}

/// Component-wise min and max as JSON arrays.
fn bounds<const N: usize>(values: &[[f32; N]]) -> (serde_json::Value, serde_json::Value) {
    let mut min = [f32::INFINITY; N];
    let mut max = [f32::NEG_INFINITY; N];
    for value in values {
        for axis in 0..N {
            min[axis] = min[axis].min(value[axis]);
            max[axis] = max[axis].max(value[axis]);
        }
    }
    if values.is_empty() {
        min = [0.0; N];
        max = [0.0; N];
    }
    (
        serde_json::Value::from(min.iter().map(|&v| f64::from(v)).collect::<Vec<_>>()),
        serde_json::Value::from(max.iter().map(|&v| f64::from(v)).collect::<Vec<_>>()),
    )
}

/// Splits a GLB into its JSON document and BIN chunk (for tests and the export dialog's
/// preview). `None` when the bytes are not a GLB this writer could have made.
#[must_use]
pub fn split_glb(bytes: &[u8]) -> Option<(serde_json::Value, &[u8])> {
    let word = |at: usize| u32_at(bytes, at);
    if bytes.get(0..4)? != b"glTF" {
        return None;
    }
    let json_len = word(12)? as usize;
    let json = serde_json::from_slice(bytes.get(20..20 + json_len)?).ok()?;
    let bin_start = 20 + json_len;
    let bin = match word(bin_start) {
        Some(len) => bytes.get(bin_start + 8..bin_start + 8 + len as usize)?,
        None => &[],
    };
    Some((json, bin))
}
