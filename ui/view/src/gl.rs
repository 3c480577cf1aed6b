//! The GL buffers the view owns, and the raw draw calls three-d has no safe wrapper for.
//!
//! three-d 0.19's `VertexBuffer::fill_subset(offset, data)` and `ElementBuffer::fill_subset`
//! hand `offset` to `glBufferSubData` unchanged, as a *byte* offset, while counting it as
//! *elements* for their own length: an update of vertex 1000 lands 1000 bytes into the buffer
//! (inside vertex 83, misaligned), and nothing can put it back. Their GL names are private, so
//! the mesh's buffers are owned here instead: [`GlBuffer::write`] takes the first *element* and
//! uploads at `first × size_of::<T>()` bytes, checked against the buffer's length. The mesh is
//! drawn through this module's own vertex array object ([`VertexArray`]), with the attribute
//! locations the shaders fix with `layout(location = ..)` ([`super::shaders`]).
// GL calls are unsafe in glow; every one here is a plain call on the current context with
// buffers this module created and lengths it checked.
#![allow(unsafe_code)]

use std::marker::PhantomData;
use std::ops::Range;
use three_d::context::{self, HasContext as _};

/// Why a buffer could not be made, written or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    #[error("elements {start}..{end} lie outside a buffer of {len}")]
    OutOfRange {
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("a buffer of {0} bytes is larger than OpenGL can address")]
    TooLarge(usize),
    #[error("OpenGL: {0}")]
    Gl(String),
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for u32 {}
    impl<const N: usize> Sealed for [f32; N] {}
    impl Sealed for [u8; 4] {}
    impl Sealed for [u32; 4] {}
}

/// What a [`GlBuffer`] holds: `f32`, `u32`, arrays of `f32` or RGBA8 colours (no padding,
/// every bit pattern valid, so they are their bytes).
pub trait GpuData: Copy + sealed::Sealed {
    /// Components per element (the attribute's size).
    const COMPONENTS: i32;
    /// The GL type of one component, as a vertex attribute.
    const COMPONENT_TYPE: u32 = context::FLOAT;
    /// Whether integer components reach the shader scaled to 0..=1.
    const NORMALIZED: bool = false;
    const ZERO: Self;
}

impl GpuData for f32 {
    const COMPONENTS: i32 = 1;
    const ZERO: Self = 0.0;
}

impl GpuData for u32 {
    const COMPONENTS: i32 = 1;
    const ZERO: Self = 0;
}

impl<const N: usize> GpuData for [f32; N] {
    const COMPONENTS: i32 = N as i32;
    const ZERO: Self = [0.0; N];
}

/// A colour per vertex: the shader reads a `vec4` in 0..=1.
impl GpuData for [u8; 4] {
    const COMPONENTS: i32 = 4;
    const COMPONENT_TYPE: u32 = context::UNSIGNED_BYTE;
    const NORMALIZED: bool = true;
    const ZERO: Self = [0; 4];
}

/// Four integers (a texture buffer's RGBA32UI texel; not a vertex attribute).
impl GpuData for [u32; 4] {
    const COMPONENTS: i32 = 4;
    const COMPONENT_TYPE: u32 = context::UNSIGNED_INT;
    const ZERO: Self = [0; 4];
}

fn bytes<T: GpuData>(data: &[T]) -> &[u8] {
    // SAFETY: GpuData is sealed to f32, u32, [f32; N], [u8; 4] and [u32; 4]: no padding, every byte initialised;
    // u8 has alignment 1 and the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

fn bytes_mut<T: GpuData>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `bytes`; any bytes written are a valid f32/u32.
    unsafe {
        std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(data))
    }
}

/// A GL buffer object of `T`s whose length is fixed when it is made.
pub struct GlBuffer<T: GpuData> {
    context: three_d::Context,
    id: context::Buffer,
    len: usize,
    _data: PhantomData<T>,
}

impl<T: GpuData> std::fmt::Debug for GlBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GlBuffer")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

/// Uploads and read-backs bind COPY_WRITE/COPY_READ_BUFFER: binding ELEMENT_ARRAY_BUFFER would
/// change the element buffer of whichever vertex array object is bound (egui's, three-d's).
const UPLOAD_TARGET: u32 = context::COPY_WRITE_BUFFER;
const READ_TARGET: u32 = context::COPY_READ_BUFFER;

