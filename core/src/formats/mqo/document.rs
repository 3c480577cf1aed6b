//! The MQO document as the file holds it: header, materials, objects with their vertices and
//! faces. Nothing here is converted: positions are in MQO units and axes, angles in degrees,
//! colours as the file writes them. The conversion to a PMX model is `to_model.rs`.

/// `Format Text Ver major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MqoVersion {
    pub major: u32,
    pub minor: u32,
}

/// The text encoding of names and paths (`CodePage`; absent means cp932).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CodePage {
    /// Shift_JIS as Windows extends it (code page 932): the default.
    #[default]
    Cp932,
    /// `CodePage utf8` (Metasequoia 4.6 and later can write it).
    Utf8,
}

impl CodePage {
    #[must_use]
    pub fn encoding(self) -> &'static encoding_rs::Encoding {
        match self {
            CodePage::Cp932 => encoding_rs::SHIFT_JIS,
            CodePage::Utf8 => encoding_rs::UTF_8,
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CodePage::Cp932 => "932",
            CodePage::Utf8 => "utf8",
        }
    }
}

/// A whole MQO file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqoDocument {
    pub version: Option<MqoVersion>,
    pub code_page: CodePage,
    /// The `IncludeXml` file names (the `.mqx` side files), as written.
    pub include_xml: Vec<String>,
    pub materials: Vec<MqoMaterial>,
    pub objects: Vec<MqoObject>,
}

/// Texture projection of a material (`proj_type`, `proj_pos`, `proj_scale`, `proj_angle`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MqoProjection {
    /// 0 UV, 1 planar, 2 cylindrical, 3 spherical.
    pub kind: i32,
    pub position: [f32; 3],
    pub scale: [f32; 3],
    /// Heading, pitch, bank in degrees.
    pub angle: [f32; 3],
}

impl Default for MqoProjection {
    fn default() -> Self {
        Self {
            kind: 0,
            position: [0.0; 3],
            scale: [1.0; 3],
            angle: [0.0; 3],
        }
    }
}

/// One line of the `Material` chunk. Omitted parameters keep Metasequoia's defaults for a new
/// material.
#[derive(Debug, Clone, PartialEq)]
pub struct MqoMaterial {
    pub name: String,
    pub uid: Option<i64>,
    /// 0 Classic, 1 Constant, 2 Lambert, 3 Phong, 4 Blinn (other values kept).
    pub shader: i32,
    /// `vcol(1)`: the material shows vertex colours.
    pub vertex_color: bool,
    /// `dbls(1)`: both sides are drawn.
    pub double_sided: bool,
    /// `col`: RGB and opacity, 0..1.
    pub color: [f32; 4],
    pub diffuse: f32,
    pub ambient: f32,
    pub emissive: f32,
    pub specular: f32,
    /// `power`: specular exponent, 0..100.
    pub power: f32,
    pub reflect: Option<f32>,
    pub refract: Option<f32>,
    /// `amb_col`, `emi_col`, `spc_col` (Metasequoia 4.x): coloured ambient, emission, specular.
    pub ambient_color: Option<[f32; 3]>,
    pub emissive_color: Option<[f32; 3]>,
    pub specular_color: Option<[f32; 3]>,
    /// `tex`: the colour texture, a relative or absolute path.
    pub texture: Option<String>,
    /// `aplane` (or `alpha`): the transparency texture.
    pub alpha_map: Option<String>,
    /// `bump`: the bump texture.
    pub bump_map: Option<String>,
    pub projection: MqoProjection,
    /// The 1-based line the material is on.
    pub line: usize,
}

impl Default for MqoMaterial {
    fn default() -> Self {
        Self {
            name: String::new(),
            uid: None,
            shader: 3,
            vertex_color: false,
            double_sided: false,
            color: [1.0; 4],
            diffuse: 0.8,
            ambient: 0.6,
            emissive: 0.0,
            specular: 0.0,
            power: 5.0,
            reflect: None,
            refract: None,
            ambient_color: None,
            emissive_color: None,
            specular_color: None,
            texture: None,
            alpha_map: None,
            bump_map: None,
            projection: MqoProjection::default(),
            line: 0,
        }
    }
}

/// `mirror`: how the object is mirrored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MirrorMode {
    #[default]
    None,
    /// 1: the mirrored half is separate.
    Separate,
    /// 2: vertices within `mirror_dis` of the mirror plane join both halves.
    Connected,
}

/// A face: its corners are `first_corner .. first_corner + corner_count` of the object's corner
/// lists.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MqoFace {
    pub first_corner: u32,
    pub corner_count: u32,
    /// `M(i)`; `None` for `M(-1)` (an uncoloured face) or no `M`.
    pub material: Option<u32>,
    /// The face had `UV(...)` (otherwise its corner UVs are zero).
    pub has_uv: bool,
    /// The face had `COL(...)` (otherwise its corner colours are white).
    pub has_color: bool,
    /// `UID(i)` (Metasequoia 4.x).
    pub uid: Option<u32>,
    /// The 1-based line the face is on.
    pub line: u32,
}

