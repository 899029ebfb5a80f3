//! `Shader`, `Diagnostic`, `Element`, `Varying`, `Linkage` and the functions that read,
//! check and link shaders: each a door to `dxso::source`, `dxso::validate` and `dxso::link`.

use crate::arrays;
use crate::errors::{self, AssembleError, BytecodeError, LinkError, ValidationError};
use dxso::source::{Position, Source, SourceError};
use dxso::validate::{Caps, Checked, Severity};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

/// One finding about a shader: a validation rule broken (or warned about), an assembly or
/// bytecode error (`rule` None), or a link rule.
#[pyclass(frozen, module = "dxso")]
#[derive(Clone)]
pub struct Diagnostic {
    /// "error" or "warning".
    #[pyo3(get)]
    pub severity: String,
    /// The rule id ("V007", "L002"), None for assembly and bytecode errors.
    #[pyo3(get)]
    pub rule: Option<String>,
    #[pyo3(get)]
    pub message: String,
    /// 1-based line and column in the text, when the shader came from text.
    #[pyo3(get)]
    pub line: Option<usize>,
    #[pyo3(get)]
    pub column: Option<usize>,
    /// Word offset in the token stream, when the shader came from bytecode.
    #[pyo3(get)]
    pub word: Option<usize>,
    /// Index of the instruction it is about (comments count), when it is about one.
    #[pyo3(get)]
    pub instruction: Option<usize>,
}

impl Diagnostic {
    fn new(
        severity: &str,
        rule: Option<&str>,
        message: String,
        position: Option<Position>,
        instruction: Option<usize>,
    ) -> Diagnostic {
        let (line, column, word) = match position {
            Some(Position::Text { line, col }) => (Some(line), Some(col), None),
            Some(Position::Word(w)) => (None, None, Some(w)),
            None => (None, None, None),
        };
        Diagnostic {
            severity: severity.into(),
            rule: rule.map(str::to_string),
            message,
            line,
            column,
            word,
            instruction,
        }
    }
}

#[pymethods]
impl Diagnostic {
    /// `LINE:COL: error[V007]: MESSAGE` (or `word N: ...`), as the command line prints it
    /// after the file name.
    fn __str__(&self) -> String {
        let at = match (self.line, self.column, self.word) {
            (Some(l), Some(c), _) => format!("{l}:{c}: "),
            (_, _, Some(w)) => format!("word {w}: "),
            _ => String::new(),
        };
        match &self.rule {
            Some(r) => format!("{at}{}[{r}]: {}", self.severity, self.message),
            None => format!("{at}{}: {}", self.severity, self.message),
        }
    }

    fn __repr__(&self) -> String {
        format!("<Diagnostic {}>", self.__str__())
    }
}

/// One entry of a shader's signature: a register with a semantic.
#[pyclass(frozen, module = "dxso")]
#[derive(Clone)]
pub struct Element {
    /// "TEXCOORD0".
    #[pyo3(get)]
    pub semantic: String,
    /// "texcoord".
    #[pyo3(get)]
    pub usage: String,
    #[pyo3(get)]
    pub usage_index: u8,
    /// "o2", "oPos", "v0", "t1".
    #[pyo3(get)]
    pub register: String,
    /// The components used ("xyz").
    #[pyo3(get)]
    pub mask: String,
    #[pyo3(get)]
    pub centroid: bool,
}

impl From<&dxso::link::Element> for Element {
    fn from(e: &dxso::link::Element) -> Element {
        Element {
            semantic: e.semantic(),
            usage: e.usage.name().into(),
            usage_index: e.usage_index,
            register: e.register_name(),
            mask: dxso::link::mask_letters(e.mask),
            centroid: e.centroid,
        }
    }
}

#[pymethods]
impl Element {
    fn __repr__(&self) -> String {
        format!(
            "<Element {} {}.{}{}>",
            self.semantic,
            self.register,
            self.mask,
            if self.centroid { " centroid" } else { "" }
        )
    }
}

