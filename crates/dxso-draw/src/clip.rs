//! Clipping in homogeneous clip space: against the view volume's near and far planes
//! (`0 <= z <= w`), a guard band around `-w <= x, y <= w`, and the enabled user clip planes
//! (kept where `dot(plane, position) >= 0`, in clip space as D3D9 has them with a vertex
//! shader).
//!
//! dxso clips x and y against a guard band [`GUARD`] times the view volume instead of the
//! volume itself (as hardware does): the viewport rectangle then cuts pixels exactly, with no
//! new vertices and no rounding from them; the guard band only keeps screen coordinates small
//! enough for the rasterizer's fixed-point arithmetic.
//!
//! A clipped vertex carries its weights over the primitive's original vertices, so every
//! attribute is interpolated from the originals once per pixel (clip space is linear in them).

/// Guard band: x and y are clipped at `±GUARD·w`.
pub(crate) const GUARD: f32 = 4.0;

/// A vertex of a clipped primitive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ClipVertex {
    pub pos: [f32; 4],
    /// Weights over the original vertices (sum 1).
    pub weights: [f32; 3],
}

/// A plane: inside where `dot(p, pos) + d >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plane {
    pub p: [f32; 4],
    pub d: f32,
}

impl Plane {
    fn distance(&self, v: &[f32; 4]) -> f32 {
        self.p[0] * v[0] + self.p[1] * v[1] + self.p[2] * v[2] + self.p[3] * v[3] + self.d
    }
}

/// The planes a draw clips against: the view volume (with the guard band), w > 0, and the
/// user clip planes enabled by bits of `CLIPPLANEENABLE`.
pub(crate) fn planes(user: &[[f32; 4]; 6], enabled: u32) -> Vec<Plane> {
    let mut v = vec![
        Plane {
            p: [0.0, 0.0, 1.0, 0.0],
            d: 0.0,
        },
        Plane {
            p: [0.0, 0.0, -1.0, 1.0],
            d: 0.0,
        },
        Plane {
            p: [1.0, 0.0, 0.0, GUARD],
            d: 0.0,
        },
        Plane {
            p: [-1.0, 0.0, 0.0, GUARD],
            d: 0.0,
        },
        Plane {
            p: [0.0, 1.0, 0.0, GUARD],
            d: 0.0,
        },
        Plane {
            p: [0.0, -1.0, 0.0, GUARD],
            d: 0.0,
        },
        // w stays positive: the perspective divide is defined.
        Plane {
            p: [0.0, 0.0, 0.0, 1.0],
            d: -1e-20,
        },
    ];
    for (n, p) in user.iter().enumerate() {
        if enabled >> n & 1 != 0 {
            v.push(Plane { p: *p, d: 0.0 });
        }
    }
    v
}

/// Whether a point lies inside every plane.
pub(crate) fn inside(planes: &[Plane], pos: &[f32; 4]) -> bool {
    planes.iter().all(|p| p.distance(pos) >= 0.0)
}

fn lerp(a: &ClipVertex, b: &ClipVertex, t: f32) -> ClipVertex {
    ClipVertex {
        pos: std::array::from_fn(|c| a.pos[c] + (b.pos[c] - a.pos[c]) * t),
        weights: std::array::from_fn(|c| a.weights[c] + (b.weights[c] - a.weights[c]) * t),
    }
}

/// Clip a convex polygon (a triangle, or a line as two vertices) against `planes`
/// (Sutherland-Hodgman). The result is empty, or a polygon (a segment for lines) in the same
/// winding. NaN positions are outside every plane.
pub(crate) fn clip(mut poly: Vec<ClipVertex>, planes: &[Plane]) -> Vec<ClipVertex> {
    let closed = poly.len() > 2;
    for plane in planes {
        if poly.is_empty() {
            break;
        }
        let d: Vec<f32> = poly.iter().map(|v| plane.distance(&v.pos)).collect();
        // `!(x < 0)` would keep NaN; `x >= 0` drops it.
        if d.iter().all(|&x| x >= 0.0) {
            continue;
        }
        let mut out = Vec::with_capacity(poly.len() + 2);
        let n = poly.len();
        let edges = if closed { n } else { n - 1 };
        if !closed && d[0] >= 0.0 {
            out.push(poly[0]);
        }
        for i in 0..edges {
            let j = (i + 1) % n;
            let (a, b) = (&poly[i], &poly[j]);
            let (da, db) = (d[i], d[j]);
            if closed && da >= 0.0 {
                out.push(*a);
            }
            if (da >= 0.0) != (db >= 0.0) && da.is_finite() && db.is_finite() {
                out.push(lerp(a, b, da / (da - db)));
            }
            if !closed && db >= 0.0 {
                out.push(*b);
            }
        }
        poly = out;
        if closed && poly.len() < 3 || !closed && poly.len() < 2 {
            poly.clear();
        }
    }
    poly
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(pos: [f32; 4], k: usize) -> ClipVertex {
        let mut weights = [0.0; 3];
        weights[k] = 1.0;
        ClipVertex { pos, weights }
    }

    #[test]
    fn a_triangle_inside_is_untouched() {
        let t = vec![
            cv([0.0, 0.0, 0.5, 1.0], 0),
            cv([1.0, 0.0, 0.5, 1.0], 1),
            cv([0.0, 1.0, 0.5, 1.0], 2),
        ];
        assert_eq!(clip(t.clone(), &planes(&[[0.0; 4]; 6], 0)), t);
    }

    #[test]
    fn the_near_plane_cuts_with_weights() {
        // z from -1 to 1 along the edge 0 -> 1: the cut is halfway.
        let t = vec![
            cv([0.0, 0.0, -1.0, 1.0], 0),
            cv([0.0, 0.0, 1.0, 1.0], 1),
            cv([0.0, 1.0, 1.0, 1.0], 2),
        ];
        let out = clip(t, &planes(&[[0.0; 4]; 6], 0));
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|v| v.pos[2] >= 0.0));
        assert!(out.iter().any(|v| v.weights == [0.5, 0.5, 0.0]));
        assert!(
            out.iter()
                .all(|v| (v.weights.iter().sum::<f32>() - 1.0).abs() < 1e-6)
        );
    }

    #[test]
    fn user_planes_only_when_enabled() {
        let user = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0; 4],
            [0.0; 4],
            [0.0; 4],
            [0.0; 4],
            [0.0; 4],
        ];
        let t = vec![
            cv([-1.0, 0.0, 0.5, 1.0], 0),
            cv([-0.5, 0.0, 0.5, 1.0], 1),
            cv([-1.0, 1.0, 0.5, 1.0], 2),
        ];
        assert_eq!(clip(t.clone(), &planes(&user, 0)).len(), 3);
        assert!(clip(t, &planes(&user, 1)).is_empty());
    }

    #[test]
    fn lines_clip_to_segments() {
        let l = vec![cv([0.0, 0.0, -1.0, 1.0], 0), cv([0.0, 0.0, 1.0, 1.0], 1)];
        let out = clip(l, &planes(&[[0.0; 4]; 6], 0));
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].weights, [0.5, 0.5, 0.0]);
        assert_eq!(out[1].weights, [0.0, 1.0, 0.0]);
        let nan = vec![
            cv([f32::NAN; 4], 0),
            cv([0.0, 0.0, 0.5, 1.0], 1),
            cv([0.0, 1.0, 0.5, 1.0], 2),
        ];
        assert!(clip(nan, &planes(&[[0.0; 4]; 6], 0)).len() <= 3);
    }
}
