//! The view's GLSL (330 core / 300 es; three-d adds the `#version` line). MikuMikuDance's
//! shading: colour = clamp(diffuse × light + ambient), × texture, sphere map (× or +, or a
//! sub-texture on additional UV 1), × toon ramp at 0.5 − N·L/2, + specular, each texel's RGB
//! tinted by the material morphs first (`pmx_core::pose::TextureTint::apply`); the edge pass
//! pushes back faces out along the normal by edge size × vertex edge scale pixels.

/// Attribute locations of the mesh shaders (`layout(location = ..)` below): the mesh is drawn
/// from buffers the view owns ([`super::gl`]), bound by location, not by three-d's name lookup.
pub const A_POSITION: u32 = 0;
pub const A_NORMAL: u32 = 1;
pub const A_UV: u32 = 2;
pub const A_UV1: u32 = 3;
pub const A_EDGE_SCALE: u32 = 4;
pub const A_WEIGHT_COLOR: u32 = 5;

/// Texture units of the skinning data's texture buffers (above the units three-d gives the
/// material textures).
pub const SKIN_UNITS: [(&str, u32); 6] = [
    ("u_skin_vertex", 8),
    ("u_skin_weights", 9),
    ("u_skin_sdef", 10),
    ("u_skin_morphs", 11),
    ("u_skin_palette", 12),
    ("u_morph_weights", 13),
];

