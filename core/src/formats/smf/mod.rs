//! Selene SMF (`.smf`, version `0x20071101`): the chunk format of the Selene game engine.
//! Export from a model and import back. The spec is `specs/selene-smf.ja.md`; where it is
//! silent, the engine's public loader (`CModelLoader.cpp`, `SMF.h`, `IRender.h` of
//! khttemp/Selene) decides, and the module follows what that code does.
//!
//! **Chunk IDs.** The loader compares `SMF_CHUNK::Chunk` (a `long`) with MSVC multi-character
//! constants: `'MESH'` is the integer `('M' << 24) | ('E' << 16) | ('S' << 8) | 'H'` =
//! `0x4D455348`, and a three-letter `'SMF'` is `0x00534D46`. The file is little-endian, so the
//! bytes are the letters reversed and padded with NUL at the end: `'SMF'` is `46 4D 53 00`
//! (`"FMS\0"`) and `'MESH'` is `48 53 45 4D` (`"HSEM"`). [`ChunkId`] builds the integer the way
//! the compiler does; `tests.rs` checks the bytes.
//!
//! **Axes, handedness, winding: nothing flips.** Selene is a Direct3D 9 engine like MMD:
//! left-handed, Y up, front faces wound clockwise (spec, `CULL`: 左手座標系なので時計回りが表面),
//! texture V down from the top, row vectors times row-major matrices (D3DX: translation in the
//! fourth row, `world = local × parent_world`). `CULL` 1 becomes the engine's `CULL_FRONT`,
//! which `CRender` sets as `D3DCULL_CCW`: counter-clockwise faces are culled, clockwise ones
//! drawn, as in MMD. PMX coordinates, normals, UVs and corner order are written as they are.
//!
//! **Animation (`ANIS`).** Times are MMD frames (1/30 s): key `Time` and `LastTime` count
//! frames (the engine only compares them with the time the application passes, so playing at
//! MMD speed means advancing it by 30 a second). A VMD motion is
//! baked through the pose engine into one key per frame per moving bone, in the frame's local
//! space (rotation and translation from the parent frame, scale 1), since Selene has neither
//! IK nor Bézier curves. `CFrame::UpdateAnimationTransform` builds `scale × rotation` with the
//! translation in the fourth row; `Matrix = Quaternion` (Math/Matrix.h) puts the column-vector
//! rotation matrix in the rows, which for row vectors turns by the inverse, so the writer
//! stores the conjugate of each rotation.
//!
//! **Skinning as the engine does it** (`CFrame::UpdateTransform`, `CModelActorObject::Update`):
//! a frame's world matrix is `local × parent_world`; a frame named in a `BONE` palette becomes
//! a bone frame whose skin matrix is `bone_offset × world`; the vertex shader blends the first
//! two palette entries of `V_A` with `Weight` and `1 − Weight`. A mesh with a palette ignores
//! its holder frame's matrix (it only moves the culling box), and a mesh without one is drawn
//! with its holder frame's matrix.

mod read;
mod write;

#[cfg(test)]
mod tests;

pub use read::read_smf;
pub use write::{
    AlphaTestMaterials, SmfAnimation, SmfExport, SmfExportOptions, SmfExportReport, SmfLoss,
    WeightReduction, two_bone_weight, write_smf,
};

/// `SMF_VERSION_GUID`: the only version the loader accepts.
pub const SMF_VERSION_GUID: u32 = 0x2007_1101;
/// `MAX_BONE_COUNT`: the size of a mesh's bone palette (`CModelActorObject` keeps a fixed
/// array of this many frame pointers and matrices).
pub const MAX_BONE_COUNT: usize = 40;
/// `MAX_NAME_SIZE`: every name and texture field, NUL included.
pub const MAX_NAME_SIZE: usize = 64;
/// The most vertices a mesh may have and still use 16-bit indices (`IDX2`).
pub const MAX_IDX2_VERTICES: usize = 65_535;

/// A chunk ID as the loader's `switch` compares it: an MSVC multi-character constant.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkId(pub u32);

impl ChunkId {
    /// The value MSVC gives the character constant `'name'` (up to four ASCII letters): each
    /// letter shifts the ones before it up by a byte.
    #[must_use]
    pub const fn from_name(name: &[u8]) -> Self {
        let mut value = 0u32;
        let mut i = 0;
        while i < name.len() {
            value = (value << 8) | name[i] as u32;
            i += 1;
        }
        Self(value)
    }

