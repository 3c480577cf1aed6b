//! The glTF JSON and its binary buffer, read by hand from `serde_json::Value`: every index,
//! offset and count is checked before it is used, so no content can make the reader panic
//! or allocate more than the file's bytes justify. Errors name the JSON path
//! (`accessors[3].bufferView`) and the byte offset (in the BIN chunk for data, the start of
//! the JSON chunk for JSON).
//!
//! Where three.js's GLTFLoader (what three-vrm reads with) reads a file whose numbers are off
//! but whose bytes are there, this reader does too, with a note in [`Gltf::notes`]: a buffer
//! view that runs past its buffer's declared `byteLength` into bytes the BIN chunk (or the
//! `uri`'s data) does have (GLTFLoader reads views from the whole chunk), a buffer without a
//! `byteLength` or declaring more than is there, and joints stored as floats.

use crate::formats::{LoadLimits, LoadNote, Location, ReadError};
use crate::i18n::Message;
use serde_json::Value;
use std::cell::RefCell;

/// A parsed glTF: its JSON, the GLB's BIN chunk and where both are in the file.
#[derive(Debug)]
pub(super) struct Gltf<'a> {
    pub json: Value,
    pub bin: Option<&'a [u8]>,
    pub bin_offset: usize,
    pub json_offset: usize,
    pub file_len: usize,
    pub limits: LoadLimits,
    /// The data of each buffer that has a `uri` (a text `.gltf`), by buffer index: `None`
    /// for buffers in the BIN chunk.
    pub external: &'a [Option<super::external::Resolved>],
    /// The folder of the file, where relative `uri`s (images of a text `.gltf`) are found.
    pub base_dir: Option<&'a std::path::Path>,
    /// What was read leniently while reading accessors (see the module documentation).
    pub notes: RefCell<Vec<LoadNote>>,
}

/// An accessor's elements, `components` values each, in one flat list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Elements<T> {
    pub components: usize,
    pub values: Vec<T>,
}

impl<T: Copy> Elements<T> {
    pub fn count(&self) -> usize {
        self.values.len().checked_div(self.components).unwrap_or(0)
    }

    pub fn get(&self, index: usize) -> &[T] {
        let start = index * self.components;
        self.values
            .get(start..start + self.components)
            .unwrap_or(&[])
    }
}

/// A component type (`componentType`) as the spec numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Component {
    I8,
    U8,
    I16,
    U16,
    U32,
    F32,
}

impl Component {
    fn from_code(code: u64) -> Option<Self> {
        Some(match code {
            5120 => Component::I8,
            5121 => Component::U8,
            5122 => Component::I16,
            5123 => Component::U16,
            5125 => Component::U32,
            5126 => Component::F32,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Component::I8 | Component::U8 => 1,
            Component::I16 | Component::U16 => 2,
            Component::U32 | Component::F32 => 4,
        }
    }

    /// The value at the start of `bytes` as a float: normalised integers by the spec's
    /// formulas (`max(c / 127, −1)` ...), others as they are (KHR_mesh_quantization).
    fn to_f32(self, bytes: &[u8], normalized: bool) -> f32 {
        let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
        match self {
            Component::I8 => {
                let value = f32::from(b(0) as i8);
                if normalized {
                    (value / 127.0).max(-1.0)
                } else {
                    value
                }
            }
            Component::U8 => {
                let value = f32::from(b(0));
                if normalized { value / 255.0 } else { value }
            }
            Component::I16 => {
                let value = f32::from(i16::from_le_bytes([b(0), b(1)]));
                if normalized {
                    (value / 32767.0).max(-1.0)
                } else {
                    value
                }
            }
            Component::U16 => {
                let value = f32::from(u16::from_le_bytes([b(0), b(1)]));
                if normalized { value / 65535.0 } else { value }
            }
            Component::U32 => {
                let value = u32::from_le_bytes([b(0), b(1), b(2), b(3)]) as f32;
                if normalized {
                    value / u32::MAX as f32
                } else {
                    value
                }
            }
            Component::F32 => f32::from_le_bytes([b(0), b(1), b(2), b(3)]),
        }
    }

    fn to_u32(self, bytes: &[u8]) -> Option<u32> {
        let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
        match self {
            Component::U8 => Some(u32::from(b(0))),
            Component::U16 => Some(u32::from(u16::from_le_bytes([b(0), b(1)]))),
            Component::U32 => Some(u32::from_le_bytes([b(0), b(1), b(2), b(3)])),
            _ => None,
        }
    }
}

fn components_of(kind: &str) -> Option<usize> {
    Some(match kind {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => return None,
    })
}

/// What a caller wants from an accessor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// Numbers: floats, or integers (normalised when the accessor says so).
    Floats,
    /// Unsigned integers (indices, joints).
    Integers,
}

