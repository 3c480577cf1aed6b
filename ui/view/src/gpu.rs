//! The GPU side of the view (three-d on the GL context egui_glow hands the paint callback, or
//! an offscreen one in tests): buffers, textures and the draw passes. It only applies
//! [`Upload`]s the CPU side queued and draws a [`Frame`]; deciding what to upload is
//! [`pmx_scene::scene`]'s business, so this module holds no model.

use crate::gl::{
    self, Attribute, BufferError, BufferTexture, FeedbackProgram, GlBuffer, VertexArray,
};
use crate::shaders::{self, A_EDGE_SCALE, A_NORMAL, A_POSITION, A_UV, A_UV1, A_WEIGHT_COLOR};
use pmx_core::texture::Image;
pub use pmx_scene::frame::{Frame, Layers, MaterialDraw, ToonRef, Upload};
use pmx_scene::mesh::{
    MaterialRange, MeshData, Primitive, VertexArrays, VertexPatch, triangle_edges,
};
use pmx_scene::overlay::OverlayGeometry;
use pmx_scene::skin::{SDEF_TEXELS, SkinData, SkinPatch, SkinPose};
use pmx_scene::toon;
use three_d::{
    Blend, ClearState, Context, Cull, DepthTest, Interpolation, Mipmap, Program, RenderStates,
    ScissorBox, Texture2D, VertexBuffer, Viewport, Wrapping, WriteMask,
};

fn mat4(m: glam::Mat4) -> three_d::Mat4 {
    three_d::Mat4::from(m.to_cols_array_2d())
}

fn vec3(v: glam::Vec3) -> three_d::Vec3 {
    three_d::vec3(v.x, v.y, v.z)
}

fn vec4(v: [f32; 4]) -> three_d::Vec4 {
    three_d::vec4(v[0], v[1], v[2], v[3])
}

/// The model's buffers: owned through [`gl`] (not three-d's buffers) so that a partial upload
/// lands at its element's byte offset.
struct GpuMesh {
    positions: GlBuffer<[f32; 3]>,
    normals: GlBuffer<[f32; 3]>,
    uvs: GlBuffer<[f32; 2]>,
    edge_scales: GlBuffer<f32>,
    uv1: Option<GlBuffer<[f32; 4]>>,
    indices: GlBuffer<u32>,
    /// CPU copy of the indices, for the line-mode and wireframe index lists built on demand.
    cpu_indices: Vec<u32>,
    line_indices: Option<GlBuffer<u32>>,
    vertex_count: usize,
    materials: Vec<MaterialRange>,
    weight_colors: Option<WeightColors>,
    /// The skinning data (uploaded with the first pose; dropped with the mesh).
    skin: Option<GpuSkin>,
}

/// The model's skinning data on the GPU ([`pmx_scene::skin`]'s layout).
struct GpuSkin {
    bone_count: usize,
    morph_count: usize,
    vertex: BufferTexture<[u32; 4]>,
    weights: BufferTexture<[f32; 4]>,
    /// The SDEF points, and a copy here: a patch that gives a vertex a new slot grows it.
    sdef: BufferTexture<[f32; 4]>,
    sdef_copy: Vec<[f32; 4]>,
    morphs: BufferTexture<[f32; 4]>,
}

impl GpuSkin {
    fn new(context: &Context, data: SkinData) -> Result<Self, BufferError> {
        Ok(Self {
            bone_count: data.bone_count,
            morph_count: data.morph_count,
            vertex: BufferTexture::new(context, &data.vertices.info, gl::RGBA32UI)?,
            weights: BufferTexture::new(context, &data.vertices.weights, gl::RGBA32F)?,
            sdef: BufferTexture::new(context, &data.sdef, gl::RGBA32F)?,
            sdef_copy: data.sdef,
            morphs: BufferTexture::new(context, &data.morph_entries, gl::RGBA32F)?,
        })
    }

    fn patch(&mut self, context: &Context, patch: SkinPatch) -> Result<(), BufferError> {
        let SkinPatch {
            first,
            vertices,
            sdef,
        } = patch;
        self.vertex
            .write(first * pmx_scene::skin::VERTEX_TEXELS, &vertices.info)?;
        self.weights.write(first, &vertices.weights)?;
        let mut grown = false;
        for (slot, texels) in sdef {
            let start = slot as usize * SDEF_TEXELS;
            if self.sdef_copy.len() < start + SDEF_TEXELS {
                self.sdef_copy.resize(start + SDEF_TEXELS, [0.0; 4]);
                grown = true;
            }
            self.sdef_copy[start..start + SDEF_TEXELS].copy_from_slice(&texels);
            if !grown {
                self.sdef.write(start, &texels)?;
            }
        }
        if grown {
            self.sdef = BufferTexture::new(context, &self.sdef_copy, gl::RGBA32F)?;
        }
        Ok(())
    }
}

