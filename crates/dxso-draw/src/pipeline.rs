//! One draw through the pipeline stages (being written).

use crate::{Draw, DrawError, Surfaces};

pub(crate) fn draw(_surfaces: &mut Surfaces, _draw: &Draw) -> Result<(), DrawError> {
    Err(DrawError::Internal(
        "the CPU pipeline is not written yet".into(),
    ))
}