    /// The four bytes the file stores (little-endian).
    #[must_use]
    pub fn to_bytes(self) -> [u8; 4] {
        self.0.to_le_bytes()
    }

    /// The letters of the constant, for messages (`"MESH"`, `"V_A"`); `None` for an ID that is
    /// not printable ASCII.
    #[must_use]
    pub fn name(self) -> Option<String> {
        let bytes = self.0.to_be_bytes();
        let start = bytes.iter().position(|&b| b != 0)?;
        let letters = &bytes[start..];
        letters
            .iter()
            .all(|b| b.is_ascii_graphic())
            .then(|| String::from_utf8_lossy(letters).into_owned())
    }
}

impl std::fmt::Debug for ChunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.name() {
            Some(name) => write!(f, "'{name}'"),
            None => write!(f, "0x{:08X}", self.0),
        }
    }
}

/// The chunk IDs of the spec's tree.
pub mod id {
    use super::ChunkId;

    pub const SMF: ChunkId = ChunkId::from_name(b"SMF");
    pub const FRM: ChunkId = ChunkId::from_name(b"FRM");
    pub const OBB: ChunkId = ChunkId::from_name(b"OBB");
    pub const ANIS: ChunkId = ChunkId::from_name(b"ANIS");
    pub const ANI: ChunkId = ChunkId::from_name(b"ANI");
    pub const MESH: ChunkId = ChunkId::from_name(b"MESH");
    pub const BONE: ChunkId = ChunkId::from_name(b"BONE");
    pub const V_PC: ChunkId = ChunkId::from_name(b"V_PC");
    pub const V_N: ChunkId = ChunkId::from_name(b"V_N");
    pub const V_B: ChunkId = ChunkId::from_name(b"V_B");
    pub const V_A: ChunkId = ChunkId::from_name(b"V_A");
    pub const V_UV: ChunkId = ChunkId::from_name(b"V_UV");
    pub const IDX2: ChunkId = ChunkId::from_name(b"IDX2");
    pub const IDX4: ChunkId = ChunkId::from_name(b"IDX4");
    pub const MTRL: ChunkId = ChunkId::from_name(b"MTRL");
    pub const TEXC: ChunkId = ChunkId::from_name(b"TEXC");
    pub const TEXL: ChunkId = ChunkId::from_name(b"TEXL");
    pub const TEXE: ChunkId = ChunkId::from_name(b"TEXE");
    pub const TEXS: ChunkId = ChunkId::from_name(b"TEXS");
    pub const TEXN: ChunkId = ChunkId::from_name(b"TEXN");
    pub const DRAW: ChunkId = ChunkId::from_name(b"DRAW");
    pub const ZTES: ChunkId = ChunkId::from_name(b"ZTES");
    pub const ZWRI: ChunkId = ChunkId::from_name(b"ZWRI");
    pub const ATES: ChunkId = ChunkId::from_name(b"ATES");
    pub const ABND: ChunkId = ChunkId::from_name(b"ABND");
    pub const CULL: ChunkId = ChunkId::from_name(b"CULL");
    pub const LGT: ChunkId = ChunkId::from_name(b"LGT");
    pub const DIFF: ChunkId = ChunkId::from_name(b"DIFF");
    pub const EMIS: ChunkId = ChunkId::from_name(b"EMIS");
    pub const SPEC: ChunkId = ChunkId::from_name(b"SPEC");
    pub const BUMP: ChunkId = ChunkId::from_name(b"BUMP");
    pub const C_AT: ChunkId = ChunkId::from_name(b"C_AT");
    pub const C_FC: ChunkId = ChunkId::from_name(b"C_FC");
    pub const C_VX: ChunkId = ChunkId::from_name(b"C_VX");
    /// Not Selene's: the exporter's own `MESH` sub-chunk, one `unsigned long` per vertex of the
    /// mesh, the model vertex it was written from. The engine's loader skips it like every
    /// chunk its `switch` does not name; the import uses it to join a vertex that a mesh cut
    /// wrote into two meshes back into one, and only such vertices.
    pub const PXVI: ChunkId = ChunkId::from_name(b"PXVI");
}