/// The pose the mesh is skinned in: the palette and the vertex morphs' weights.
struct GpuSkinPose {
    bone_count: usize,
    morph_count: usize,
    palette: BufferTexture<[f32; 4]>,
    morph_weights: BufferTexture<f32>,
}

impl GpuSkinPose {
    /// Takes `pose`, writing into the buffers already there when they have its size.
    fn update(old: Option<Self>, context: &Context, pose: &SkinPose) -> Result<Self, BufferError> {
        let bone_count = pose.bone_count();
        let morph_count = pose.morph_weights.len();
        match old {
            Some(mut old)
                if old.palette.len() == pose.palette.len().max(1)
                    && old.morph_weights.len() == morph_count.max(1) =>
            {
                old.palette.write(0, &pose.palette)?;
                old.morph_weights.write(0, &pose.morph_weights)?;
                old.bone_count = bone_count;
                old.morph_count = morph_count;
                Ok(old)
            }
            _ => Ok(Self {
                bone_count,
                morph_count,
                palette: BufferTexture::new(context, &pose.palette, gl::RGBA32F)?,
                morph_weights: BufferTexture::new(context, &pose.morph_weights, gl::R32F)?,
            }),
        }
    }
}

/// The weight view's colours on the GPU, and a copy here: a sparse patch is written into the
/// copy and goes up in a few runs, the vertices between its changes taken from the copy.
struct WeightColors {
    buffer: GlBuffer<[u8; 4]>,
    colors: Vec<[u8; 4]>,
}

impl WeightColors {
    /// Sets the colours of `vertices` (sorted; one colour each; indices past the mesh are
    /// skipped) and uploads what changed.
    fn patch(&mut self, vertices: &[u32], colors: &[[u8; 4]]) -> Result<(), BufferError> {
        let mut written = Vec::with_capacity(vertices.len());
        for (&v, &color) in vertices.iter().zip(colors) {
            if let Some(slot) = self.colors.get_mut(v as usize) {
                *slot = color;
                written.push(v);
            }
        }
        written.sort_unstable();
        for run in pmx_scene::scene::coalesce_runs(&written, pmx_scene::scene::MAX_PATCH_RUNS) {
            self.buffer.write(run.start, &self.colors[run])?;
        }
        Ok(())
    }
}

impl GpuMesh {
    fn position(&self) -> Attribute {
        self.positions.attribute(A_POSITION)
    }

    fn normal(&self) -> Attribute {
        self.normals.attribute(A_NORMAL)
    }
}

struct GpuOverlay {
    line_positions: VertexBuffer<[f32; 3]>,
    line_colors: VertexBuffer<[f32; 4]>,
    line_count: u32,
    depth_line_positions: VertexBuffer<[f32; 3]>,
    depth_line_colors: VertexBuffer<[f32; 4]>,
    depth_line_count: u32,
    triangle_positions: VertexBuffer<[f32; 3]>,
    triangle_colors: VertexBuffer<[f32; 4]>,
    triangle_count: u32,
    point_positions: VertexBuffer<[f32; 3]>,
    point_colors: VertexBuffer<[f32; 4]>,
    point_count: u32,
}

/// Positions and normals the GPU's skinning gave, read back.
pub type SkinnedVertices = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// The view's GPU resources.
pub struct GpuScene {
    context: Context,
    model_program: Program,
    model_uv1_program: Program,
    edge_program: Program,
    color_program: Program,
    flat_program: Program,
    weight_program: Program,
    /// The vertex array object the mesh is drawn with.
    vao: VertexArray,
    mesh: Option<GpuMesh>,
    textures: Vec<Texture2D>,
    white: Texture2D,
    placeholder: Texture2D,
    toons: Vec<Texture2D>,
    overlay: Option<GpuOverlay>,
    /// The pose the mesh is skinned in (`None`: drawn as its buffers hold it).
    skin_pose: Option<GpuSkinPose>,
    /// The skinning shader alone, made when first read back (tests).
    skin_feedback: Option<FeedbackProgram>,
}

impl std::fmt::Debug for GpuScene {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuScene")
            .field("vertices", &self.mesh.as_ref().map(|m| m.vertex_count))
            .field("textures", &self.textures.len())
            .finish_non_exhaustive()
    }
}

