//! Draws without a vertex shader. With lighting off and identity world/view/projection (the
//! only fixed-function vertex processing dxso models), D3D9 passes every declared element to
//! the rasterizer as it is: a `POSITIONT` element is screen space (x, y, z, rhw), a `POSITION`
//! element clip space (x, y, z, 1), `COLOR0` the diffuse colour, `COLOR1` the specular, and
//! every other element under its own semantic.
//!
//! dxso runs that pass-through on the vertex engine as a vs_3_0 `mov o#, v#` per element (so
//! fetch, D3DDECLTYPE decoding, instancing and indices are the vertex stage's own), with each
//! element renamed `TEXCOORD#` on the way in; the real semantics come back beside the device.

use crate::DrawError;
use dxso::ir::Usage;
use dxso::validate::{Caps, validate};
use dxso_vm::{Device, VertexElement};
use std::fmt::Write;

/// vs_3_0 has 12 output registers.
const MAX_ELEMENTS: usize = 12;

/// Set `device` up to pass `declaration`'s elements through: the pass-through shader and the
/// renamed declaration. Returns the semantic of each output register `o0, o1, ...`.
pub fn pass_through(
    device: &mut Device,
    declaration: Vec<VertexElement>,
) -> Result<Vec<(Usage, u8)>, DrawError> {
    if declaration.len() > MAX_ELEMENTS {
        return Err(DrawError::Scene(format!(
            "a draw without a vertex shader passes at most {MAX_ELEMENTS} declared elements; this one has {}",
            declaration.len()
        )));
    }
    let position = declaration
        .iter()
        .position(|e| matches!(e.usage, Usage::Position | Usage::PositionT) && e.usage_index == 0)
        .ok_or_else(|| {
            DrawError::Scene(
                "a draw without a vertex shader needs a POSITION or POSITIONT element (usage index 0)"
                    .into(),
            )
        })?;
    let mut text = String::from("vs_3_0\n");
    let mut body = String::new();
    let mut semantics = Vec::new();
    let mut renamed = Vec::new();
    for (i, e) in declaration.into_iter().enumerate() {
        for (k, seen) in semantics.iter().enumerate() {
            if *seen == (e.usage, e.usage_index) {
                return Err(DrawError::Scene(format!(
                    "declaration elements {k} and {i} both have the semantic {}{}",
                    e.usage.name().to_ascii_uppercase(),
                    e.usage_index
                )));
            }
        }
        semantics.push((e.usage, e.usage_index));
        let out = if i == position {
            "position".to_string()
        } else {
            format!("texcoord{i}")
        };
        let _ = writeln!(text, "dcl_texcoord{i} v{i}\ndcl_{out} o{i}");
        let _ = writeln!(body, "mov o{i}, v{i}");
        renamed.push(VertexElement {
            usage: Usage::TexCoord,
            usage_index: i as u8,
            ..e
        });
    }
    text.push_str(&body);
    let shader = dxso::text::parse(&text).map_err(|e| DrawError::Internal(e.to_string()))?;
    let checked =
        validate(&shader, &Caps::max()).map_err(|e| DrawError::Internal(format!("{e:?}")))?;
    device.set_vertex_shader(&checked)?;
    device.set_declaration(renamed)?;
    Ok(semantics)
}
