//! Rasterization with D3D9's rules ("Rasterization Rules (Direct3D 9)"):
//! - pixel centres are at integer screen coordinates (D3D10 moved them to x.5);
//! - a triangle covers a pixel whose centre is inside it, or on a top edge (horizontal, the
//!   triangle below it) or a left edge (the triangle to its right): the top-left convention;
//! - points are screen-aligned squares under the same rule (left and top sides in, right and
//!   bottom out).
//!
//! dxso's choices where the page is silent: vertex positions snap to 1/256 pixel (8
//! subpixel bits, as hardware of the time did), and coverage is decided exactly on the
//! snapped coordinates with integer edge functions; lines light one pixel per step along the
//! major axis (the pixel whose centre is nearest the line, ties to the lower coordinate),
//! from the first vertex's pixel up to, but not including, the last vertex's unless
//! `LASTPIXEL` (whose default, TRUE, draws it).
//!
//! Triangles are walked in 8x8 tiles: a tile whose corner pixels are all covered is covered
//! whole, one whose corners are all outside one edge is skipped whole (edge functions are
//! linear), the others are decided pixel by pixel; the edge functions step from pixel to pixel
//! in exact integers, so coverage and weights are those of evaluating every pixel afresh.
//!
//! Pixels are produced in 2x2 quads aligned to even coordinates, as pixel shaders run: every
//! pixel of a quad gets its interpolation weights (helper pixels extrapolated), so derivatives
//! see neighbours as on hardware. Interpolation is perspective-correct (weights divided by w,
//! renormalised); depth is linear in screen space.

/// Subpixel steps per pixel.
pub(crate) const SUBPIXEL: f64 = 256.0;

/// A vertex after the viewport transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Screen {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    /// 1 / w.
    pub inv_w: f32,
    /// Weights over the primitive's original vertices.
    pub weights: [f32; 3],
}

/// A pixel rectangle `[x0, x1) x [y0, y1)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

/// A 2x2 quad: lane 0 (x, y), 1 (x+1, y), 2 (x, y+1), 3 (x+1, y+1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Quad {
    pub x: i64,
    pub y: i64,
    pub covered: [bool; 4],
    /// Per lane, weights over the primitive's original vertices (perspective-correct).
    pub weights: [[f32; 3]; 4],
    /// Per lane, the screen-space depth.
    pub z: [f32; 4],
}

const LANE: [(i64, i64); 4] = [(0, 0), (1, 0), (0, 1), (1, 1)];

/// Walk the quads over the pixels `[x0, x1) x [y0, y1)` (clipped to `rect`), emitting those
/// with a covered pixel.
fn walk(
    bounds: Rect,
    rect: &Rect,
    cover: impl Fn(i64, i64) -> bool,
    interp: impl Fn(i64, i64) -> ([f32; 3], f32),
    emit: &mut dyn FnMut(&Quad),
) {
    let x0 = bounds.x0.max(rect.x0);
    let x1 = bounds.x1.min(rect.x1);
    let y0 = bounds.y0.max(rect.y0);
    let y1 = bounds.y1.min(rect.y1);
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let mut qy = y0 & !1;
    while qy < y1 {
        let mut qx = x0 & !1;
        while qx < x1 {
            let covered = LANE.map(|(dx, dy)| {
                let (x, y) = (qx + dx, qy + dy);
                x >= x0 && x < x1 && y >= y0 && y < y1 && cover(x, y)
            });
            if covered.iter().any(|&c| c) {
                let mut q = Quad {
                    x: qx,
                    y: qy,
                    covered,
                    weights: [[0.0; 3]; 4],
                    z: [0.0; 4],
                };
                for (k, (dx, dy)) in LANE.iter().enumerate() {
                    (q.weights[k], q.z[k]) = interp(qx + dx, qy + dy);
                }
                emit(&q);
            }
            qx += 2;
        }
        qy += 2;
    }
}

fn snap(x: f32) -> i64 {
    (x as f64 * SUBPIXEL).round() as i64
}

/// Twice the signed area of a triangle in snapped coordinates: positive when its vertices
/// run clockwise on screen (y down), D3D9's front face.
pub(crate) fn signed_area(v: &[Screen; 3]) -> i64 {
    let p = v.map(|s| (snap(s.x), snap(s.y)));
    (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1)
}