/// One constant of a shader's constant table (`D3DXCONSTANT_DESC`).
#[pyclass(frozen, module = "dxso")]
#[derive(Clone)]
pub struct Constant {
    /// The HLSL name ("WorldViewProj").
    #[pyo3(get)]
    pub name: String,
    /// Its first register ("c4", "i0", "b2", "s0").
    #[pyo3(get)]
    pub register: String,
    /// Registers the compiler assigned it.
    #[pyo3(get)]
    pub register_count: u16,
    /// "SCALAR", "VECTOR", "MATRIX_ROWS", "MATRIX_COLUMNS", "OBJECT" or "STRUCT".
    #[pyo3(get)]
    pub class_: String,
    /// "FLOAT", "INT", "BOOL", "SAMPLER2D", ...
    #[pyo3(get)]
    pub type_: String,
    #[pyo3(get)]
    pub rows: u16,
    #[pyo3(get)]
    pub columns: u16,
    /// Array length (1 for a non-array).
    #[pyo3(get)]
    pub elements: u16,
    /// The default value's DWORDs as the table holds them, if it has one.
    #[pyo3(get)]
    pub default: Option<Vec<u32>>,
}

impl From<&dxso::ctab::Constant> for Constant {
    fn from(c: &dxso::ctab::Constant) -> Constant {
        Constant {
            name: c.name.clone(),
            register: format!("{}{}", c.register_set.prefix(), c.register_index),
            register_count: c.register_count,
            class_: c.ty.class.name().into(),
            type_: c.ty.ty.name().into(),
            rows: c.ty.rows,
            columns: c.ty.columns,
            elements: c.ty.elements,
            default: c.default_value.clone(),
        }
    }
}

#[pymethods]
impl Constant {
    fn __repr__(&self) -> String {
        format!(
            "<Constant {} {} ({})>",
            self.name, self.register, self.register_count
        )
    }
}

/// A shader read from assembly text or bytecode.
///
/// `Shader(text)` assembles a `str`; `Shader(data)` reads `bytes` (binary tokens, a hex
/// listing, or assembly text). Raises `AssembleError` or `BytecodeError`.
#[pyclass(frozen, module = "dxso")]
pub struct Shader {
    pub source: Source,
    /// What the shader is called in messages: `<string>` or `<bytes>`.
    pub name: String,
}

#[pymethods]
impl Shader {
    #[new]
    fn py_new(data: &Bound<'_, PyAny>) -> PyResult<Shader> {
        let (name, source) = load(data)?;
        Ok(Shader { source, name })
    }

    /// "vs_3_0", "ps_2_x", ...
    #[getter]
    fn version(&self) -> String {
        self.source.shader.version.to_string()
    }