/// Where a slice of the buffer is: the bytes and their offset in the file.
struct Span<'a> {
    bytes: &'a [u8],
    file_offset: usize,
    stride: usize,
}

impl<'a> Gltf<'a> {
    /// A location in the JSON: `section[element].field`, at the JSON chunk's offset.
    pub fn at(
        &self,
        section: &'static str,
        element: Option<usize>,
        field: &'static str,
    ) -> Location {
        Location {
            section,
            element,
            sub: None,
            field,
            offset: self.json_offset,
        }
    }

    pub fn malformed(
        &self,
        section: &'static str,
        element: Option<usize>,
        field: &'static str,
        message: Message,
    ) -> ReadError {
        ReadError::Malformed {
            location: self.at(section, element, field),
            message,
        }
    }

    /// A top-level list (`nodes`, `accessors`, ...): empty when absent.
    pub fn list(&self, name: &'static str) -> Result<&[Value], ReadError> {
        match self.json.get(name) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(_) => Err(self.malformed(name, None, "", Message::new("load.gltf.not_array"))),
        }
    }

    /// Element `index` of top-level list `name`, or an error naming the referring site.
    pub fn item(
        &self,
        name: &'static str,
        index: usize,
        from: (&'static str, Option<usize>, &'static str),
    ) -> Result<&Value, ReadError> {
        let items = self.list(name)?;
        items.get(index).ok_or_else(|| {
            self.malformed(
                from.0,
                from.1,
                from.2,
                Message::new("load.gltf.no_such_item")
                    .arg("item", format!("{name}[{index}]"))
                    .arg("count", items.len()),
            )
        })
    }

    /// An optional non-negative integer field.
    pub fn index_field(
        &self,
        object: &Value,
        key: &str,
        site: (&'static str, Option<usize>, &'static str),
    ) -> Result<Option<usize>, ReadError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .and_then(|v| usize::try_from(v).ok())
                .map(Some)
                .ok_or_else(|| {
                    self.malformed(
                        site.0,
                        site.1,
                        site.2,
                        Message::new("load.gltf.not_index")
                            .arg("key", key)
                            .arg("value", value.to_string()),
                    )
                }),
        }
    }

    /// The data of buffer `index`: all of it, whatever its `byteLength` says (GLTFLoader reads
    /// views from the whole BIN chunk or fetched `uri`); [`Gltf::buffer_notes`] lists where
    /// the declared length and the views disagree.
    fn buffer_bytes(
        &self,
        index: usize,
        from: (&'static str, Option<usize>, &'static str),
    ) -> Result<&'a [u8], ReadError> {
        let buffer = self.item("buffers", index, from)?;
        if buffer.get("uri").and_then(Value::as_str).is_some() {
            let external: &'a [Option<super::external::Resolved>] = self.external;
            return match external.get(index) {
                Some(Some(Ok(bytes))) => Ok(bytes.as_slice()),
                Some(Some(Err(why))) => {
                    Err(self.malformed("buffers", Some(index), "uri", why.clone()))
                }
                _ => Err(self.malformed(
                    "buffers",
                    Some(index),
                    "uri",
                    Message::new("load.gltf.buffer_not_read"),
                )),
            };
        }
        self.bin.ok_or_else(|| {
            self.malformed(
                "buffers",
                Some(index),
                "",
                Message::new("load.gltf.no_bin_chunk"),
            )
        })
    }

    /// Notes on buffers whose declared `byteLength` is not what their views use: missing, more
    /// than the data holds, or less than views that the data does hold reach.
    pub fn buffer_notes(&self) -> Vec<LoadNote> {
        let mut notes = Vec::new();
        let (Ok(buffers), Ok(views)) = (self.list("buffers"), self.list("bufferViews")) else {
            return notes;
        };
        let note = |field: &'static str, index: usize, message: Message| LoadNote {
            location: self.at("buffers", Some(index), field),
            message,
            lost: false,
        };
        for (index, buffer) in buffers.iter().enumerate() {
            let Ok(data) = self.buffer_bytes(index, ("buffers", Some(index), "")) else {
                continue;
            };
            let available = data.len();
            let holder = if buffer.get("uri").is_some() {
                "load.vrm.word.uri_data"
            } else {
                "load.vrm.word.bin_chunk"
            };
            let Some(declared) = buffer
                .get("byteLength")
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
            else {
                notes.push(note(
                    "byteLength",
                    index,
                    Message::new("load.vrm.buffer_no_length")
                        .arg("available", available)
                        .word("holder", holder),
                ));
                continue;
            };
            if declared > available {
                notes.push(note(
                    "byteLength",
                    index,
                    Message::new("load.vrm.buffer_length_over")
                        .arg("declared", declared)
                        .arg("available", available)
                        .word("holder", holder),
                ));
            }
            let past: Vec<String> = views
                .iter()
                .enumerate()
                .filter(|(_, view)| {
                    view.get("buffer").and_then(Value::as_u64) == Some(index as u64)
                })
                .filter_map(|(view_index, view)| {
                    let field = |key: &str| {
                        view.get(key)
                            .and_then(Value::as_u64)
                            .and_then(|n| usize::try_from(n).ok())
                    };
                    let end = field("byteOffset")
                        .unwrap_or(0)
                        .checked_add(field("byteLength")?)?;
                    (end > declared && end <= available)
                        .then(|| format!("bufferViews[{view_index}] (+{})", end - declared))
                })
                .collect();
            if !past.is_empty() {
                notes.push(note(
                    "byteLength",
                    index,
                    Message::new("load.vrm.views_past_length")
                        .arg("views", past.join(", "))
                        .arg("declared", declared)
                        .arg("available", available)
                        .word("holder", holder),
                ));
            }
        }
        notes
    }

    /// The bytes of buffer view `view_index` from `offset` on, checked to hold `count`
    /// elements of `element_size` bytes each at the view's stride.
    fn view_span(
        &self,
        view_index: usize,
        offset: usize,
        count: usize,
        element_size: usize,
        from: (&'static str, Option<usize>, &'static str),
    ) -> Result<Span<'a>, ReadError> {
        let view = self.item("bufferViews", view_index, from)?;
        let site = ("bufferViews", Some(view_index), "");
        let buffer_index = self
            .index_field(view, "buffer", ("bufferViews", Some(view_index), "buffer"))?
            .ok_or_else(|| {
                self.malformed(site.0, site.1, "buffer", Message::new("load.gltf.missing"))
            })?;
        let buffer =
            self.buffer_bytes(buffer_index, ("bufferViews", Some(view_index), "buffer"))?;
        let view_offset = self
            .index_field(
                view,
                "byteOffset",
                ("bufferViews", Some(view_index), "byteOffset"),
            )?
            .unwrap_or(0);
        let view_length = self
            .index_field(
                view,
                "byteLength",
                ("bufferViews", Some(view_index), "byteLength"),
            )?
            .unwrap_or(0);
        let stride = self
            .index_field(
                view,
                "byteStride",
                ("bufferViews", Some(view_index), "byteStride"),
            )?
            .unwrap_or(element_size);
        let view_end = view_offset
            .checked_add(view_length)
            .filter(|&end| end <= buffer.len())
            .ok_or_else(|| ReadError::Malformed {
                location: Location {
                    offset: self.bin_offset.saturating_add(view_offset),
                    ..self.at("bufferViews", Some(view_index), "byteLength")
                },
                message: Message::new("load.gltf.view_past_buffer")
                    .arg("offset", view_offset)
                    .arg("length", view_length)
                    .arg("buffer", buffer_index)
                    .arg("size", buffer.len()),
            })?;
        if stride < element_size {
            return Err(self.malformed(
                "bufferViews",
                Some(view_index),
                "byteStride",
                Message::new("load.gltf.stride_too_small")
                    .arg("stride", stride)
                    .arg("size", element_size),
            ));
        }
        let view_bytes = &buffer[view_offset..view_end];
        let needed = if count == 0 {
            Some(0)
        } else {
            stride
                .checked_mul(count - 1)
                .and_then(|n| n.checked_add(element_size))
        };
        let fits = needed
            .and_then(|n| n.checked_add(offset))
            .is_some_and(|end| end <= view_bytes.len());
        if !fits {
            return Err(ReadError::Malformed {
                location: Location {
                    offset: self.bin_offset + view_offset,
                    ..self.at(from.0, from.1, from.2)
                },
                message: Message::new("load.gltf.elements_past_view")
                    .arg("count", count)
                    .arg("size", element_size)
                    .arg("stride", stride)
                    .arg("offset", offset)
                    .arg("view", format!("bufferViews[{view_index}]"))
                    .arg("length", view_bytes.len()),
            });
        }
        Ok(Span {
            bytes: &view_bytes[offset..],
            file_offset: self.bin_offset + view_offset + offset,
            stride,
        })
    }

    /// The whole of buffer view `view` (an embedded image).
    pub fn view_bytes(
        &self,
        view: usize,
        from: (&'static str, Option<usize>, &'static str),
    ) -> Result<&'a [u8], ReadError> {
        let value = self.item("bufferViews", view, from)?;
        let length = self
            .index_field(
                value,
                "byteLength",
                ("bufferViews", Some(view), "byteLength"),
            )?
            .unwrap_or(0);
        let span = self.view_span(view, 0, 1, length, from)?;
        Ok(&span.bytes[..length])
    }

    /// Reads accessor `index` (with its sparse substitution), checked end to end.
    pub fn floats(&self, index: usize) -> Result<Elements<f32>, ReadError> {
        let (components, raw) = self.read(index, Want::Floats)?;
        Ok(Elements {
            components,
            values: raw
                .into_iter()
                .map(|v| match v {
                    Raw::F(f) => f,
                    Raw::U(u) => u as f32,
                })
                .collect(),
        })
    }

    /// Reads accessor `index` as unsigned integers (indices, joints).
    pub fn integers(&self, index: usize) -> Result<Elements<u32>, ReadError> {
        let (components, raw) = self.read(index, Want::Integers)?;
        Ok(Elements {
            components,
            values: raw
                .into_iter()
                .map(|v| match v {
                    Raw::U(u) => u,
                    Raw::F(f) => f as u32,
                })
                .collect(),
        })
    }

    /// The `count` an accessor declares (for checking before reading).
    pub fn accessor_count(
        &self,
        index: usize,
        from: (&'static str, Option<usize>, &'static str),
    ) -> Result<usize, ReadError> {
        let accessor = self.item("accessors", index, from)?;
        Ok(self
            .index_field(accessor, "count", ("accessors", Some(index), "count"))?
            .unwrap_or(0))
    }

    fn read(&self, index: usize, want: Want) -> Result<(usize, Vec<Raw>), ReadError> {
        let here = ("accessors", Some(index), "");
        let accessor = self.item("accessors", index, here)?;
        let code = accessor
            .get("componentType")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let component = Component::from_code(code).ok_or_else(|| {
            self.malformed(
                "accessors",
                Some(index),
                "componentType",
                Message::new("load.gltf.unknown_component_type").arg("code", code),
            )
        })?;
        if want == Want::Integers
            && matches!(component, Component::F32 | Component::I8 | Component::I16)
        {
            // GLTFLoader takes any component type as a joint or index list; whole numbers
            // stored as floats or signed integers are what some writers produce.
            self.notes.borrow_mut().push(LoadNote {
                location: self.at("accessors", Some(index), "componentType"),
                message: Message::new("load.vrm.integers_as_other_type").arg("code", code),
                lost: false,
            });
        }
        let kind = accessor.get("type").and_then(Value::as_str).unwrap_or("");
        let components = components_of(kind).ok_or_else(|| {
            self.malformed(
                "accessors",
                Some(index),
                "type",
                Message::new("load.gltf.unknown_accessor_type").arg("kind", kind),
            )
        })?;
        if kind.starts_with("MAT") && component != Component::F32 {
            // Matrices of bytes and shorts pad their columns; nothing VRM uses needs them.
            return Err(ReadError::Unsupported {
                location: self.at("accessors", Some(index), "type"),
                message: Message::new("load.gltf.integer_matrix").arg("kind", kind),
            });
        }
        let normalized = accessor
            .get("normalized")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let count = self
            .index_field(accessor, "count", ("accessors", Some(index), "count"))?
            .unwrap_or(0);
        if count > self.limits.max_elements {
            return Err(ReadError::LimitExceeded {
                location: self.at("accessors", Some(index), "count"),
                message: Message::new("load.bytes.count_over_limit")
                    .arg("count", count)
                    .arg("limit", self.limits.max_elements),
            });
        }
        let element_size = components * component.size();
        let decode = |bytes: &[u8]| -> Raw {
            match want {
                Want::Floats => Raw::F(component.to_f32(bytes, normalized)),
                Want::Integers => Raw::U(component.to_u32(bytes).unwrap_or_else(|| {
                    let value = component.to_f32(bytes, false);
                    if value.is_finite() && value > 0.0 {
                        value as u32
                    } else {
                        0
                    }
                })),
            }
        };
        let mut values = match self.index_field(
            accessor,
            "bufferView",
            ("accessors", Some(index), "bufferView"),
        )? {
            Some(view) => {
                let offset = self
                    .index_field(
                        accessor,
                        "byteOffset",
                        ("accessors", Some(index), "byteOffset"),
                    )?
                    .unwrap_or(0);
                let span = self.view_span(
                    view,
                    offset,
                    count,
                    element_size,
                    ("accessors", Some(index), "bufferView"),
                )?;
                let _ = span.file_offset;
                let mut values = Vec::with_capacity(count * components);
                for element in 0..count {
                    let start = element * span.stride;
                    for c in 0..components {
                        let at = start + c * component.size();
                        values.push(decode(&span.bytes[at..at + component.size()]));
                    }
                }
                values
            }
            None => {
                // No data: zeros (usually replaced by a sparse list). Nothing in the file
                // bounds the count, so it is held to the file's size: a morph target of N
                // vertices sits next to a POSITION list of N × 12 bytes.
                let bytes = count.saturating_mul(element_size);
                if bytes > self.file_len.saturating_mul(4).saturating_add(4096) {
                    return Err(ReadError::LimitExceeded {
                        location: self.at("accessors", Some(index), "count"),
                        message: Message::new("load.gltf.no_view_too_big")
                            .arg("count", count)
                            .arg("bytes", bytes)
                            .arg("file", self.file_len),
                    });
                }
                vec![
                    match want {
                        Want::Floats => Raw::F(0.0),
                        Want::Integers => Raw::U(0),
                    };
                    count * components
                ]
            }
        };
        if let Some(sparse) = accessor.get("sparse") {
            self.apply_sparse(
                index,
                sparse,
                count,
                components,
                element_size,
                &decode,
                &mut values,
            )?;
        }
        Ok((components, values))
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_sparse(
        &self,
        index: usize,
        sparse: &Value,
        count: usize,
        components: usize,
        element_size: usize,
        decode: &dyn Fn(&[u8]) -> Raw,
        values: &mut [Raw],
    ) -> Result<(), ReadError> {
        let site = ("accessors", Some(index), "sparse");
        let sparse_count = self.index_field(sparse, "count", site)?.unwrap_or(0);
        if sparse_count > count {
            return Err(self.malformed(
                site.0,
                site.1,
                "sparse.count",
                Message::new("load.gltf.sparse_count")
                    .arg("sparse", sparse_count)
                    .arg("count", count),
            ));
        }
        let (Some(indices), Some(sparse_values)) = (sparse.get("indices"), sparse.get("values"))
        else {
            return Err(self.malformed(
                site.0,
                site.1,
                "sparse",
                Message::new("load.gltf.sparse_parts"),
            ));
        };
        let index_code = indices
            .get("componentType")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let index_component = Component::from_code(index_code)
            .filter(|c| matches!(c, Component::U8 | Component::U16 | Component::U32))
            .ok_or_else(|| {
                self.malformed(
                    site.0,
                    site.1,
                    "sparse.indices.componentType",
                    Message::new("load.gltf.sparse_index_type").arg("code", index_code),
                )
            })?;
        let index_view = self
            .index_field(
                indices,
                "bufferView",
                ("accessors", Some(index), "sparse.indices.bufferView"),
            )?
            .ok_or_else(|| {
                self.malformed(
                    site.0,
                    site.1,
                    "sparse.indices.bufferView",
                    Message::new("load.gltf.missing"),
                )
            })?;
        let index_offset = self
            .index_field(
                indices,
                "byteOffset",
                ("accessors", Some(index), "sparse.indices.byteOffset"),
            )?
            .unwrap_or(0);
        let value_view = self
            .index_field(
                sparse_values,
                "bufferView",
                ("accessors", Some(index), "sparse.values.bufferView"),
            )?
            .ok_or_else(|| {
                self.malformed(
                    site.0,
                    site.1,
                    "sparse.values.bufferView",
                    Message::new("load.gltf.missing"),
                )
            })?;
        let value_offset = self
            .index_field(
                sparse_values,
                "byteOffset",
                ("accessors", Some(index), "sparse.values.byteOffset"),
            )?
            .unwrap_or(0);
        // Sparse data is tightly packed (no byteStride).
        let index_span = self.view_span(
            index_view,
            index_offset,
            sparse_count,
            index_component.size(),
            ("accessors", Some(index), "sparse.indices"),
        )?;
        let value_span = self.view_span(
            value_view,
            value_offset,
            sparse_count,
            element_size,
            ("accessors", Some(index), "sparse.values"),
        )?;
        let component_size = element_size / components.max(1);
        for k in 0..sparse_count {
            let at = k * index_component.size();
            let target = index_component
                .to_u32(&index_bytes(&index_span, at, index_component.size()))
                .unwrap_or(u32::MAX) as usize;
            if target >= count {
                return Err(ReadError::Malformed {
                    location: Location {
                        offset: index_span.file_offset + at,
                        ..self.at("accessors", Some(index), "sparse.indices")
                    },
                    message: Message::new("load.gltf.sparse_index_past")
                        .arg("index", target)
                        .arg("count", count),
                });
            }
            for c in 0..components {
                let from = k * element_size + c * component_size;
                values[target * components + c] =
                    decode(&value_span.bytes[from..from + component_size]);
            }
        }
        Ok(())
    }
}

fn index_bytes(span: &Span<'_>, at: usize, size: usize) -> Vec<u8> {
    span.bytes
        .get(at..at + size)
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Raw {
    F(f32),
    U(u32),
}

/// Reads a JSON number list of exactly `N` finite numbers.
pub(super) fn numbers<const N: usize>(value: Option<&Value>) -> Option<[f32; N]> {
    let items = value?.as_array()?;
    if items.len() != N {
        return None;
    }
    let mut out = [0.0; N];
    for (slot, item) in out.iter_mut().zip(items) {
        let number = item.as_f64()? as f32;
        if !number.is_finite() {
            return None;
        }
        *slot = number;
    }
    Some(out)
}