/// Whether every coordinate is finite and small enough for the fixed-point edge functions
/// (the clipper's guard band keeps them so; a POSITIONT vertex may not be).
pub(crate) fn representable(v: &Screen) -> bool {
    let ok = |x: f32| x.is_finite() && x.abs() < (1 << 22) as f32;
    ok(v.x) && ok(v.y) && v.z.is_finite() && v.inv_w.is_finite()
}

/// Perspective-correct weights over the original vertices from screen-linear ones, for `N`
/// pixels at once: `l[k][n]` is vertex `k`'s screen-linear weight at pixel `n` (a triangle's
/// quad takes its four pixels together, so the divisions run side by side).
#[inline(always)]
fn perspective<const N: usize>(l: &[[f64; N]], v: &[Screen]) -> [[f32; 3]; N] {
    // Σ l·(1/w) in vertex order; where it is zero only its sign could differ from a sum
    // started at -0.0, and then it is not divided by.
    let mut sum = [0.0f64; N];
    for (l, s) in l.iter().zip(v) {
        for n in 0..N {
            sum[n] += l[n] * s.inv_w as f64;
        }
    }
    let mut w = [[0.0f64; N]; 3];
    for (l, s) in l.iter().zip(v) {
        for n in 0..N {
            let q = l[n] * s.inv_w as f64 / sum[n];
            let b = if sum[n] != 0.0 { q } else { 0.0 };
            for c in 0..3 {
                w[c][n] += b * s.weights[c] as f64;
            }
        }
    }
    std::array::from_fn(|n| [w[0][n] as f32, w[1][n] as f32, w[2][n] as f32])
}

/// Tile side in pixels (a multiple of 2, so quads never straddle two tiles).
const TILE: i64 = 8;

/// A triangle's three edge functions on the snapped grid, at pixel centres. Edge k runs from
/// vertex k+1 to k+2 (opposite vertex k) and is positive inside; it is linear in the pixel
/// coordinates, so it steps by `sx[k]` a pixel to the right and `sy[k]` a pixel down.
struct Edges {
    /// The values at pixel `(ox, oy)`.
    origin: [i64; 3],
    ox: i64,
    oy: i64,
    sx: [i64; 3],
    sy: [i64; 3],
    /// The least value that covers: 0 on a top or left edge, 1 on the others.
    min: [i64; 3],
}

impl Edges {
    /// The edge functions of snapped vertices `p`, taken at pixel `(ox, oy)`.
    fn new(p: &[(i64, i64); 3], ox: i64, oy: i64) -> Edges {
        let s = SUBPIXEL as i64;
        let d = |k: usize| {
            let (a, b) = (p[(k + 1) % 3], p[(k + 2) % 3]);
            (a, b.0 - a.0, b.1 - a.1)
        };
        let top_left = |k: usize| {
            let (_, dx, dy) = d(k);
            (dy == 0 && dx > 0) || dy < 0
        };
        Edges {
            origin: std::array::from_fn(|k| {
                let (a, dx, dy) = d(k);
                dx * (oy * s - a.1) - dy * (ox * s - a.0)
            }),
            ox,
            oy,
            sx: std::array::from_fn(|k| -d(k).2 * s),
            sy: std::array::from_fn(|k| d(k).1 * s),
            min: std::array::from_fn(|k| i64::from(!top_left(k))),
        }
    }

    /// The values at pixel (x, y).
    fn at(&self, x: i64, y: i64) -> [i64; 3] {
        std::array::from_fn(|k| {
            self.origin[k] + (x - self.ox) * self.sx[k] + (y - self.oy) * self.sy[k]
        })
    }

    /// Whether values `e` cover their pixel.
    fn covers(&self, e: &[i64; 3]) -> bool {
        e[0] >= self.min[0] && e[1] >= self.min[1] && e[2] >= self.min[2]
    }

    /// Whether pixels `[x0, x1] x [y0, y1]` are all covered, all outside one edge, or neither.
    /// An edge function is linear, so its least and greatest values over the rectangle are at
    /// its corners.
    fn classify(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> Tile {
        let c = [
            self.at(x0, y0),
            self.at(x1, y0),
            self.at(x0, y1),
            self.at(x1, y1),
        ];
        if (0..3).any(|k| c.iter().all(|e| e[k] < self.min[k])) {
            Tile::Outside
        } else if c.iter().all(|e| self.covers(e)) {
            Tile::Inside
        } else {
            Tile::Partial
        }
    }
}

/// A tile's pixels against a triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tile {
    /// Every pixel covered.
    Inside,
    /// No pixel covered.
    Outside,
    /// Decided pixel by pixel.
    Partial,
}

