//! Vertex textures (vs_3_0 `texldl`). Filled in by the vertex-texture work; a sampler with no
//! texture returns (0, 0, 0, 1).

use crate::LANES;
use crate::exec::Row;

/// What `texldl` samples from in one draw.
pub(crate) struct Sampling<'a> {
    pub _marker: std::marker::PhantomData<&'a ()>,
}

impl Sampling<'_> {
    pub fn sample_batch(&self, _sampler: u8, _coords: &[Row; 4]) -> [Row; 4] {
        [[0.0; LANES], [0.0; LANES], [0.0; LANES], [1.0; LANES]]
    }
}