fn texture(context: &Context, image: &Image, clamp: bool) -> Texture2D {
    let wrap = if clamp {
        Wrapping::ClampToEdge
    } else {
        Wrapping::Repeat
    };
    let texture = Texture2D::new_empty::<[u8; 4]>(
        context,
        image.width.max(1),
        image.height.max(1),
        Interpolation::Linear,
        Interpolation::Linear,
        Some(Mipmap::default()),
        wrap,
        wrap,
    );
    let texels: Vec<[u8; 4]> = image
        .pixels
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    let expected = (image.width.max(1) * image.height.max(1)) as usize;
    if texels.len() == expected {
        texture.fill(&texels);
    } else {
        texture.fill(&vec![[255u8, 0, 255, 255]; expected]);
    }
    texture
}

fn program(context: &Context, vs: &str, fs: &str) -> Result<Program, String> {
    Program::from_source(context, vs, fs).map_err(|e| e.to_string())
}

impl GpuScene {
    /// Compiles the shaders and makes the built-in textures.
    pub fn new(context: Context) -> Result<Self, String> {
        gl::enable_point_size(&context);
        let skinned = |vs: &str| format!("{}{vs}", shaders::SKIN_GLSL);
        let uv1_vs = format!("#define HAS_UV1\n{}", skinned(shaders::MODEL_VS));
        let toons = (0..10u8)
            .filter_map(toon::shared_toon)
            .map(|pixels| {
                let image = Image {
                    width: toon::TOON_SIZE,
                    height: toon::TOON_SIZE,
                    pixels,
                };
                texture(&context, &image, true)
            })
            .collect();
        Ok(Self {
            model_program: program(&context, &skinned(shaders::MODEL_VS), shaders::MODEL_FS)?,
            model_uv1_program: program(&context, &uv1_vs, shaders::MODEL_FS)?,
            edge_program: program(&context, &skinned(shaders::EDGE_VS), shaders::EDGE_FS)?,
            color_program: program(&context, shaders::COLOR_VS, shaders::COLOR_FS)?,
            flat_program: program(&context, &skinned(shaders::FLAT_VS), shaders::FLAT_FS)?,
            weight_program: program(&context, &skinned(shaders::WEIGHT_VS), shaders::WEIGHT_FS)?,
            vao: VertexArray::new(&context).map_err(|e| e.to_string())?,
            white: texture(&context, &Image::solid([255; 4]), false),
            placeholder: texture(&context, &Image::placeholder(), false),
            toons,
            textures: Vec::new(),
            mesh: None,
            overlay: None,
            skin_pose: None,
            skin_feedback: None,
            context,
        })
    }

    /// Whether a model is uploaded.
    #[must_use]
    pub fn has_mesh(&self) -> bool {
        self.mesh.as_ref().is_some_and(|m| m.vertex_count > 0)
    }

    #[must_use]
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The most texels one of the skinning's texture buffers may hold here.
    #[must_use]
    pub fn max_buffer_texels(&self) -> usize {
        gl::max_texture_buffer_texels(&self.context)
    }

