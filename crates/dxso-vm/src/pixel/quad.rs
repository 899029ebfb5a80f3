//! Quad derivatives: lanes 4q .. 4q+3 hold the pixels (x, y), (x+1, y), (x, y+1),
//! (x+1, y+1) of one 2x2 quad ([`super::QUAD`]).
//!
//! dxso computes "fine" derivatives: `dsx` is the right pixel minus the left one of the
//! lane's own row of the quad (lanes 1 − 0 for lanes 0 and 1, 3 − 2 for lanes 2 and 3), `dsy`
//! the bottom pixel minus the top one of its own column (2 − 0 for lanes 0 and 2, 3 − 1 for
//! lanes 1 and 3). D3D9 leaves the choice to hardware (dsx/dsy reference pages); the
//! implicit level of detail of texture sampling uses the same differences.

/// d/dx of a row of values, per quad (`N` lanes: a batch's, or the compiled code's group
/// of whole quads).
pub(crate) fn ddx<const N: usize>(v: &[f32; N]) -> [f32; N] {
    let mut out = [0.0; N];
    for q in (0..N).step_by(4) {
        let top = v[q + 1] - v[q];
        let bottom = v[q + 3] - v[q + 2];
        out[q] = top;
        out[q + 1] = top;
        out[q + 2] = bottom;
        out[q + 3] = bottom;
    }
    out
}

/// d/dy of a row of values, per quad (as [`ddx`]).
pub(crate) fn ddy<const N: usize>(v: &[f32; N]) -> [f32; N] {
    let mut out = [0.0; N];
    for q in (0..N).step_by(4) {
        let left = v[q + 2] - v[q];
        let right = v[q + 3] - v[q + 1];
        out[q] = left;
        out[q + 2] = left;
        out[q + 1] = right;
        out[q + 3] = right;
    }
    out
}
