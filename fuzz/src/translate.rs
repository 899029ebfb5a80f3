//! `translate`: every shader that validates (max caps) translates to naga IR, in both float
//! modes, and naga's validator accepts the module (`dxso_naga::translate` runs it; a module
//! it rejects is `Error::Validation`). The ps_1_x family is not translated yet: its
//! `Error::Unsupported` is counted as skipped; any other error is a finding.

use dxso::validate::{Caps, validate};
use dxso_naga::{Error, FloatMode, Options};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Validated shaders translated in both modes, and ps_1_x ones skipped (unsupported).
static TRANSLATED: AtomicUsize = AtomicUsize::new(0);
static SKIPPED: AtomicUsize = AtomicUsize::new(0);

/// `translate`: a shader file (text or tokens, as `dxso check` loads it).
pub fn translate(data: &[u8]) {
    let Some((shader, _)) = super::format::load(data) else {
        return;
    };
    let Ok(checked) = validate(&shader, &Caps::max()) else {
        return;
    };
    let ps_1_x = shader.version.is_pixel() && shader.version.major == 1;
    for float in [FloatMode::Strict, FloatMode::Ieee] {
        match dxso_naga::translate(&checked, &Options { float }) {
            Ok(_) => {}
            Err(Error::Unsupported { .. }) if ps_1_x => {
                count(&SKIPPED);
                return;
            }
            Err(e) => panic!("{} ({float:?}): {e}", shader.version),
        }
    }
    count(&TRANSLATED);
}

/// Count one, printing both counts now and then (libFuzzer prints its own only).
fn count(which: &AtomicUsize) {
    which.fetch_add(1, Ordering::Relaxed);
    let (t, s) = (
        TRANSLATED.load(Ordering::Relaxed),
        SKIPPED.load(Ordering::Relaxed),
    );
    if (t + s).is_multiple_of(1000) {
        eprintln!("translate: {t} validated shaders translated, {s} skipped (ps_1_x)");
    }
}