    /// Applies one upload. An error leaves the GPU copy out of step with the model (the
    /// caller rebuilds it).
    pub fn apply(&mut self, upload: Upload) -> Result<(), BufferError> {
        match upload {
            Upload::Mesh(mesh) => {
                // The old buffers go first: a million-vertex model need not be on the GPU twice.
                self.mesh = None;
                // The pose goes with the mesh: the new one is the model at rest.
                self.skin_pose = None;
                self.mesh = Some(self.upload_mesh(mesh)?);
            }
            Upload::Vertices(patch) => self.patch_vertices(patch)?,
            Upload::Faces {
                first_face,
                indices,
            } => {
                if let Some(mesh) = &mut self.mesh {
                    let first = first_face * 3;
                    mesh.indices.write(first, &indices)?;
                    mesh.cpu_indices[first..first + indices.len()].copy_from_slice(&indices);
                    mesh.line_indices = None;
                }
            }
            Upload::MaterialRanges(ranges) => {
                if let Some(mesh) = &mut self.mesh {
                    mesh.materials = ranges;
                }
            }
            Upload::Textures(images) => {
                self.textures = images
                    .iter()
                    .map(|image| match image {
                        Some(image) => texture(&self.context, image, false),
                        None => texture(&self.context, &Image::placeholder(), false),
                    })
                    .collect();
            }
            Upload::Texture { index, image } => {
                let made = texture(
                    &self.context,
                    image.as_ref().unwrap_or(&Image::placeholder()),
                    false,
                );
                if let Some(slot) = self.textures.get_mut(index) {
                    *slot = made;
                }
            }
            Upload::Overlay(geometry) => self.overlay = Some(self.upload_overlay(&geometry)),
            Upload::WeightColors(colors) => {
                if let Some(mesh) = &mut self.mesh {
                    // The old buffer goes first, as with the mesh.
                    mesh.weight_colors = None;
                    mesh.weight_colors = match colors {
                        Some(colors) if colors.len() == mesh.vertex_count && !colors.is_empty() => {
                            Some(WeightColors {
                                buffer: GlBuffer::new(&self.context, &colors)?,
                                colors,
                            })
                        }
                        _ => None,
                    };
                }
            }
            Upload::Skin(data) => {
                if let Some(mesh) = &mut self.mesh {
                    mesh.skin = None;
                    mesh.skin = Some(GpuSkin::new(&self.context, data)?);
                }
            }
            Upload::SkinPatch(patch) => {
                if let Some(skin) = self.mesh.as_mut().and_then(|m| m.skin.as_mut()) {
                    skin.patch(&self.context, patch)?;
                }
            }
            Upload::SkinPose(pose) => {
                self.skin_pose = match pose {
                    Some(pose) => Some(GpuSkinPose::update(
                        self.skin_pose.take(),
                        &self.context,
                        &pose,
                    )?),
                    None => None,
                };
            }
            Upload::WeightColorPatch { vertices, colors } => {
                if let Some(weight_colors) =
                    self.mesh.as_mut().and_then(|m| m.weight_colors.as_mut())
                {
                    weight_colors.patch(&vertices, &colors)?;
                }
            }
        }
        Ok(())
    }

    fn upload_mesh(&self, mesh: MeshData) -> Result<GpuMesh, BufferError> {
        let c = &self.context;
        let MeshData {
            vertices,
            indices,
            materials,
            ..
        } = mesh;
        Ok(GpuMesh {
            positions: GlBuffer::new(c, &vertices.positions)?,
            normals: GlBuffer::new(c, &vertices.normals)?,
            uvs: GlBuffer::new(c, &vertices.uvs)?,
            edge_scales: GlBuffer::new(c, &vertices.edge_scales)?,
            uv1: if vertices.uv1.is_empty() {
                None
            } else {
                Some(GlBuffer::new(c, &vertices.uv1)?)
            },
            indices: GlBuffer::new(c, &indices)?,
            cpu_indices: indices,
            line_indices: None,
            vertex_count: vertices.len(),
            materials,
            weight_colors: None,
            skin: None,
        })
    }

    fn patch_vertices(&mut self, patch: VertexPatch) -> Result<(), BufferError> {
        let Some(mesh) = &mut self.mesh else {
            return Ok(());
        };
        match patch {
            VertexPatch::All { first, arrays } => {
                let VertexArrays {
                    positions,
                    normals,
                    uvs,
                    edge_scales,
                    uv1,
                } = arrays;
                mesh.positions.write(first, &positions)?;
                mesh.normals.write(first, &normals)?;
                mesh.uvs.write(first, &uvs)?;
                mesh.edge_scales.write(first, &edge_scales)?;
                if let Some(buffer) = &mut mesh.uv1 {
                    buffer.write(first, &uv1)?;
                }
            }
            VertexPatch::Positions { first, positions } => {
                mesh.positions.write(first, &positions)?;
            }
            VertexPatch::Deformed {
                first,
                positions,
                normals,
            } => {
                mesh.positions.write(first, &positions)?;
                mesh.normals.write(first, &normals)?;
            }
            VertexPatch::Uvs { first, uvs } => mesh.uvs.write(first, &uvs)?,
        }
        Ok(())
    }

    /// The uploaded vertex arrays of `range`, read back from the GPU (tests compare them with
    /// [`VertexArrays::of`]; `uv1` is empty when the model has no additional UV).
    pub fn read_vertices(
        &self,
        range: std::ops::Range<usize>,
    ) -> Result<Option<VertexArrays>, BufferError> {
        let Some(mesh) = &self.mesh else {
            return Ok(None);
        };
        Ok(Some(VertexArrays {
            positions: mesh.positions.read(range.clone())?,
            normals: mesh.normals.read(range.clone())?,
            uvs: mesh.uvs.read(range.clone())?,
            edge_scales: mesh.edge_scales.read(range.clone())?,
            uv1: match &mesh.uv1 {
                Some(buffer) => buffer.read(range)?,
                None => Vec::new(),
            },
        }))
    }

