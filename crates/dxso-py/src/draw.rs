//! `dxso.draw` and `dxso.trace_pixel`: whole draws on the CPU from a draw scene (a dict in
//! `dxso draw`'s format, or a path to one), through `dxso_draw`'s one scene reader.

use crate::device::TraceStep;
use crate::errors;
use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::path::PathBuf;

/// A scene argument: a dict (files it names are relative to the working directory) or a
/// path (files relative to the scene's own directory).
fn load(py: Python<'_>, scene: &Bound<'_, PyAny>) -> PyResult<dxso_draw::DrawScene> {
    let loaded = if scene.is_instance_of::<PyDict>() {
        let json = py.import("json")?.call_method1("dumps", (scene,))?;
        let text: String = json.extract()?;
        let dir = std::env::current_dir().unwrap_or_default();
        py.detach(|| dxso_draw::DrawScene::from_json(&text, &dir))
    } else if scene.is_instance_of::<PyString>() || scene.hasattr("__fspath__")? {
        let path: PathBuf = scene.extract()?;
        py.detach(|| dxso_draw::DrawScene::load(&path))
    } else {
        return Err(errors::Error::new_err(
            "a draw scene is a dict (dxso draw's JSON format) or a path to one",
        ));
    };
    let mut scene = loaded.map_err(errors::device)?;
    scene.set_options(&dxso_vm::Options::from_env());
    Ok(scene)
}

/// Run a draw scene's frame on the CPU: every render target as a float32 array of shape
/// (height, width, 4) (RGBA as the target stores it: 8-bit channels as k/255).
#[pyfunction]
pub fn draw<'py>(py: Python<'py>, scene: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let s = load(py, scene)?;
    let surfaces = py
        .detach(|| dxso_draw::draw_frame(&s.frame, &s.draws))
        .map_err(errors::device)?;
    let (w, h) = (surfaces.width as usize, surfaces.height as usize);
    let targets = surfaces
        .targets
        .into_iter()
        .map(|t| {
            let flat: Vec<f32> = t.texels.into_iter().flatten().collect();
            PyArray1::from_vec(py, flat).reshape([h, w, 4])
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, targets)
}

/// The pixel debugger (`dxso draw --trace-pixel X,Y`): for every draw that shades pixel
/// (x, y), a dict with `draw` (its index), `inputs` (semantic -> 4 floats), `steps` (the
/// pixel shader's executed instructions, as `Trace.steps`; empty without a pixel shader),
/// `discarded` (texkill), `merge` (what the output merger did, a line a step) and `written`.
#[pyfunction]
pub fn trace_pixel<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    x: u32,
    y: u32,
) -> PyResult<Bound<'py, PyList>> {
    let s = load(py, scene)?;
    if x >= s.frame.width || y >= s.frame.height {
        return Err(errors::Error::new_err(format!(
            "pixel ({x}, {y}) is outside the {}x{} frame",
            s.frame.width, s.frame.height
        )));
    }
    let (_, reports) = py
        .detach(|| dxso_draw::trace_pixel(&s.frame, &s.draws, x, y))
        .map_err(errors::device)?;
    let out = PyList::empty(py);
    for r in reports {
        let d = PyDict::new(py);
        d.set_item("draw", r.draw)?;
        let inputs = PyDict::new(py);
        for (name, v) in &r.inputs {
            inputs.set_item(name, v.to_vec())?;
        }
        d.set_item("inputs", inputs)?;
        let steps: Vec<TraceStep> = r
            .shader
            .map(|t| t.steps.into_iter().map(TraceStep::from).collect())
            .unwrap_or_default();
        d.set_item("steps", steps)?;
        d.set_item("discarded", r.discarded)?;
        d.set_item("merge", r.merge.steps)?;
        d.set_item("written", r.merge.written)?;
        out.append(d)?;
    }
    Ok(out)
}
