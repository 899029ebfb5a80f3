//! The `dxso.Error` family. Each exception's message is the text the command line prints
//! for the same failure; the ones about a shader also carry its `diagnostics`.

use crate::shader::Diagnostic;
use pyo3::create_exception;
use pyo3::prelude::*;

create_exception!(
    dxso,
    Error,
    pyo3::exceptions::PyValueError,
    "Every error dxso raises (a ValueError)."
);
create_exception!(
    dxso,
    AssembleError,
    Error,
    "The text does not assemble; `diagnostics` lists each error with its line and column."
);
create_exception!(
    dxso,
    BytecodeError,
    Error,
    "The bytes are not a shader token stream; `diagnostics` gives the word offset."
);
create_exception!(
    dxso,
    ValidationError,
    Error,
    "The shader does not validate; `diagnostics` lists its errors (and warnings)."
);
create_exception!(
    dxso,
    LinkError,
    Error,
    "The vertex shader does not feed the pixel shader; `diagnostics` lists why."
);
create_exception!(
    dxso,
    DeviceError,
    Error,
    "The device refused a state or a draw (the message says which and why)."
);

create_exception!(
    dxso,
    TranslationError,
    Error,
    "The GPU translation does not handle something in the shader (the message says what)."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("AssembleError", py.get_type::<AssembleError>())?;
    m.add("BytecodeError", py.get_type::<BytecodeError>())?;
    m.add("ValidationError", py.get_type::<ValidationError>())?;
    m.add("LinkError", py.get_type::<LinkError>())?;
    m.add("DeviceError", py.get_type::<DeviceError>())?;
    m.add("TranslationError", py.get_type::<TranslationError>())?;
    Ok(())
}

/// An exception of type `E` with `message`, and `diagnostics` set on it.
pub fn with_diagnostics<E: pyo3::type_object::PyTypeInfo>(
    py: Python<'_>,
    message: String,
    diagnostics: Vec<Diagnostic>,
) -> PyErr {
    let err = PyErr::new::<E, _>(message);
    let value = err.value(py);
    if let Err(e) = value.setattr("diagnostics", diagnostics) {
        return e;
    }
    err
}

/// A device error (`dxso_vm::VmError` and the like) as `DeviceError`.
pub fn device(e: impl std::fmt::Display) -> PyErr {
    DeviceError::new_err(e.to_string())
}