impl MqoFace {
    /// The face's corner indices into the object's corner lists.
    #[must_use]
    pub fn corners(&self) -> std::ops::Range<usize> {
        let first = self.first_corner as usize;
        first..first + self.corner_count as usize
    }
}

/// An `Object` chunk. Faces are stored flat: `corner_vertices[face.corners()]` are a face's
/// vertex indices, in the file's order (Metasequoia's front faces wind clockwise seen from
/// outside, as PMX's do).
#[derive(Debug, Clone, PartialEq)]
pub struct MqoObject {
    pub name: String,
    pub uid: Option<u32>,
    /// Depth in the object hierarchy: 0 under the root, +1 per level.
    pub depth: u32,
    pub folding: bool,
    /// The local frame: scale, rotation (heading, pitch, bank in degrees), translation. The
    /// vertices are stored in world coordinates already; the frame is what mirroring and
    /// lathing use as their axes.
    pub scale: [f32; 3],
    pub rotation: [f32; 3],
    pub translation: [f32; 3],
    /// Subdivision surface: 0 none, 1 spline 1, 2 spline 2, 3 Catmull-Clark, 4 OpenSubdiv.
    pub patch: u32,
    pub patch_triangles: u32,
    pub segment: u32,
    pub visible: bool,
    pub locked: bool,
    /// `shading 1`: Gouraud (smooth) shading; 0: flat.
    pub smooth_shading: bool,
    /// Smoothing angle in degrees: faces meeting at a smaller angle share normals.
    pub facet: f32,
    pub color: Option<[f32; 3]>,
    pub color_type: i32,
    pub mirror: MirrorMode,
    /// Mirror axes: X = 1, Y = 2, Z = 4 (any combination).
    pub mirror_axis: u8,
    pub mirror_distance: f32,
    /// Lathe: 0 none, 3 both sides.
    pub lathe: u32,
    /// Lathe axis: 0 X, 1 Y, 2 Z.
    pub lathe_axis: u32,
    pub lathe_segments: u32,
    pub normal_weight: Option<f32>,
    pub vertices: Vec<[f32; 3]>,
    /// `vertexattr { uid { } }`: one unique ID per vertex; empty when the file has none (then
    /// vertex `i` has the ID `i + 1`).
    pub vertex_uids: Vec<u32>,
    /// `weit`: (vertex, curve weight).
    pub vertex_weights: Vec<(u32, f32)>,
    /// `color`: (vertex, 0xAABBGGRR).
    pub vertex_colors: Vec<(u32, u32)>,
    pub faces: Vec<MqoFace>,
    pub corner_vertices: Vec<u32>,
    pub corner_uvs: Vec<[f32; 2]>,
    /// One 0xAABBGGRR per corner, or empty when no face has `COL`.
    pub corner_colors: Vec<u32>,
    /// One crease per corner, or empty when no face has `CRS`.
    pub corner_creases: Vec<f32>,
    /// The 1-based line of `Object "name" {`.
    pub line: usize,
}

impl Default for MqoObject {
    fn default() -> Self {
        Self {
            name: String::new(),
            uid: None,
            depth: 0,
            folding: false,
            scale: [1.0; 3],
            rotation: [0.0; 3],
            translation: [0.0; 3],
            patch: 0,
            patch_triangles: 0,
            segment: 1,
            visible: true,
            locked: false,
            smooth_shading: true,
            facet: 59.5,
            color: None,
            color_type: 0,
            mirror: MirrorMode::None,
            mirror_axis: 1,
            mirror_distance: 0.0,
            lathe: 0,
            lathe_axis: 0,
            lathe_segments: 3,
            normal_weight: None,
            vertices: Vec::new(),
            vertex_uids: Vec::new(),
            vertex_weights: Vec::new(),
            vertex_colors: Vec::new(),
            faces: Vec::new(),
            corner_vertices: Vec::new(),
            corner_uvs: Vec::new(),
            corner_colors: Vec::new(),
            corner_creases: Vec::new(),
            line: 0,
        }
    }
}

impl MqoObject {
    /// The vertex with unique ID `uid` (`vertexattr` IDs, or `uid - 1` without them).
    #[must_use]
    pub fn vertex_by_uid(&self, uid: u32) -> Option<usize> {
        if self.vertex_uids.is_empty() {
            let index = (uid as usize).checked_sub(1)?;
            (index < self.vertices.len()).then_some(index)
        } else {
            self.vertex_uids.iter().position(|&id| id == uid)
        }
    }
}

/// The 0xAABBGGRR colour of `COL` and `vertexattr color` as RGBA in 0..1.
#[must_use]
pub fn unpack_color(packed: u32) -> [f32; 4] {
    let channel = |shift: u32| ((packed >> shift) & 0xFF) as f32 / 255.0;
    [channel(0), channel(8), channel(16), channel(24)]
}