/// Rasterize a triangle with positive [`signed_area`]: the quads over its bounds (clipped to
/// `rect`), row of quads by row of quads, left to right, as [`walk`] emits them. The bounds
/// are cut into `TILE` x `TILE` tiles, each row of tiles classified once: a row of quads skips
/// the tiles outside an edge and takes the pixels of the tiles inside every edge without
/// testing them; the edge functions step from pixel to pixel.
pub(crate) fn triangle(v: &[Screen; 3], rect: &Rect, emit: &mut dyn FnMut(&Quad)) {
    let p = v.map(|s| (snap(s.x), snap(s.y)));
    let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1);
    if area <= 0 {
        return;
    }
    let s = SUBPIXEL as i64;
    let min = |f: fn(&(i64, i64)) -> i64| p.iter().map(f).min().unwrap_or(0);
    let max = |f: fn(&(i64, i64)) -> i64| p.iter().map(f).max().unwrap_or(0);
    let r = Rect {
        x0: (min(|q| q.0).div_euclid(s)).max(rect.x0),
        y0: (min(|q| q.1).div_euclid(s)).max(rect.y0),
        x1: (max(|q| q.0).div_euclid(s) + 1).min(rect.x1),
        y1: (max(|q| q.1).div_euclid(s) + 1).min(rect.y1),
    };
    if r.x0 >= r.x1 || r.y0 >= r.y1 {
        return;
    }
    let edges = Edges::new(&p, r.x0 & !1, r.y0 & !1);
    let interp = |e: &[[i64; 3]; 4]| {
        let a = area as f64;
        let l: [[f64; 4]; 3] = std::array::from_fn(|k| std::array::from_fn(|n| e[n][k] as f64 / a));
        let z: [f32; 4] = std::array::from_fn(|n| {
            let z: f64 = (0..3).map(|k| l[k][n] * v[k].z as f64).sum();
            z as f32
        });
        (perspective(&l, v), z)
    };
    let first_tx = r.x0 & !(TILE - 1);
    let mut tiles = Vec::new();
    let mut ty = r.y0 & !(TILE - 1);
    while ty < r.y1 {
        let (ty0, ty1) = (ty.max(r.y0), (ty + TILE).min(r.y1));
        tiles.clear();
        let mut tx = first_tx;
        while tx < r.x1 {
            let (tx0, tx1) = (tx.max(r.x0), (tx + TILE).min(r.x1));
            tiles.push(edges.classify(tx0, ty0, tx1 - 1, ty1 - 1));
            tx += TILE;
        }
        let mut qy = ty.max(r.y0 & !1);
        while qy < ty1 {
            for (t, &tile) in tiles.iter().enumerate() {
                if tile != Tile::Outside {
                    let tx = first_tx + t as i64 * TILE;
                    let qx = tx.max(r.x0 & !1);
                    let qx1 = (tx + TILE).min(r.x1);
                    quad_row(&edges, &r, tile, (qx, qx1), qy, &interp, emit);
                }
            }
            qy += 2;
        }
        ty += TILE;
    }
}

/// The quads of one tile's part of a row of quads: from column `span.0` up to, not
/// including, pixel column `span.1`. `interp`: the quad's pixels' perspective-correct
/// weights and depths from their edge functions.
#[inline(always)]
fn quad_row(
    edges: &Edges,
    r: &Rect,
    tile: Tile,
    span: (i64, i64),
    qy: i64,
    interp: &impl Fn(&[[i64; 3]; 4]) -> ([[f32; 3]; 4], [f32; 4]),
    emit: &mut dyn FnMut(&Quad),
) {
    let (mut qx, qx1) = span;
    let mut e = edges.at(qx, qy);
    let step: [i64; 3] = std::array::from_fn(|k| 2 * edges.sx[k]);
    while qx < qx1 {
        // Written out: `std::array::from_fn` here stays a call.
        let mut lanes = [e; 4];
        let mut covered = [false; 4];
        for l in 0..4 {
            let (dx, dy) = LANE[l];
            for k in 0..3 {
                lanes[l][k] += dx * edges.sx[k] + dy * edges.sy[k];
            }
            let (x, y) = (qx + dx, qy + dy);
            covered[l] = x >= r.x0
                && x < r.x1
                && y >= r.y0
                && y < r.y1
                && (tile == Tile::Inside || edges.covers(&lanes[l]));
        }
        if covered != [false; 4] {
            let (weights, z) = interp(&lanes);
            emit(&Quad {
                x: qx,
                y: qy,
                covered,
                weights,
                z,
            });
        }
        for k in 0..3 {
            e[k] += step[k];
        }
        qx += 2;
    }
}