/// Skinning on the GPU, put before every vertex shader that draws from the mesh's buffers:
/// `skin_vertex(position, normal)` turns the world-space rest position and normal of vertex
/// `gl_VertexID` into the posed ones, exactly as `pmx_core::pose` does it on the CPU (vertex
/// morph offsets, then BDEF1/2/4 as a blend of the bones' matrices, SDEF with the slerp of the
/// two bones' rotations, QDEF with dual quaternions; normals not renormalised), when
/// `u_skinning` is 1; at 0 it leaves them as they are (the rest pose draws exactly as without
/// it). The data's layout is `pmx_scene::skin`'s. OpenGL ES 3.0 has no texture buffers: there
/// the function does nothing.
pub const SKIN_GLSL: &str = r"
#ifndef GL_ES
uniform int u_skinning;
uniform usamplerBuffer u_skin_vertex;
uniform samplerBuffer u_skin_weights;
uniform samplerBuffer u_skin_sdef;
uniform samplerBuffer u_skin_morphs;
uniform samplerBuffer u_skin_palette;
uniform samplerBuffer u_morph_weights;
vec4 palette_row(int bone, int row) { return texelFetch(u_skin_palette, bone * 4 + row); }
vec4 bone_rotation(int bone) { return texelFetch(u_skin_palette, bone * 4 + 3); }
// glam's Mat3::from_quat.
mat3 quat_matrix(vec4 q) {
    vec3 q2 = q.xyz + q.xyz;
    float xx = q.x * q2.x, xy = q.x * q2.y, xz = q.x * q2.z;
    float yy = q.y * q2.y, yz = q.y * q2.z, zz = q.z * q2.z;
    float wx = q.w * q2.x, wy = q.w * q2.y, wz = q.w * q2.z;
    return mat3(
        vec3(1.0 - (yy + zz), xy + wz, xz - wy),
        vec3(xy - wz, 1.0 - (xx + zz), yz + wx),
        vec3(xz + wy, yz - wx, 1.0 - (xx + yy)));
}
// The Hamilton product a * b (glam's Quat * Quat).
vec4 quat_mul(vec4 a, vec4 b) {
    return vec4(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
// Spherical interpolation on the shorter arc (pmx_core's skin::slerp).
vec4 slerp_short(vec4 from, vec4 to, float t) {
    float c = dot(from, to);
    if (c < 0.0) { c = -c; to = -to; }
    if (c > 0.9995) { return normalize(normalize(from + (to - from) * t)); }
    float s = sqrt(1.0 - c * c);
    float angle = atan(s / (1.0 + c)) * 2.0;
    float st = sin(angle * t);
    float ct = cos(angle * t);
    return from * ((s * ct - c * st) / s) + to * (st / s);
}
vec3 bone_point(int bone, vec3 p) {
    vec4 r0 = palette_row(bone, 0), r1 = palette_row(bone, 1), r2 = palette_row(bone, 2);
    return vec3(dot(r0.xyz, p) + r0.w, dot(r1.xyz, p) + r1.w, dot(r2.xyz, p) + r2.w);
}
void skin_vertex(inout vec3 position, inout vec3 normal) {
    if (u_skinning == 0) { return; }
    int v = gl_VertexID;
    ivec4 bones = ivec4(texelFetch(u_skin_vertex, v * 2));
    ivec4 info = ivec4(texelFetch(u_skin_vertex, v * 2 + 1));
    vec4 w = texelFetch(u_skin_weights, v);
    // World space to model space (Z mirrored) and back at the end.
    vec3 p = vec3(position.xy, -position.z);
    vec3 n = vec3(normal.xy, -normal.z);
    for (int e = info.z; e < info.w; ++e) {
        vec4 entry = texelFetch(u_skin_morphs, e);
        p += entry.xyz * texelFetch(u_morph_weights, int(entry.w)).r;
    }
    if (info.x <= 2) {
        // BDEF1, BDEF2, BDEF4: the weighted sum of the bones' matrices (unused slots are the
        // identity at weight 0).
        vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
        for (int k = 0; k < 4; ++k) {
            r0 += palette_row(bones[k], 0) * w[k];
            r1 += palette_row(bones[k], 1) * w[k];
            r2 += palette_row(bones[k], 2) * w[k];
        }
        p = vec3(dot(r0.xyz, p) + r0.w, dot(r1.xyz, p) + r1.w, dot(r2.xyz, p) + r2.w);
        n = vec3(dot(r0.xyz, n), dot(r1.xyz, n), dot(r2.xyz, n));
    } else if (info.x == 3) {
        vec3 c = texelFetch(u_skin_sdef, info.y * 3).xyz;
        vec3 cr0 = texelFetch(u_skin_sdef, info.y * 3 + 1).xyz;
        vec3 cr1 = texelFetch(u_skin_sdef, info.y * 3 + 2).xyz;
        mat3 rotation = quat_matrix(slerp_short(bone_rotation(bones.x), bone_rotation(bones.y), w.y));
        p = rotation * (p - c) + bone_point(bones.x, cr0) * w.x + bone_point(bones.y, cr1) * w.y;
        n = rotation * n;
    } else {
        // QDEF: dual quaternions (real: the global rotation; dual: translation * real / 2),
        // blended on the first bone's hemisphere.
        vec4 pivot = bone_rotation(bones.x);
        vec4 real = vec4(0.0), dual = vec4(0.0);
        for (int k = 0; k < 4; ++k) {
            vec4 r = bone_rotation(bones[k]);
            vec3 t = vec3(palette_row(bones[k], 0).w, palette_row(bones[k], 1).w, palette_row(bones[k], 2).w);
            vec4 d = quat_mul(vec4(t, 0.0), r) * 0.5;
            float weight = dot(pivot, r) < 0.0 ? -w[k] : w[k];
            real += r * weight;
            dual += d * weight;
        }
        float len = length(real);
        if (len > 1.1920929e-7) {
            real /= len;
            dual /= len;
            vec4 t = quat_mul(dual, vec4(-real.xyz, real.w));
            mat3 rotation = quat_matrix(real);
            p = rotation * p + t.xyz * 2.0;
            n = rotation * n;
        }
    }
    position = vec3(p.xy, -p.z);
    normal = vec3(n.xy, -n.z);
}
#else
void skin_vertex(inout vec3 position, inout vec3 normal) {}
#endif
";

/// The skinning shader alone, for reading back what it makes of the mesh (transform
/// feedback; tests): the posed position and normal of each vertex, world space.
pub const SKIN_FEEDBACK_VS: &str = r"
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
out vec3 skinned_position;
out vec3 skinned_normal;
void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
    skin_vertex(position, normal);
    skinned_position = position;
    skinned_normal = normal;
    gl_Position = vec4(position, 1.0);
}
";

pub const MODEL_VS: &str = r"
uniform mat4 u_view_projection;
uniform mat4 u_view;
uniform float u_point_size;
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
#ifdef HAS_UV1
layout(location = 3) in vec4 a_uv1;
#endif
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_uv1;
out vec3 v_position;
void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
    skin_vertex(position, normal);
    v_normal = normal;
    v_uv = a_uv;
#ifdef HAS_UV1
    v_uv1 = a_uv1;
#else
    v_uv1 = vec4(1.0);
#endif
    v_position = position;
    gl_PointSize = u_point_size;
    gl_Position = u_view_projection * vec4(position, 1.0);
}
";