    /// "vs" or "ps".
    #[getter]
    fn kind(&self) -> &'static str {
        if self.source.shader.version.is_vertex() {
            "vs"
        } else {
            "ps"
        }
    }

    /// The token stream (little-endian 32-bit words), as `CreateVertexShader` takes it.
    #[getter]
    fn tokens<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = dxso::binary::write_bytes(&self.source.shader)
            .map_err(|e| AssembleError::new_err(format!("{}: error: {e}", self.name)))?;
        Ok(PyBytes::new(py, &bytes))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.tokens(py)
    }

    /// The disassembly (Microsoft's listing).
    #[getter]
    fn text(&self) -> String {
        dxso::text::print(&self.source.shader)
    }

    /// A vertex shader's declared inputs (`dcl_* v#`), a pixel shader's interpolated inputs.
    #[getter]
    fn inputs(&self) -> Vec<Element> {
        let s = &self.source.shader;
        let signature = if s.version.is_vertex() {
            dxso::link::vertex_inputs(s)
        } else {
            dxso::link::input_signature(s)
        };
        signature.iter().map(Element::from).collect()
    }

    /// The outputs with their semantics: a vertex shader's varyings; a pixel shader's
    /// colours (COLOR#: `oC#`, `r0` in ps_1_x) and depth (DEPTH0: `oDepth`).
    #[getter]
    fn outputs(&self) -> Vec<Element> {
        dxso::link::output_signature(&self.source.shader)
            .iter()
            .map(Element::from)
            .collect()
    }

    /// The constant table (CTAB) the shader carries: its constants in table order (empty
    /// without one). Raises `BytecodeError` for a malformed table.
    #[getter]
    fn constants(&self) -> PyResult<Vec<Constant>> {
        let table = self.source.shader.constant_table().map_err(|e| {
            BytecodeError::new_err(format!("{}: error: constant table: {e}", self.name))
        })?;
        Ok(table
            .map(|t| t.constants.iter().map(Constant::from).collect())
            .unwrap_or_default())
    }

    /// The shader's findings against `caps` ("max", "min" or a dict of D3DCAPS9 fields).
    #[pyo3(signature = (caps = None))]
    fn validate(&self, caps: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Diagnostic>> {
        let caps = parse_caps(caps)?;
        Ok(findings(&self.source, &caps))
    }

    fn __repr__(&self) -> String {
        format!(
            "<Shader {}, {} instructions>",
            self.version(),
            self.source.shader.instructions.len()
        )
    }
}

/// Read a `Shader`, a `str` of assembly text, or bytes (tokens, hex listing or text): its
/// name in messages and the source, or why it cannot be read.
fn read(data: &Bound<'_, PyAny>) -> PyResult<(String, Result<Source, SourceError>)> {
    if let Ok(s) = data.cast::<Shader>() {
        let s = s.get();
        return Ok((s.name.clone(), Ok(s.source.clone())));
    }
    Ok(if data.is_instance_of::<PyString>() {
        let text: String = data.extract()?;
        (
            "<string>".into(),
            Source::text(&text).map_err(SourceError::Parse),
        )
    } else {
        (
            "<bytes>".into(),
            Source::load(&arrays::bytes_of("shader", data)?),
        )
    })
}

/// [`read`], raising `AssembleError` or `BytecodeError` when the source cannot be read.
pub fn load(data: &Bound<'_, PyAny>) -> PyResult<(String, Source)> {
    let py = data.py();
    let (name, result) = read(data)?;
    match result {
        Ok(source) => Ok((name, source)),
        Err(e) => {
            let (message, diagnostics) = source_error(&name, &e);
            Err(match e {
                SourceError::Parse(_) => {
                    errors::with_diagnostics::<AssembleError>(py, message, diagnostics)
                }
                SourceError::Read(_) => {
                    errors::with_diagnostics::<BytecodeError>(py, message, diagnostics)
                }
            })
        }
    }
}

/// The message the command line prints for a source that cannot be read, and its
/// diagnostics.
fn source_error(name: &str, e: &SourceError) -> (String, Vec<Diagnostic>) {
    let message = e.render(name).trim_end().to_string();
    let diagnostics = match e {
        SourceError::Parse(p) => {
            p.0.iter()
                .map(|e| {
                    let at = Position::Text {
                        line: e.line,
                        col: e.col,
                    };
                    Diagnostic::new("error", None, e.message.clone(), Some(at), None)
                })
                .collect()
        }
        SourceError::Read(r) => vec![Diagnostic::new(
            "error",
            None,
            r.kind.to_string(),
            Some(Position::Word(r.offset)),
            Some(r.instruction),
        )],
    };
    (message, diagnostics)
}