/// Byte sizes of the spec's structures (MSVC packs them without padding: all members are
/// 4-byte `long`/`float` or byte arrays whose sizes are multiples of 4).
pub mod size {
    /// `SMF_CHUNK`: ID and size.
    pub const CHUNK_HEADER: usize = 8;
    /// `SMF_FILEHEAD`.
    pub const FILE_HEAD: usize = 16;
    /// `SMF_MATRIX`.
    pub const MATRIX: usize = 64;
    /// `SMF_FRAMEDATA`: matrix, name, mesh number, parent frame number.
    pub const FRAME_DATA: usize = MATRIX + super::MAX_NAME_SIZE + 8;
    /// `SMF_OBBDATA`: centre, three axes, three lengths.
    pub const OBB_DATA: usize = 12 + 36 + 12;
    /// `SMF_ANIMATIONSETDATA`.
    pub const ANIMATION_SET_DATA: usize = super::MAX_NAME_SIZE + 8;
    /// `SMF_MESHDATA`: name and material count.
    pub const MESH_DATA: usize = super::MAX_NAME_SIZE + 4;
    /// `SMF_BONEDATA`: offset matrix and frame number.
    pub const BONE_DATA: usize = MATRIX + 4;
    /// `SVertex3DBase`: position and colour.
    pub const V_PC: usize = 16;
    /// `SVertex3DLight` / `SVertex3DBump`: a normal or a tangent.
    pub const V_N: usize = 12;
    /// `SVertex3DAnimation`: the first weight and four palette indices.
    pub const V_A: usize = 8;
    /// `SVertex3DTexture`: two UV sets.
    pub const V_UV: usize = 16;
    /// `SMF_MATERIAL`: name, polygon start and count, vertex start and count.
    pub const MATERIAL: usize = super::MAX_NAME_SIZE + 16;
    /// `unsigned long` flag and value chunks (`DRAW`, `ZTES`, `CULL`, ...).
    pub const FLAG: usize = 4;
    /// `DIFF`: `SMF_VECTOR4`.
    pub const DIFF: usize = 16;
    /// `EMIS`: `SMF_VECTOR3`.
    pub const EMIS: usize = 12;
    /// `SMF_SPECULAR`.
    pub const SPEC: usize = 20;
    /// `SMF_COLLISION_ATTRIBUTE`.
    pub const COLLISION_ATTRIBUTE: usize = 12;
    /// `SMF_COLLISION_FACE`: attribute, three indices, plane.
    pub const COLLISION_FACE: usize = 4 + 12 + 16;
    /// `SMF_COLLISIONVERTEX`: position, colour, normal.
    pub const COLLISION_VERTEX: usize = 12 + 4 + 12;
}

/// `eSMFDrawType`.
pub mod draw {
    pub const NORMAL: u32 = 0;
    pub const BLEND: u32 = 1;
    pub const ADD: u32 = 2;
    pub const ADD_NOALPHA: u32 = 3;
    pub const SUB: u32 = 4;
    pub const SUB_NOALPHA: u32 = 5;
    pub const MULTIPLE: u32 = 6;
}

/// A row-major 4×4 matrix as `SMF_MATRIX` stores it (rows `x`, `y`, `z`, `w`), used with row
/// vectors as Direct3D does.
pub type Matrix = [[f32; 4]; 4];

/// The identity matrix.
pub const IDENTITY: Matrix = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// A translation by `t` (in the fourth row, for row vectors).
#[must_use]
pub fn translation(t: [f32; 3]) -> Matrix {
    let mut m = IDENTITY;
    m[3] = [t[0], t[1], t[2], 1.0];
    m
}

/// `a × b` (apply `a`, then `b`, to a row vector), as `D3DXMatrixMultiply` computes it.
#[must_use]
pub fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    let mut out = [[0.0f32; 4]; 4];
    for (row, out_row) in out.iter_mut().enumerate() {
        for (col, cell) in out_row.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[row][k] * b[k][col]).sum();
        }
    }
    out
}

/// The row vector `(p, 1)` times `m`, without the projective divide (affine matrices only).
#[must_use]
pub fn transform_point(p: [f32; 3], m: &Matrix) -> [f32; 3] {
    let mut out = [0.0f32; 3];
    for (col, cell) in out.iter_mut().enumerate() {
        *cell = p[0] * m[0][col] + p[1] * m[1][col] + p[2] * m[2][col] + m[3][col];
    }
    out
}