pub const MODEL_FS: &str = r"
uniform mat4 u_view;
uniform vec4 u_diffuse;
uniform vec3 u_ambient;
uniform vec3 u_specular;
uniform float u_specular_power;
uniform vec3 u_light_color;
uniform vec3 u_light_direction;
uniform vec3 u_eye;
uniform sampler2D u_texture;
uniform sampler2D u_sphere;
uniform sampler2D u_toon;
uniform int u_sphere_mode;
uniform int u_vertex_color;
uniform vec4 u_tint;
uniform vec4 u_texture_tint_multiply;
uniform vec4 u_texture_tint_add;
uniform vec4 u_sphere_tint_multiply;
uniform vec4 u_sphere_tint_add;
uniform vec4 u_toon_tint_multiply;
uniform vec4 u_toon_tint_add;
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_uv1;
in vec3 v_position;
out vec4 frag_color;
// Image coordinates (v = 0 at the top row, as PMX stores UVs) to GL's: three-d uploads the top
// row at t = 1.
vec2 image_uv(vec2 uv) { return vec2(uv.x, 1.0 - uv.y); }
// A material morph's tint of a texel's RGB (the PMX spec; pmx_core's TextureTint::apply): the
// multiplied texel mixed with white by the multiply A, plus the added colour mixed with black
// by the add A; the texel's alpha stays. Written so that the identity (1, 1, 1, 1) and
// (0, 0, 0, 0) gives the texel back bit for bit.
vec4 tinted(vec4 texel, vec4 multiply, vec4 add) {
    vec3 rgb = texel.rgb * multiply.rgb * multiply.a + (1.0 - multiply.a) + add.rgb * add.a;
    return vec4(rgb, texel.a);
}
void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) { n = -n; }
    vec3 l = normalize(u_light_direction);
    vec4 color = vec4(clamp(u_diffuse.rgb * u_light_color + u_ambient, 0.0, 1.0), u_diffuse.a);
    if (u_vertex_color == 1) { color *= v_uv1; }
    color *= tinted(texture(u_texture, image_uv(v_uv)), u_texture_tint_multiply, u_texture_tint_add);
    if (u_sphere_mode == 3) {
        color *= tinted(texture(u_sphere, image_uv(v_uv1.xy)), u_sphere_tint_multiply, u_sphere_tint_add);
    } else if (u_sphere_mode != 0) {
        vec3 vn = normalize(mat3(u_view) * n);
        vec4 texel = texture(u_sphere, image_uv(vec2(vn.x * 0.5 + 0.5, 0.5 - vn.y * 0.5)));
        vec3 s = tinted(texel, u_sphere_tint_multiply, u_sphere_tint_add).rgb;
        if (u_sphere_mode == 1) { color.rgb *= s; } else { color.rgb += s; }
    }
    float light_normal = dot(n, -l);
    vec2 toon_size = vec2(textureSize(u_toon, 0));
    float v = clamp(0.5 - light_normal * 0.5, 0.5 / toon_size.y, 1.0 - 0.5 / toon_size.y);
    vec4 toon = texture(u_toon, image_uv(vec2(0.5, v)));
    color.rgb *= tinted(toon, u_toon_tint_multiply, u_toon_tint_add).rgb;
    if (u_specular_power > 0.0) {
        vec3 h = normalize(normalize(u_eye - v_position) - l);
        color.rgb += pow(max(dot(h, n), 0.0), u_specular_power) * u_specular * u_light_color;
    }
    color = clamp(color, 0.0, 1.0);
    color.rgb = mix(color.rgb, u_tint.rgb, u_tint.a);
    // Fully transparent texels write no depth (they would hide what is drawn after them).
    if (color.a < 0.004) { discard; }
    frag_color = color;
}
";