impl<T: GpuData> GlBuffer<T> {
    /// A buffer holding `data`.
    pub fn new(context: &three_d::Context, data: &[T]) -> Result<Self, BufferError> {
        let size = std::mem::size_of_val(data);
        if i32::try_from(size).is_err() {
            return Err(BufferError::TooLarge(size));
        }
        // SAFETY: a new buffer name, bound to a target no vertex array object records, filled
        // with `data`'s bytes.
        let id = unsafe {
            let id = context.create_buffer().map_err(BufferError::Gl)?;
            context.bind_buffer(UPLOAD_TARGET, Some(id));
            // DYNAMIC_DRAW: edits and pose previews rewrite parts of it.
            context.buffer_data_u8_slice(UPLOAD_TARGET, bytes(data), context::DYNAMIC_DRAW);
            context.bind_buffer(UPLOAD_TARGET, None);
            id
        };
        Ok(Self {
            context: context.clone(),
            id,
            len: data.len(),
            _data: PhantomData,
        })
    }

    /// Elements in the buffer.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check(&self, range: &Range<usize>) -> Result<i32, BufferError> {
        if range.start > range.end || range.end > self.len {
            return Err(BufferError::OutOfRange {
                start: range.start,
                end: range.end,
                len: self.len,
            });
        }
        // The byte offset of element `start`: what glBufferSubData takes.
        let offset = range.start * std::mem::size_of::<T>();
        i32::try_from(offset).map_err(|_| BufferError::TooLarge(offset))
    }

    /// Replaces elements `first..first + data.len()` (the rest is kept).
    pub fn write(&mut self, first: usize, data: &[T]) -> Result<(), BufferError> {
        let end = first.saturating_add(data.len());
        let offset = self.check(&(first..end))?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: the range lies inside the buffer (checked above).
        unsafe {
            self.context.bind_buffer(UPLOAD_TARGET, Some(self.id));
            self.context
                .buffer_sub_data_u8_slice(UPLOAD_TARGET, offset, bytes(data));
            self.context.bind_buffer(UPLOAD_TARGET, None);
        }
        Ok(())
    }

    /// Reads elements `range` back from the GPU (tests; not on a frame's path).
    pub fn read(&self, range: Range<usize>) -> Result<Vec<T>, BufferError> {
        let offset = self.check(&range)?;
        let mut out = vec![T::ZERO; range.len()];
        if out.is_empty() {
            return Ok(out);
        }
        let dst = bytes_mut(&mut out);
        let size = dst.len() as i32;
        // SAFETY: the range lies inside the buffer; the mapping is `size` bytes long, copied
        // into `dst` (exactly that long) and unmapped before the buffer is unbound.
        unsafe {
            self.context.bind_buffer(READ_TARGET, Some(self.id));
            let mapped =
                self.context
                    .map_buffer_range(READ_TARGET, offset, size, context::MAP_READ_BIT);
            if mapped.is_null() {
                self.context.bind_buffer(READ_TARGET, None);
                return Err(BufferError::Gl(format!(
                    "glMapBufferRange failed (error {:#x})",
                    self.context.get_error()
                )));
            }
            std::ptr::copy_nonoverlapping(mapped, dst.as_mut_ptr(), dst.len());
            self.context.unmap_buffer(READ_TARGET);
            self.context.bind_buffer(READ_TARGET, None);
        }
        Ok(out)
    }

    /// The buffer as a vertex attribute.
    #[must_use]
    pub fn attribute(&self, location: u32) -> Attribute {
        Attribute {
            location,
            buffer: self.id,
            components: T::COMPONENTS,
            component_type: T::COMPONENT_TYPE,
            normalized: T::NORMALIZED,
        }
    }
}

impl<T: GpuData> Drop for GlBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: the buffer was created on this context and is not used after this.
        unsafe { self.context.delete_buffer(self.id) }
    }
}

/// A float attribute: `components` per vertex from `buffer` (floats, or bytes the shader
/// reads normalised), read by the shader at `location`.
#[derive(Debug, Clone, Copy)]
pub struct Attribute {
    pub location: u32,
    buffer: context::Buffer,
    components: i32,
    component_type: u32,
    normalized: bool,
}