/// `"max"`, `"min"` or a dict of D3DCAPS9 fields (what a `--caps` JSON file holds).
pub fn parse_caps(caps: Option<&Bound<'_, PyAny>>) -> PyResult<Caps> {
    let Some(caps) = caps else {
        return Ok(Caps::max());
    };
    let caps = if let Ok(s) = caps.extract::<String>() {
        Caps::from_spec(&s)
    } else if caps.is_instance_of::<PyDict>() {
        let json: String = caps
            .py()
            .import("json")?
            .call_method1("dumps", (caps,))?
            .extract()?;
        Caps::from_json(&json)
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "caps is \"max\", \"min\" or a dict",
        ));
    };
    caps.map_err(|e| errors::Error::new_err(format!("caps: {e}")))
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Every validation finding, placed in its source.
fn findings(source: &Source, caps: &Caps) -> Vec<Diagnostic> {
    dxso::validate::diagnostics(&source.shader, caps)
        .into_iter()
        .map(|d| {
            Diagnostic::new(
                severity(d.severity),
                Some(d.rule.id()),
                d.message,
                source.position(d.instruction),
                d.instruction,
            )
        })
        .collect()
}

/// Validate against `caps`, or raise `ValidationError` with the command line's message.
pub fn check(py: Python<'_>, name: &str, source: &Source, caps: &Caps) -> PyResult<Checked> {
    dxso::validate::validate(&source.shader, caps).map_err(|diags| {
        let message = source.rejection(name, &diags);
        errors::with_diagnostics::<ValidationError>(py, message, findings(source, caps))
    })
}

/// Assemble text into bytecode (little-endian 32-bit tokens).
///
/// `ctab`: build the constant table from the listing's `// Parameters:` header when the text
/// carries no CTAB comment (`dxso asm --ctab`). Raises `AssembleError` with every error's
/// line and column.
#[pyfunction]
#[pyo3(signature = (text, ctab = false))]
pub fn assemble<'py>(py: Python<'py>, text: &str, ctab: bool) -> PyResult<Bound<'py, PyBytes>> {
    let fail = |e| {
        let (message, diagnostics) = source_error("<string>", &SourceError::Parse(e));
        errors::with_diagnostics::<AssembleError>(py, message, diagnostics)
    };
    let shader = if ctab {
        dxso::text::parse_with_header(text)
    } else {
        dxso::text::parse(text)
    }
    .map_err(fail)?;
    let bytes = dxso::binary::write_bytes(&shader)
        .map_err(|e| AssembleError::new_err(format!("<string>: error: {e}")))?;
    Ok(PyBytes::new(py, &bytes))
}

/// The assembly listing of bytecode (binary tokens, or a hex listing as `str` or bytes).
///
/// `style` is "microsoft" (Microsoft's disassembler's listing) or "unity" (the Unity 4 era
/// listings' spelling); either assembles back to the same tokens. Raises `BytecodeError`.
#[pyfunction]
#[pyo3(signature = (data, style = "microsoft"))]
pub fn disassemble(data: &Bound<'_, PyAny>, style: &str) -> PyResult<String> {
    let style = match style {
        "microsoft" => dxso::text::Style::Microsoft,
        "unity" => dxso::text::Style::Unity,
        _ => {
            return Err(errors::Error::new_err(format!(
                "unknown listing style {style:?}; expected \"microsoft\" or \"unity\""
            )));
        }
    };
    let bytes = match data.cast::<PyString>() {
        Ok(s) => s.extract::<String>()?.into_bytes(),
        Err(_) => arrays::bytes_of("shader", data)?,
    };
    let name = "<bytes>";
    let shader = dxso::source::read_bytecode(&bytes).map_err(|e| {
        let (message, diagnostics) = source_error(name, &SourceError::Read(e));
        errors::with_diagnostics::<BytecodeError>(data.py(), message, diagnostics)
    })?;
    Ok(dxso::text::print_styled(&shader, style))
}