    /// The uploaded weight-view colours of `range`, read back from the GPU (`None`: no
    /// weight view; tests).
    pub fn read_weight_colors(
        &self,
        range: std::ops::Range<usize>,
    ) -> Result<Option<Vec<[u8; 4]>>, BufferError> {
        self.mesh
            .as_ref()
            .and_then(|mesh| mesh.weight_colors.as_ref())
            .map(|colors| colors.buffer.read(range))
            .transpose()
    }

    /// The uploaded index list of `range` (indices, 3 per face), read back from the GPU.
    pub fn read_indices(
        &self,
        range: std::ops::Range<usize>,
    ) -> Result<Option<Vec<u32>>, BufferError> {
        self.mesh
            .as_ref()
            .map(|mesh| mesh.indices.read(range))
            .transpose()
    }

    /// Whether the mesh is drawn skinned: a pose, and skinning data that fits it and the mesh.
    fn skinning(&self) -> Option<(&GpuSkin, &GpuSkinPose)> {
        let mesh = self.mesh.as_ref()?;
        let skin = mesh.skin.as_ref()?;
        let pose = self.skin_pose.as_ref()?;
        (skin.bone_count == pose.bone_count
            && skin.morph_count == pose.morph_count
            && skin.weights.len() == mesh.vertex_count)
            .then_some((skin, pose))
    }

    /// Whether the passes skin the mesh in a pose (a pose and skinning data that fit).
    #[must_use]
    pub fn draws_skinned(&self) -> bool {
        self.skinning().is_some()
    }

    /// Binds the skinning data's textures (call inside a draw, before the draw call).
    fn bind_skinning(&self) {
        if let Some((skin, pose)) = self.skinning() {
            let units = shaders::SKIN_UNITS;
            skin.vertex.bind(units[0].1);
            skin.weights.bind(units[1].1);
            skin.sdef.bind(units[2].1);
            skin.morphs.bind(units[3].1);
            pose.palette.bind(units[4].1);
            pose.morph_weights.bind(units[5].1);
        }
    }

    /// Sets `program`'s skinning uniforms: on with a pose, off without.
    fn use_skinning(&self, program: &Program) {
        let on = self.skinning().is_some();
        program.use_uniform_if_required("u_skinning", i32::from(on));
        // Always: samplers of different types left on the same unit (0) make draws fail.
        for (name, unit) in shaders::SKIN_UNITS {
            program.use_uniform_if_required(name, unit as i32);
        }
    }

    /// The mesh's vertices `range` as the passes draw them, positions and normals in world
    /// space (skinned in the pose when there is one; normals not renormalised), read back
    /// through transform feedback from the same skinning shader the passes run (tests).
    /// `None`: no mesh.
    pub fn read_skinned(
        &mut self,
        range: std::ops::Range<usize>,
    ) -> Result<Option<SkinnedVertices>, BufferError> {
        let Some(count) = self.mesh.as_ref().map(|m| m.vertex_count) else {
            return Ok(None);
        };
        if range.start > range.end || range.end > count {
            return Err(BufferError::OutOfRange {
                start: range.start,
                end: range.end,
                len: count,
            });
        }
        if self.skin_feedback.is_none() {
            let source = format!("{}{}", shaders::SKIN_GLSL, shaders::SKIN_FEEDBACK_VS);
            self.skin_feedback = Some(FeedbackProgram::new(
                &self.context,
                &source,
                &["skinned_position", "skinned_normal"],
            )?);
        }
        let (Some(program), Some(mesh)) = (&self.skin_feedback, &self.mesh) else {
            return Ok(None);
        };
        let on = self.skinning().is_some();
        program.set_int("u_skinning", i32::from(on));
        for (name, unit) in shaders::SKIN_UNITS {
            program.set_int(name, unit as i32);
        }
        self.bind_skinning();
        let mut captured =
            program.capture(&self.vao, &[mesh.position(), mesh.normal()], range, 2)?;
        let normals = captured.pop().unwrap_or_default();
        let positions = captured.pop().unwrap_or_default();
        Ok(Some((positions, normals)))
    }