/// Rasterize a line from `a` to `b` (see the module docs for the rule).
pub(crate) fn line(
    a: &Screen,
    b: &Screen,
    last_pixel: bool,
    rect: &Rect,
    emit: &mut dyn FnMut(&Quad),
) {
    let (dx, dy) = (b.x as f64 - a.x as f64, b.y as f64 - a.y as f64);
    let x_major = dx.abs() >= dy.abs();
    let (len2, major_a, major_b) = if x_major {
        (dx * dx + dy * dy, a.x as f64, b.x as f64)
    } else {
        (dx * dx + dy * dy, a.y as f64, b.y as f64)
    };
    if len2 == 0.0 {
        return;
    }
    // The pixel nearest a coordinate: ties to the lower one.
    let nearest = |c: f64| (c - 0.5).ceil() as i64;
    let (start, end) = (nearest(major_a), nearest(major_b));
    let step: i64 = if end >= start { 1 } else { -1 };
    let count = (end - start).abs() + last_pixel as i64;
    let param = |x: i64, y: i64| -> f64 {
        ((x as f64 - a.x as f64) * dx + (y as f64 - a.y as f64) * dy) / len2
    };
    let interp = |x: i64, y: i64| {
        let t = param(x, y);
        let l = [1.0 - t, t];
        let z = l[0] * a.z as f64 + l[1] * b.z as f64;
        (perspective(&l.map(|x| [x]), &[*a, *b])[0], z as f32)
    };
    for i in 0..count.min(1 << 16) {
        let m = start + i * step;
        let t = (m as f64 - major_a) / (major_b - major_a);
        let (x, y) = if x_major {
            (m, nearest(a.y as f64 + t * dy))
        } else {
            (nearest(a.x as f64 + t * dx), m)
        };
        let one = Rect {
            x0: x,
            y0: y,
            x1: x + 1,
            y1: y + 1,
        };
        walk(one, rect, |_, _| true, interp, emit);
    }
}