/// Validate a shader (a `Shader`, assembly text, or bytecode) against device caps: "max"
/// (default), "min", or a dict of D3DCAPS9 fields as `dxso check --caps FILE.json` reads.
///
/// Returns every finding; an empty list, or warnings only, means valid. Text that does not
/// assemble and bytes that do not decode are reported as errors with `rule` None.
#[pyfunction]
#[pyo3(signature = (data_or_text, caps = None))]
pub fn validate(
    data_or_text: &Bound<'_, PyAny>,
    caps: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Diagnostic>> {
    let caps = parse_caps(caps)?;
    Ok(match read(data_or_text)? {
        (_, Ok(source)) => findings(&source, &caps),
        (name, Err(e)) => source_error(&name, &e).1,
    })
}

/// One varying: what the vertex shader writes and the pixel shader reads, by semantic.
#[pyclass(frozen, module = "dxso")]
#[derive(Clone)]
pub struct Varying {
    #[pyo3(get)]
    pub semantic: String,
    #[pyo3(get)]
    pub vs: Element,
    #[pyo3(get)]
    pub ps: Element,
}

#[pymethods]
impl Varying {
    fn __repr__(&self) -> String {
        format!(
            "<Varying {} {}.{} -> {}.{}>",
            self.semantic, self.vs.register, self.vs.mask, self.ps.register, self.ps.mask
        )
    }
}

/// A successful link: `varyings` maps each semantic to its `Varying`.
#[pyclass(frozen, module = "dxso")]
pub struct Linkage {
    /// Semantic -> Varying, in the pixel shader's order.
    #[pyo3(get)]
    pub varyings: Py<PyDict>,
    /// Vertex-shader outputs the pixel shader does not read.
    #[pyo3(get)]
    pub unused: Vec<Element>,
    #[pyo3(get)]
    pub warnings: Vec<Diagnostic>,
}

/// Link a vertex shader to a pixel shader by semantic (each a `Shader`, text or bytes).
///
/// Both must validate (caps "max"). `software`: the vertex shader runs under software vertex
/// processing (a vs_3_0 may then feed an older pixel shader). Raises `ValidationError` or
/// `LinkError` (with the command line's message and the diagnostics).
#[pyfunction]
#[pyo3(signature = (vs, ps, software = false))]
pub fn link(
    py: Python<'_>,
    vs: &Bound<'_, PyAny>,
    ps: &Bound<'_, PyAny>,
    software: bool,
) -> PyResult<Linkage> {
    let (vs_name, vs_source) = load(vs)?;
    let (ps_name, ps_source) = load(ps)?;
    let vs_checked = check(py, &vs_name, &vs_source, &Caps::max())?;
    let ps_checked = check(py, &ps_name, &ps_source, &Caps::max())?;
    let diagnostic = |d: &dxso::link::LinkDiagnostic| {
        let (source, i) = match (d.ps_instruction, d.vs_instruction) {
            (Some(p), _) => (&ps_source, Some(p)),
            (None, v) => (&vs_source, v),
        };
        Diagnostic::new(
            if d.error { "error" } else { "warning" },
            Some(d.rule.id()),
            d.message.clone(),
            source.position(i),
            i,
        )
    };
    match dxso::link::link(&vs_checked, &ps_checked, software) {
        Err(diags) => {
            let message: String = diags
                .iter()
                .map(|d| {
                    dxso::source::render_link((&vs_source, &vs_name), (&ps_source, &ps_name), d)
                })
                .collect();
            Err(errors::with_diagnostics::<LinkError>(
                py,
                message.trim_end().to_string(),
                diags.iter().map(diagnostic).collect(),
            ))
        }
        Ok(l) => {
            let varyings = PyDict::new(py);
            for v in &l.varyings {
                let varying = Varying {
                    semantic: v.semantic.clone(),
                    vs: (&v.vs).into(),
                    ps: (&v.ps).into(),
                };
                varyings.set_item(&v.semantic, varying)?;
            }
            Ok(Linkage {
                varyings: varyings.unbind(),
                unused: l.unused.iter().map(Element::from).collect(),
                warnings: l.warnings.iter().map(diagnostic).collect(),
            })
        }
    }
}

#[pymethods]
impl Linkage {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<Linkage of {} varyings>", self.varyings.bind(py).len())
    }
}