pub const EDGE_VS: &str = r"
uniform mat4 u_view_projection;
uniform vec3 u_eye;
uniform float u_edge_size;
uniform float u_pixel_factor;
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 4) in float a_edge_scale;
void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
    skin_vertex(position, normal);
    float distance_to_eye = distance(u_eye, position);
    vec3 n = normalize(normal);
    vec3 p = position + n * u_edge_size * a_edge_scale * distance_to_eye * u_pixel_factor;
    gl_Position = u_view_projection * vec4(p, 1.0);
}
";

pub const EDGE_FS: &str = r"
uniform vec4 u_edge_color;
out vec4 frag_color;
void main() {
    frag_color = u_edge_color;
}
";

/// Overlays: per-vertex colours; round points; an optional depth bias towards the camera.
pub const COLOR_VS: &str = r"
uniform mat4 u_view_projection;
uniform float u_point_size;
uniform float u_depth_bias;
in vec3 a_position;
in vec4 a_color;
out vec4 v_color;
void main() {
    v_color = a_color;
    gl_PointSize = u_point_size;
    gl_Position = u_view_projection * vec4(a_position, 1.0);
    gl_Position.z -= u_depth_bias * gl_Position.w;
}
";

pub const COLOR_FS: &str = r"
uniform int u_round;
in vec4 v_color;
out vec4 frag_color;
void main() {
    if (u_round == 1 && length(gl_PointCoord - vec2(0.5)) > 0.5) { discard; }
    frag_color = v_color;
}
";

/// The mesh in one colour (wireframe, vertices as points).
pub const FLAT_VS: &str = r"
uniform mat4 u_view_projection;
uniform float u_point_size;
uniform float u_depth_bias;
layout(location = 0) in vec3 a_position;
void main() {
    vec3 position = a_position;
    vec3 normal = vec3(0.0);
    skin_vertex(position, normal);
    gl_PointSize = u_point_size;
    gl_Position = u_view_projection * vec4(position, 1.0);
    gl_Position.z -= u_depth_bias * gl_Position.w;
}
";

pub const FLAT_FS: &str = r"
uniform vec4 u_color;
out vec4 frag_color;
void main() {
    frag_color = u_color;
}
";

/// The weight view: each vertex's colour (the CPU side's ramp or bone colours), with simple
/// diffuse light.
pub const WEIGHT_VS: &str = r"
uniform mat4 u_view_projection;
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 5) in vec4 a_weight_color;
out vec3 v_normal;
out vec3 v_color;
void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
    skin_vertex(position, normal);
    v_normal = normal;
    v_color = a_weight_color.rgb;
    gl_Position = u_view_projection * vec4(position, 1.0);
}
";

pub const WEIGHT_FS: &str = r"
uniform vec3 u_light_direction;
in vec3 v_normal;
in vec3 v_color;
out vec4 frag_color;
void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) { n = -n; }
    float light = 0.55 + 0.45 * max(dot(n, -normalize(u_light_direction)), 0.0);
    frag_color = vec4(v_color * light, 1.0);
}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_shaders_use_the_attribute_locations() {
        let locations = [
            ("vec3 a_position", A_POSITION),
            ("vec3 a_normal", A_NORMAL),
            ("vec2 a_uv", A_UV),
            ("vec4 a_uv1", A_UV1),
            ("float a_edge_scale", A_EDGE_SCALE),
            ("vec4 a_weight_color", A_WEIGHT_COLOR),
        ];
        for source in [MODEL_VS, EDGE_VS, FLAT_VS, WEIGHT_VS, SKIN_FEEDBACK_VS] {
            for line in source.lines().filter(|l| l.contains(" in ")) {
                let (declaration, location) = locations
                    .iter()
                    .find(|(d, _)| line.ends_with(&format!("{d};")))
                    .unwrap_or_else(|| panic!("unknown attribute: {line}"));
                assert_eq!(
                    line,
                    format!("layout(location = {location}) in {declaration};")
                );
                assert!(*location < crate::gl::MAX_LOCATIONS);
            }
        }
    }
}
