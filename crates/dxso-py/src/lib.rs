//! The Python package `dxso`: assemble, disassemble, validate and link Direct3D 9 shaders,
//! run vertex shaders and whole draws on the CPU with NumPy arrays in and out, and translate
//! shaders for GPUs.
//!
//! A thin door to the `dxso`, `dxso-vm`, `dxso-naga` and `dxso-decompile` crates (no logic of its own): see
//! `crates/dxso-py/dxso.pyi` for the API with types, and `docs/bindings.md` for building the wheel.

use pyo3::prelude::*;

mod arrays;
mod decompile;
mod device;
mod draw;
mod errors;
mod shader;
mod translate;

#[pymodule(name = "dxso")]
fn dxso_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(shader::assemble, m)?)?;
    m.add_function(wrap_pyfunction!(shader::disassemble, m)?)?;
    m.add_function(wrap_pyfunction!(shader::validate, m)?)?;
    m.add_function(wrap_pyfunction!(shader::link, m)?)?;
    m.add_function(wrap_pyfunction!(translate::translate, m)?)?;
    m.add_function(wrap_pyfunction!(decompile::decompile, m)?)?;
    m.add_function(wrap_pyfunction!(draw::draw, m)?)?;
    m.add_function(wrap_pyfunction!(draw::trace_pixel, m)?)?;
    m.add_class::<shader::Shader>()?;
    m.add_class::<shader::Diagnostic>()?;
    m.add_class::<shader::Element>()?;
    m.add_class::<shader::Constant>()?;
    m.add_class::<shader::Varying>()?;
    m.add_class::<shader::Linkage>()?;
    m.add_class::<device::Device>()?;
    m.add_class::<device::Trace>()?;
    m.add_class::<device::TraceStep>()?;
    m.add("INDEXEDDATA", dxso_vm::STREAMSOURCE_INDEXEDDATA)?;
    m.add("INSTANCEDATA", dxso_vm::STREAMSOURCE_INSTANCEDATA)?;
    errors::register(m)?;
    Ok(())
}