    fn upload_overlay(&self, geometry: &OverlayGeometry) -> GpuOverlay {
        let c = &self.context;
        let split = |list: &[pmx_scene::overlay::ColoredVertex]| {
            let positions: Vec<[f32; 3]> = list.iter().map(|v| v.position).collect();
            let colors: Vec<[f32; 4]> = list.iter().map(|v| v.color).collect();
            (
                VertexBuffer::new_with_data(c, &positions),
                VertexBuffer::new_with_data(c, &colors),
                list.len() as u32,
            )
        };
        let (line_positions, line_colors, line_count) = split(&geometry.lines);
        let (depth_line_positions, depth_line_colors, depth_line_count) =
            split(&geometry.depth_lines);
        let (triangle_positions, triangle_colors, triangle_count) = split(&geometry.triangles);
        let (point_positions, point_colors, point_count) = split(&geometry.points);
        GpuOverlay {
            line_positions,
            line_colors,
            line_count,
            depth_line_positions,
            depth_line_colors,
            depth_line_count,
            triangle_positions,
            triangle_colors,
            triangle_count,
            point_positions,
            point_colors,
            point_count,
        }
    }

    /// Clears `scissor` of the current framebuffer and draws `frame` into `viewport`.
    pub fn render(&mut self, frame: &Frame, viewport: Viewport, scissor: ScissorBox) {
        let [r, g, b, a] = frame.background;
        // Only the depth and colour inside the view's rectangle: egui drew the rest.
        self.context.set_scissor(scissor);
        three_d::RenderTarget::screen(&self.context, viewport.width, viewport.height)
            .clear_partially(scissor, ClearState::color_and_depth(r, g, b, a, 1.0));
        self.context.set_scissor(scissor);
        self.draw(frame, viewport);
    }

    /// Draws `frame` into the bound framebuffer (which the caller cleared).
    pub fn draw(&mut self, frame: &Frame, viewport: Viewport) {
        if let Some(mesh) = &mut self.mesh
            && mesh.vertex_count > 0
            && (frame.layers.wireframe
                || frame
                    .materials
                    .iter()
                    .any(|m| m.primitive == Primitive::Lines))
            && mesh.line_indices.is_none()
        {
            // Without it (GL out of memory) lines are skipped this frame and tried again.
            mesh.line_indices =
                GlBuffer::new(&self.context, &triangle_edges(&mesh.cpu_indices)).ok();
        }
        if let Some(mesh) = &self.mesh
            && mesh.vertex_count > 0
        {
            if frame.layers.weights && mesh.weight_colors.is_some() {
                self.draw_weights(mesh, frame, viewport);
            } else if frame.layers.model {
                self.draw_model(mesh, frame, viewport);
            }
            if frame.layers.wireframe {
                self.draw_flat(mesh, frame, viewport, gl::LINES, [0.1, 0.1, 0.1, 0.6]);
            }
            if frame.layers.vertices {
                self.draw_flat(mesh, frame, viewport, gl::POINTS, [0.15, 0.2, 0.9, 1.0]);
            }
        }
        self.draw_overlay(frame, viewport);
    }