/// Rasterize a point of `size` pixels centred on `c`: the pixels whose centres lie in
/// `[x - size/2, x + size/2) x [y - size/2, y + size/2)`.
pub(crate) fn point(c: &Screen, size: f32, rect: &Rect, emit: &mut dyn FnMut(&Quad)) {
    let h = size as f64 / 2.0;
    let (x, y) = (c.x as f64, c.y as f64);
    let bounds = Rect {
        x0: (x - h).ceil() as i64,
        y0: (y - h).ceil() as i64,
        x1: (x + h).ceil() as i64,
        y1: (y + h).ceil() as i64,
    };
    walk(bounds, rect, |_, _| true, |_, _| (c.weights, c.z), emit);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(x: f32, y: f32) -> Screen {
        Screen {
            x,
            y,
            z: 0.5,
            inv_w: 1.0,
            weights: [1.0, 0.0, 0.0],
        }
    }

    /// The rasterizer [`triangle`] replaced, kept as its oracle: every pixel's edge functions
    /// from scratch.
    fn triangle_by_pixel(v: &[Screen; 3], rect: &Rect, emit: &mut dyn FnMut(&Quad)) {
        let p = v.map(|s| (snap(s.x), snap(s.y)));
        let area = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[2].0 - p[0].0) * (p[1].1 - p[0].1);
        if area <= 0 {
            return;
        }
        // Edge k runs from vertex k+1 to k+2 (opposite vertex k); inside is positive.
        let edge = |k: usize, x: i64, y: i64| -> i64 {
            let (a, b) = (p[(k + 1) % 3], p[(k + 2) % 3]);
            (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0)
        };
        let top_left = |k: usize| -> bool {
            let (a, b) = (p[(k + 1) % 3], p[(k + 2) % 3]);
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            (dy == 0 && dx > 0) || dy < 0
        };
        let tl = [top_left(0), top_left(1), top_left(2)];
        let s = SUBPIXEL as i64;
        let min = |f: fn(&(i64, i64)) -> i64| p.iter().map(f).min().unwrap_or(0);
        let max = |f: fn(&(i64, i64)) -> i64| p.iter().map(f).max().unwrap_or(0);
        let bounds = Rect {
            x0: min(|q| q.0).div_euclid(s),
            y0: min(|q| q.1).div_euclid(s),
            x1: max(|q| q.0).div_euclid(s) + 1,
            y1: max(|q| q.1).div_euclid(s) + 1,
        };
        let cover = |x: i64, y: i64| {
            (0..3).all(|k| {
                let e = edge(k, x * s, y * s);
                e > 0 || (e == 0 && tl[k])
            })
        };
        let interp = |x: i64, y: i64| {
            let l: [f64; 3] = std::array::from_fn(|k| edge(k, x * s, y * s) as f64 / area as f64);
            let z: f64 = l.iter().zip(v).map(|(l, s)| l * s.z as f64).sum();
            (perspective_by_pixel(&l, v), z as f32)
        };
        walk(bounds, rect, cover, interp, emit);
    }

    /// The one-pixel perspective correction [`perspective`] replaced, kept as its oracle.
    fn perspective_by_pixel(l: &[f64], v: &[Screen]) -> [f32; 3] {
        let sum: f64 = l.iter().zip(v).map(|(l, s)| l * s.inv_w as f64).sum();
        let mut w = [0.0f64; 3];
        for (l, s) in l.iter().zip(v) {
            let b = if sum != 0.0 {
                l * s.inv_w as f64 / sum
            } else {
                0.0
            };
            for c in 0..3 {
                w[c] += b * s.weights[c] as f64;
            }
        }
        [w[0] as f32, w[1] as f32, w[2] as f32]
    }

    fn covered(v: [Screen; 3]) -> Vec<(i64, i64)> {
        let rect = Rect {
            x0: -100,
            y0: -100,
            x1: 100,
            y1: 100,
        };
        let mut px = Vec::new();
        triangle(&v, &rect, &mut |q| {
            for (k, (dx, dy)) in LANE.iter().enumerate() {
                if q.covered[k] {
                    px.push((q.x + dx, q.y + dy));
                }
            }
        });
        px.sort();
        px
    }

    #[test]
    fn microsofts_top_left_examples() {
        // "Rasterization Rules (Direct3D 9)": 15 and 10 pixels.
        assert_eq!(covered([s(0.0, 0.0), s(5.0, 0.0), s(5.0, 5.0)]).len(), 15);
        assert_eq!(covered([s(0.0, 5.0), s(0.0, 0.0), s(5.0, 5.0)]).len(), 10);
    }

    #[test]
    fn two_triangles_of_a_quad_cover_each_pixel_once() {
        let a = covered([s(0.25, 0.5), s(6.75, 0.5), s(6.75, 4.25)]);
        let b = covered([s(0.25, 0.5), s(6.75, 4.25), s(0.25, 4.25)]);
        let mut all = [a.clone(), b.clone()].concat();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), a.len() + b.len());
        // Centres x in 1..=6, y in 1..=4: 24 pixels.
        assert_eq!(all.len(), 24);
    }

    #[test]
    fn perspective_weights() {
        // A vertex with w = 4 (inv_w 0.25) pulls the weights towards the nearer ones.
        let v = [
            Screen {
                inv_w: 1.0,
                weights: [1.0, 0.0, 0.0],
                ..s(0.0, 0.0)
            },
            Screen {
                inv_w: 0.25,
                weights: [0.0, 1.0, 0.0],
                ..s(8.0, 0.0)
            },
            Screen {
                inv_w: 1.0,
                weights: [0.0, 0.0, 1.0],
                ..s(0.0, 8.0)
            },
        ];
        // At (4, 0): screen weights (0.5, 0.5, 0); perspective (0.5/0.625, 0.125/0.625).
        let w = perspective(&[[0.5], [0.5], [0.0]], &v)[0];
        assert_eq!(w, [0.8, 0.2, 0.0]);
    }

    #[test]
    fn lines_and_points() {
        let rect = Rect {
            x0: 0,
            y0: 0,
            x1: 16,
            y1: 16,
        };
        let mut n = 0;
        line(&s(0.0, 0.0), &s(4.0, 1.0), true, &rect, &mut |q| {
            n += q.covered.iter().filter(|&&c| c).count()
        });
        assert_eq!(n, 5);
        n = 0;
        line(&s(0.0, 0.0), &s(4.0, 1.0), false, &rect, &mut |q| {
            n += q.covered.iter().filter(|&&c| c).count()
        });
        assert_eq!(n, 4);
        n = 0;
        // A 2-pixel point at (3, 3) covers centres 2 and 3 in each direction.
        point(&s(3.0, 3.0), 2.0, &rect, &mut |q| {
            n += q.covered.iter().filter(|&&c| c).count()
        });
        assert_eq!(n, 4);
    }

    type Rasterizer = fn(&[Screen; 3], &Rect, &mut dyn FnMut(&Quad));

    fn quads(raster: Rasterizer, v: &[Screen; 3], rect: &Rect) -> Vec<Quad> {
        let mut out = Vec::new();
        raster(v, rect, &mut |q| out.push(*q));
        out
    }

    /// A rasterizer's quads with their weights and depths as bits (signed zeros told apart).
    type QuadBits = (i64, i64, [bool; 4], [[u32; 3]; 4], [u32; 4]);

    fn quad_bits(raster: Rasterizer, v: &[Screen; 3], rect: &Rect) -> Vec<QuadBits> {
        quads(raster, v, rect)
            .iter()
            .map(|q| {
                let weights = q.weights.map(|w| w.map(f32::to_bits));
                (q.x, q.y, q.covered, weights, q.z.map(f32::to_bits))
            })
            .collect()
    }

    #[test]
    fn tiles_inside_outside_and_partial() {
        // A right triangle over (0, 0), (64, 0), (0, 64): the 8x8 tile at the origin is
        // inside, the one at (56, 56) outside, the one at (32, 24) crosses the hypotenuse.
        let p = [(0, 0), (64 * 256, 0), (0, 64 * 256)];
        let e = Edges::new(&p, 0, 0);
        assert_eq!(e.classify(0, 0, 7, 7), Tile::Inside);
        assert_eq!(e.classify(56, 56, 63, 63), Tile::Outside);
        assert_eq!(e.classify(32, 24, 39, 31), Tile::Partial);
        // Stepping agrees with the definition: edge 0 (from (64, 0) to (0, 64)) at (10, 20)
        // is -64·256·(20·256) - 64·256·(10·256 - 64·256).
        let direct = -64 * 256 * (20 * 256) - 64 * 256 * (10 * 256 - 64 * 256);
        assert_eq!(e.at(10, 20)[0], direct);
    }

    #[test]
    fn a_large_triangle_matches_the_pixel_by_pixel_walk() {
        let mut v = [s(-3.3, -2.0), s(90.7, 5.25), s(10.0, 77.9)];
        v[1].z = 0.25;
        v[2].inv_w = 0.5;
        v[2].weights = [0.0, 0.0, 1.0];
        let rect = Rect {
            x0: 0,
            y0: 3,
            x1: 80,
            y1: 64,
        };
        let new = quad_bits(triangle, &v, &rect);
        assert_eq!(new, quad_bits(triangle_by_pixel, &v, &rect));
        assert!(new.len() > 500, "{} quads", new.len());
    }

    fn screen() -> impl Strategy<Value = Screen> {
        (
            -40.0f32..120.0,
            -40.0f32..120.0,
            0.0f32..1.0,
            0.05f32..4.0,
            prop_oneof![
                prop::sample::select(vec![0usize, 1, 2]).prop_map(|k| {
                    let mut weights = [0.0; 3];
                    weights[k] = 1.0;
                    weights
                }),
                // A clipped vertex's weights over the original three.
                prop::array::uniform3(-0.5f32..1.5),
            ],
        )
            .prop_map(|(x, y, z, inv_w, weights)| Screen {
                x,
                y,
                z,
                inv_w,
                weights,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The tiled rasterizer emits exactly the quads (positions, coverage, the bits of the
        /// weights and depths) of the pixel-by-pixel one, in the same order.
        #[test]
        fn tiled_matches_pixel_by_pixel(
            a in screen(),
            b in screen(),
            c in screen(),
            on_grid in any::<bool>(),
            rect in (-8i64..40, -8i64..40, 1i64..100, 1i64..100),
        ) {
            let mut v = [a, b, c];
            if on_grid {
                // Vertices on pixel centres and half pixels: edges through pixel centres
                // (the top-left rule's ties).
                for p in &mut v {
                    p.x = (p.x * 2.0).round() / 2.0;
                    p.y = (p.y * 2.0).round() / 2.0;
                }
            }
            if signed_area(&v) < 0 {
                v.swap(1, 2);
            }
            let rect = Rect { x0: rect.0, y0: rect.1, x1: rect.0 + rect.2, y1: rect.1 + rect.3 };
            prop_assert_eq!(quad_bits(triangle, &v, &rect), quad_bits(triangle_by_pixel, &v, &rect));
        }
    }
}