/// The vertex array object the mesh is drawn with.
pub struct VertexArray {
    context: three_d::Context,
    id: context::VertexArray,
}

impl std::fmt::Debug for VertexArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VertexArray").finish_non_exhaustive()
    }
}

/// Locations the mesh's attributes may use (every one is switched off before a binding).
pub const MAX_LOCATIONS: u32 = 8;

impl VertexArray {
    pub fn new(context: &three_d::Context) -> Result<Self, BufferError> {
        // SAFETY: a plain object creation.
        let id = unsafe { context.create_vertex_array() }.map_err(BufferError::Gl)?;
        Ok(Self {
            context: context.clone(),
            id,
        })
    }

    /// Binds this vertex array with exactly `attributes` switched on and `elements` as its
    /// element buffer. Call inside three-d's `Program::draw_with`, which unbinds it afterwards.
    pub fn bind(&self, attributes: &[Attribute], elements: Option<&GlBuffer<u32>>) {
        // SAFETY: binds objects of this context; each pointer is at offset 0 of its buffer,
        // which holds a whole number of vertices of `components` components.
        unsafe {
            let gl = &self.context;
            gl.bind_vertex_array(Some(self.id));
            for location in 0..MAX_LOCATIONS {
                gl.disable_vertex_attrib_array(location);
            }
            for attribute in attributes {
                gl.bind_buffer(context::ARRAY_BUFFER, Some(attribute.buffer));
                gl.enable_vertex_attrib_array(attribute.location);
                gl.vertex_attrib_pointer_f32(
                    attribute.location,
                    attribute.components,
                    attribute.component_type,
                    attribute.normalized,
                    0,
                    0,
                );
            }
            gl.bind_buffer(context::ARRAY_BUFFER, None);
            gl.bind_buffer(context::ELEMENT_ARRAY_BUFFER, elements.map(|e| e.id));
        }
    }
}

impl Drop for VertexArray {
    fn drop(&mut self) {
        // SAFETY: created on this context, not used after this.
        unsafe { self.context.delete_vertex_array(self.id) }
    }
}

/// Draws `count` indices from `first` of the bound element buffer as `mode`.
pub fn draw_elements(gl: &three_d::Context, mode: u32, first: u32, count: u32) {
    // SAFETY: called inside Program::draw_with after VertexArray::bind bound the element
    // buffer; first + count lie inside it (the callers check against its length). The offset
    // is in bytes: 4 per u32 index.
    unsafe {
        gl.draw_elements(mode, count as i32, context::UNSIGNED_INT, first as i32 * 4);
    }
}

pub fn draw_arrays(gl: &three_d::Context, mode: u32, count: u32) {
    // SAFETY: called inside Program::draw_with with the attributes bound; count is their
    // length.
    unsafe {
        gl.draw_arrays(mode, 0, count as i32);
    }
}

/// Lets the vertex shader set the point size (core profile).
pub fn enable_point_size(gl: &three_d::Context) {
    // SAFETY: a plain state change on the current context.
    unsafe {
        if !gl.version().is_embedded {
            gl.enable(context::PROGRAM_POINT_SIZE);
        }
    }
}

pub const POINTS: u32 = context::POINTS;
pub const LINES: u32 = context::LINES;
pub const TRIANGLES: u32 = context::TRIANGLES;

/// A [`GlBuffer`] the shaders read as a texture buffer (`samplerBuffer`, `usamplerBuffer`):
/// the skinning data and the pose's palette.
pub struct BufferTexture<T: GpuData> {
    buffer: GlBuffer<T>,
    texture: context::Texture,
}

impl<T: GpuData> std::fmt::Debug for BufferTexture<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferTexture")
            .field("len", &self.buffer.len)
            .finish_non_exhaustive()
    }
}

/// Texture formats of buffer textures.
pub const RGBA32F: u32 = context::RGBA32F;
pub const RGBA32UI: u32 = context::RGBA32UI;
pub const R32F: u32 = context::R32F;

/// The most texels a texture buffer holds on `context` (`GL_MAX_TEXTURE_BUFFER_SIZE`: at least
/// 65,536 in OpenGL 3.3; Mesa and the desktop drivers give 2^27 or more).
pub fn max_texture_buffer_texels(context: &three_d::Context) -> usize {
    // SAFETY: a query of a limit on the current context.
    let max = unsafe { context.get_parameter_i32(context::MAX_TEXTURE_BUFFER_SIZE) };
    usize::try_from(max).unwrap_or(0)
}