    fn draw_model(&self, mesh: &GpuMesh, frame: &Frame, viewport: Viewport) {
        let program = if mesh.uv1.is_some() {
            &self.model_uv1_program
        } else {
            &self.model_program
        };
        let view_projection = mat4(frame.view_projection);
        program.use_uniform_if_required("u_view_projection", view_projection);
        program.use_uniform_if_required("u_view", mat4(frame.view));
        program.use_uniform_if_required("u_light_color", vec3(frame.light_color));
        program.use_uniform_if_required("u_light_direction", vec3(frame.light_direction));
        program.use_uniform_if_required("u_eye", vec3(frame.eye));
        self.use_skinning(program);
        let mut model_attributes = vec![mesh.position(), mesh.normal(), mesh.uvs.attribute(A_UV)];
        if let Some(uv1) = &mesh.uv1 {
            model_attributes.push(uv1.attribute(A_UV1));
        }
        let edge = &self.edge_program;
        edge.use_uniform_if_required("u_view_projection", view_projection);
        edge.use_uniform_if_required("u_eye", vec3(frame.eye));
        edge.use_uniform_if_required("u_pixel_factor", frame.pixel_factor);
        self.use_skinning(edge);
        let edge_attributes = [
            mesh.position(),
            mesh.normal(),
            mesh.edge_scales.attribute(A_EDGE_SCALE),
        ];
        let max_index = mesh.cpu_indices.len() as u32;
        for (material, range) in frame.materials.iter().zip(&mesh.materials) {
            if !material.visible || range.count == 0 || range.first + range.count > max_index {
                continue;
            }
            let texture = material.texture.map_or(&self.white, |i| {
                self.textures.get(i).unwrap_or(&self.placeholder)
            });
            let (sphere, sphere_mode) = match material.sphere {
                Some((i, mode)) => (self.textures.get(i).unwrap_or(&self.placeholder), mode),
                None => (&self.white, 0),
            };
            let toon = match material.toon {
                ToonRef::None => &self.white,
                ToonRef::Shared(n) => self.toons.get(usize::from(n)).unwrap_or(&self.white),
                ToonRef::Texture(i) => self.textures.get(i).unwrap_or(&self.placeholder),
            };
            program.use_texture("u_texture", texture);
            program.use_texture("u_sphere", sphere);
            program.use_texture("u_toon", toon);
            program.use_uniform_if_required("u_diffuse", vec4(material.diffuse));
            program.use_uniform_if_required("u_ambient", vec3(material.ambient.into()));
            program.use_uniform_if_required("u_specular", vec3(material.specular.into()));
            program.use_uniform_if_required("u_specular_power", material.specular_power);
            program.use_uniform_if_required("u_sphere_mode", i32::from(sphere_mode));
            program.use_uniform_if_required("u_vertex_color", i32::from(material.vertex_color));
            program.use_uniform_if_required("u_point_size", material.point_size.max(1.0));
            program.use_uniform_if_required("u_tint", vec4(material.tint));
            for (multiply, add, tint) in [
                (
                    "u_texture_tint_multiply",
                    "u_texture_tint_add",
                    &material.texture_tint,
                ),
                (
                    "u_sphere_tint_multiply",
                    "u_sphere_tint_add",
                    &material.sphere_tint,
                ),
                (
                    "u_toon_tint_multiply",
                    "u_toon_tint_add",
                    &material.toon_tint,
                ),
            ] {
                program.use_uniform_if_required(multiply, vec4(tint.multiply.to_array()));
                program.use_uniform_if_required(add, vec4(tint.add.to_array()));
            }
            let states = RenderStates {
                cull: if material.double_sided || material.primitive != Primitive::Triangles {
                    Cull::None
                } else {
                    Cull::Back
                },
                blend: Blend::TRANSPARENCY,
                depth_test: DepthTest::LessOrEqual,
                write_mask: WriteMask::default(),
            };
            match material.primitive {
                Primitive::Triangles | Primitive::Points => {
                    let mode = if material.primitive == Primitive::Points {
                        gl::POINTS
                    } else {
                        gl::TRIANGLES
                    };
                    program.draw_with(states, viewport, || {
                        self.vao.bind(&model_attributes, Some(&mesh.indices));
                        self.bind_skinning();
                        gl::draw_elements(&self.context, mode, range.first, range.count);
                    });
                }
                Primitive::Lines => {
                    if let Some(lines) = &mesh.line_indices {
                        program.draw_with(states, viewport, || {
                            self.vao.bind(&model_attributes, Some(lines));
                            self.bind_skinning();
                            gl::draw_elements(
                                &self.context,
                                gl::LINES,
                                range.first * 2,
                                range.count * 2,
                            );
                        });
                    }
                }
            }
            if let (true, Some((color, size)), Primitive::Triangles) =
                (frame.layers.edges, material.edge, material.primitive)
                && size > 0.0
                && color[3] > 0.0
            {
                edge.use_uniform_if_required("u_edge_color", vec4(color));
                edge.use_uniform_if_required("u_edge_size", size);
                let states = RenderStates {
                    cull: Cull::Front,
                    blend: Blend::TRANSPARENCY,
                    depth_test: DepthTest::LessOrEqual,
                    write_mask: WriteMask::default(),
                };
                edge.draw_with(states, viewport, || {
                    self.vao.bind(&edge_attributes, Some(&mesh.indices));
                    self.bind_skinning();
                    gl::draw_elements(&self.context, gl::TRIANGLES, range.first, range.count);
                });
            }
        }
    }

    fn draw_weights(&self, mesh: &GpuMesh, frame: &Frame, viewport: Viewport) {
        let Some(weight_colors) = &mesh.weight_colors else {
            return;
        };
        let program = &self.weight_program;
        program.use_uniform_if_required("u_view_projection", mat4(frame.view_projection));
        program.use_uniform_if_required("u_light_direction", vec3(frame.light_direction));
        self.use_skinning(program);
        let attributes = [
            mesh.position(),
            mesh.normal(),
            weight_colors.buffer.attribute(A_WEIGHT_COLOR),
        ];
        let states = RenderStates {
            cull: Cull::None,
            depth_test: DepthTest::LessOrEqual,
            ..Default::default()
        };
        program.draw_with(states, viewport, || {
            self.vao.bind(&attributes, Some(&mesh.indices));
            self.bind_skinning();
            gl::draw_elements(
                &self.context,
                gl::TRIANGLES,
                0,
                mesh.cpu_indices.len() as u32,
            );
        });
    }

