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
    v_normal = a_normal;
    v_uv = a_uv;
#ifdef HAS_UV1
    v_uv1 = a_uv1;
#else
    v_uv1 = vec4(1.0);
#endif
    v_position = a_position;
    gl_PointSize = u_point_size;
    gl_Position = u_view_projection * vec4(a_position, 1.0);
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
    float distance_to_eye = distance(u_eye, a_position);
    vec3 n = normalize(a_normal);
    vec3 p = a_position + n * u_edge_size * a_edge_scale * distance_to_eye * u_pixel_factor;
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
    gl_PointSize = u_point_size;
    gl_Position = u_view_projection * vec4(a_position, 1.0);
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
    v_normal = a_normal;
    v_color = a_weight_color.rgb;
    gl_Position = u_view_projection * vec4(a_position, 1.0);
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
        for source in [MODEL_VS, EDGE_VS, FLAT_VS, WEIGHT_VS] {
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