impl<T: GpuData> BufferTexture<T> {
    /// A texture buffer of `data` read as `format` (one texel per element; an empty list
    /// holds one zero element, as GL wants storage behind the texture).
    pub fn new(context: &three_d::Context, data: &[T], format: u32) -> Result<Self, BufferError> {
        if data.len() > max_texture_buffer_texels(context) {
            return Err(BufferError::TooLarge(std::mem::size_of_val(data)));
        }
        let buffer = if data.is_empty() {
            GlBuffer::new(context, &[T::ZERO])?
        } else {
            GlBuffer::new(context, data)?
        };
        // SAFETY: a new texture name bound to TEXTURE_BUFFER on the active unit, given the
        // buffer made above, and unbound.
        let texture = unsafe {
            let texture = context.create_texture().map_err(BufferError::Gl)?;
            context.bind_texture(context::TEXTURE_BUFFER, Some(texture));
            context.tex_buffer(context::TEXTURE_BUFFER, format, Some(buffer.id));
            context.bind_texture(context::TEXTURE_BUFFER, None);
            texture
        };
        Ok(Self { buffer, texture })
    }

    /// Elements in the buffer.
    #[must_use]
    pub fn len(&self) -> usize {
        self.buffer.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Replaces elements `first..first + data.len()`.
    pub fn write(&mut self, first: usize, data: &[T]) -> Result<(), BufferError> {
        self.buffer.write(first, data)
    }

    /// Reads elements `range` back (tests).
    pub fn read(&self, range: Range<usize>) -> Result<Vec<T>, BufferError> {
        self.buffer.read(range)
    }

    /// Binds the texture to texture unit `unit`, leaving unit 0 active.
    pub fn bind(&self, unit: u32) {
        let gl = &self.buffer.context;
        // SAFETY: binds a texture of this context; the active unit goes back to 0, where
        // three-d and egui expect it.
        unsafe {
            gl.active_texture(context::TEXTURE0 + unit);
            gl.bind_texture(context::TEXTURE_BUFFER, Some(self.texture));
            gl.active_texture(context::TEXTURE0);
        }
    }
}

impl<T: GpuData> Drop for BufferTexture<T> {
    fn drop(&mut self) {
        // SAFETY: created on this context, not used after this (the buffer goes after it).
        unsafe { self.buffer.context.delete_texture(self.texture) }
    }
}

/// A program whose vertex shader's outputs are captured (transform feedback) instead of
/// drawn: the view reads back what its skinning shader makes of the mesh (tests).
pub struct FeedbackProgram {
    context: three_d::Context,
    id: context::Program,
}

impl std::fmt::Debug for FeedbackProgram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeedbackProgram").finish_non_exhaustive()
    }
}

impl FeedbackProgram {
    /// Compiles `vertex` (three-d's `#version` line is added) capturing `varyings`
    /// (`vec3` each) into separate buffers.
    pub fn new(
        context: &three_d::Context,
        vertex: &str,
        varyings: &[&str],
    ) -> Result<Self, BufferError> {
        let header = "#version 330 core\n";
        let fragment = "out vec4 color; void main() { color = vec4(1.0); }";
        // SAFETY: shader and program objects of this context, compiled and linked here; the
        // shaders are deleted once linked.
        unsafe {
            let gl = context;
            let id = gl.create_program().map_err(BufferError::Gl)?;
            let mut shaders = Vec::new();
            for (kind, source) in [
                (context::VERTEX_SHADER, vertex),
                (context::FRAGMENT_SHADER, fragment),
            ] {
                let shader = gl.create_shader(kind).map_err(BufferError::Gl)?;
                gl.shader_source(shader, &format!("{header}{source}"));
                gl.compile_shader(shader);
                if !gl.get_shader_compile_status(shader) {
                    let log = gl.get_shader_info_log(shader);
                    gl.delete_shader(shader);
                    gl.delete_program(id);
                    return Err(BufferError::Gl(log));
                }
                gl.attach_shader(id, shader);
                shaders.push(shader);
            }
            gl.transform_feedback_varyings(id, varyings, context::SEPARATE_ATTRIBS);
            gl.link_program(id);
            for shader in shaders {
                gl.detach_shader(id, shader);
                gl.delete_shader(shader);
            }
            if !gl.get_program_link_status(id) {
                let log = gl.get_program_info_log(id);
                gl.delete_program(id);
                return Err(BufferError::Gl(log));
            }
            Ok(Self {
                context: context.clone(),
                id,
            })
        }
    }