    fn draw_flat(
        &self,
        mesh: &GpuMesh,
        frame: &Frame,
        viewport: Viewport,
        mode: u32,
        color: [f32; 4],
    ) {
        let program = &self.flat_program;
        program.use_uniform_if_required("u_view_projection", mat4(frame.view_projection));
        program.use_uniform_if_required("u_color", vec4(color));
        program.use_uniform_if_required("u_point_size", 3.0f32);
        program.use_uniform_if_required("u_depth_bias", 0.0005f32);
        self.use_skinning(program);
        let attributes = [mesh.position()];
        let states = RenderStates {
            blend: Blend::TRANSPARENCY,
            depth_test: DepthTest::LessOrEqual,
            write_mask: WriteMask::COLOR,
            ..Default::default()
        };
        if mode == gl::LINES {
            if let Some(lines) = &mesh.line_indices {
                program.draw_with(states, viewport, || {
                    self.vao.bind(&attributes, Some(lines));
                    self.bind_skinning();
                    gl::draw_elements(&self.context, gl::LINES, 0, lines.len() as u32);
                });
            }
        } else {
            program.draw_with(states, viewport, || {
                self.vao.bind(&attributes, None);
                self.bind_skinning();
                gl::draw_arrays(&self.context, gl::POINTS, mesh.vertex_count as u32);
            });
        }
    }

    fn draw_overlay(&self, frame: &Frame, viewport: Viewport) {
        let Some(overlay) = &self.overlay else {
            return;
        };
        let program = &self.color_program;
        program.use_uniform_if_required("u_view_projection", mat4(frame.view_projection));
        if overlay.depth_line_count > 0 {
            program.use_uniform_if_required("u_depth_bias", 0.0f32);
            program.use_uniform_if_required("u_round", 0i32);
            program.use_vertex_attribute("a_position", &overlay.depth_line_positions);
            program.use_vertex_attribute("a_color", &overlay.depth_line_colors);
            let states = RenderStates {
                cull: Cull::None,
                blend: Blend::TRANSPARENCY,
                depth_test: DepthTest::LessOrEqual,
                write_mask: WriteMask::COLOR,
            };
            program.draw_with(states, viewport, || {
                gl::draw_arrays(&self.context, gl::LINES, overlay.depth_line_count);
            });
        }
        // Translucent shapes: depth-tested against the model, writing no depth.
        if overlay.triangle_count > 0 {
            program.use_uniform_if_required("u_depth_bias", 0.0f32);
            program.use_uniform_if_required("u_round", 0i32);
            program.use_vertex_attribute("a_position", &overlay.triangle_positions);
            program.use_vertex_attribute("a_color", &overlay.triangle_colors);
            let states = RenderStates {
                cull: Cull::None,
                blend: Blend::TRANSPARENCY,
                depth_test: DepthTest::LessOrEqual,
                write_mask: WriteMask::COLOR,
            };
            program.draw_with(states, viewport, || {
                gl::draw_arrays(&self.context, gl::TRIANGLES, overlay.triangle_count);
            });
        }
        // Lines and points show through the model (bones inside a body must stay visible).
        let on_top = RenderStates {
            cull: Cull::None,
            blend: Blend::TRANSPARENCY,
            depth_test: DepthTest::Always,
            write_mask: WriteMask::COLOR,
        };
        if overlay.line_count > 0 {
            program.use_uniform_if_required("u_round", 0i32);
            program.use_vertex_attribute("a_position", &overlay.line_positions);
            program.use_vertex_attribute("a_color", &overlay.line_colors);
            program.draw_with(on_top, viewport, || {
                gl::draw_arrays(&self.context, gl::LINES, overlay.line_count);
            });
        }
        if overlay.point_count > 0 {
            program.use_uniform_if_required("u_round", 1i32);
            program.use_uniform_if_required("u_point_size", 7.0f32);
            program.use_vertex_attribute("a_position", &overlay.point_positions);
            program.use_vertex_attribute("a_color", &overlay.point_colors);
            program.draw_with(on_top, viewport, || {
                gl::draw_arrays(&self.context, gl::POINTS, overlay.point_count);
            });
        }
    }
}