    /// Sets integer (or sampler) uniform `name`, if the program has it.
    pub fn set_int(&self, name: &str, value: i32) {
        // SAFETY: the program is this context's; it is bound only for the call.
        unsafe {
            self.context.use_program(Some(self.id));
            if let Some(location) = self.context.get_uniform_location(self.id, name) {
                self.context.uniform_1_i32(Some(&location), value);
            }
            self.context.use_program(None);
        }
    }

    /// Runs the vertex shader on vertices `range` (points, gl_VertexID = the vertex index)
    /// with `attributes` bound in `vao`, rasterising nothing, and returns each varying's
    /// values.
    pub fn capture(
        &self,
        vao: &VertexArray,
        attributes: &[Attribute],
        range: Range<usize>,
        varyings: usize,
    ) -> Result<Vec<Vec<[f32; 3]>>, BufferError> {
        let count = range.len();
        let zeros = vec![[0.0f32; 3]; count.max(1)];
        let outputs: Vec<GlBuffer<[f32; 3]>> = (0..varyings)
            .map(|_| GlBuffer::new(&self.context, &zeros))
            .collect::<Result<_, _>>()?;
        let first = i32::try_from(range.start).map_err(|_| BufferError::TooLarge(range.start))?;
        // SAFETY: the outputs hold `count` vec3s each; the attributes are the mesh's buffers,
        // as long as its vertices (the caller checks `range` against them).
        unsafe {
            let gl = &self.context;
            // A draw needs a complete framebuffer even with rasterising off, and a surfaceless
            // context (the offscreen renderer's) has none: a 1×1 one is bound for the capture.
            let previous = gl.get_parameter_framebuffer(context::DRAW_FRAMEBUFFER_BINDING);
            let framebuffer = gl.create_framebuffer().map_err(BufferError::Gl)?;
            let renderbuffer = match gl.create_renderbuffer() {
                Ok(renderbuffer) => renderbuffer,
                Err(error) => {
                    gl.delete_framebuffer(framebuffer);
                    return Err(BufferError::Gl(error));
                }
            };
            gl.bind_renderbuffer(context::RENDERBUFFER, Some(renderbuffer));
            gl.renderbuffer_storage(context::RENDERBUFFER, context::RGBA8, 1, 1);
            gl.bind_renderbuffer(context::RENDERBUFFER, None);
            gl.bind_framebuffer(context::DRAW_FRAMEBUFFER, Some(framebuffer));
            gl.framebuffer_renderbuffer(
                context::DRAW_FRAMEBUFFER,
                context::COLOR_ATTACHMENT0,
                context::RENDERBUFFER,
                Some(renderbuffer),
            );
            gl.use_program(Some(self.id));
            vao.bind(attributes, None);
            for (index, buffer) in outputs.iter().enumerate() {
                gl.bind_buffer_base(
                    context::TRANSFORM_FEEDBACK_BUFFER,
                    index as u32,
                    Some(buffer.id),
                );
            }
            gl.enable(context::RASTERIZER_DISCARD);
            gl.begin_transform_feedback(context::POINTS);
            gl.draw_arrays(context::POINTS, first, count as i32);
            gl.end_transform_feedback();
            gl.disable(context::RASTERIZER_DISCARD);
            for index in 0..outputs.len() {
                gl.bind_buffer_base(context::TRANSFORM_FEEDBACK_BUFFER, index as u32, None);
            }
            gl.bind_vertex_array(None);
            gl.use_program(None);
            gl.bind_framebuffer(context::DRAW_FRAMEBUFFER, previous);
            gl.delete_framebuffer(framebuffer);
            gl.delete_renderbuffer(renderbuffer);
        }
        outputs.iter().map(|buffer| buffer.read(0..count)).collect()
    }
}

impl Drop for FeedbackProgram {
    fn drop(&mut self) {
        // SAFETY: created on this context, not used after this.
        unsafe { self.context.delete_program(self.id) }
    }
}
