//! `dxso`: assemble, disassemble, check, link and run Direct3D 9 shaders.
//! The command-line contract is `../shared/CLI.md`.

use anyhow::Context;
use clap::{Parser, Subcommand};
use codespan_reporting::term::termcolor::{Buffer, BufferWriter, ColorChoice};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod asm;
mod bench;
mod check;
mod decompile;
mod demo;
mod draw;
mod link;
mod outputs;
mod raster;
mod run;
mod serve;
mod translate;

use dxso::report::{Diagnostic, Report, Severity};
use dxso_cli::{input, scene};

#[derive(Parser)]
#[command(
    name = "dxso",
    version,
    about = "Direct3D 9 vertex shaders: assemble, disassemble, check, link and run"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Assemble shader assembly text into bytecode.
    #[command(
        after_help = "Examples:\n  dxso asm skin.asm -o skin.vso\n  dxso asm skin.asm --hex\n  dxso asm edited.asm --ctab -o edited.vso\n  cat skin.asm | dxso asm - --hex"
    )]
    Asm {
        /// Assembly text (vs_1_1 .. vs_3_0, ps_1_1 .. ps_3_0); `-` reads stdin.
        file: PathBuf,
        /// Write the tokens as little-endian 32-bit words to OUT.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print the tokens to stdout, one per line, as 8 lowercase hex digits.
        #[arg(long)]
        hex: bool,
        /// Build the constant table (CTAB comment block) from the listing's header
        /// (`// Parameters:`, `// Registers:`), so the edited shader keeps its constants'
        /// names. A listing that carries its CTAB as a `// @comment` line keeps that.
        #[arg(long)]
        ctab: bool,
    },
    /// Print the assembly text of a bytecode file (binary tokens or hex tokens).
    #[command(
        after_help = "Examples:\n  dxso dis skin.vso\n  dxso asm skin.asm --hex | dxso dis -\n  dxso dis skin.vso --style unity"
    )]
    Dis {
        /// Bytecode: binary little-endian tokens, or hex tokens one per line; `-` reads stdin.
        file: PathBuf,
        /// Whose listings to look like: Microsoft's disassembler (`def c0, 0.5, 1, 0, 0`) or
        /// the Unity 4 era tools (`def c0, 0.50000000, 1.00000000, 0, 0`, `dcl_texcoord0`).
        #[arg(long, value_enum, default_value_t = Style::Microsoft)]
        style: Style,
    },
    /// Validate shaders (text or bytecode) against their version's rules and device caps.
    #[command(
        after_help = "Examples:\n  dxso check skin.asm\n  dxso check shaders/*.asm --caps min\n  dxso check skin.vso --caps radeon.json --format json\n\nRule ids (V001..) are listed by `dxso check --rules`."
    )]
    Check {
        /// Shader files: assembly text, binary tokens or hex tokens.
        #[arg(required_unless_present = "rules")]
        files: Vec<PathBuf>,
        /// Device caps: `min`, `max` (default), or a JSON file naming D3DCAPS9 fields.
        #[arg(long, default_value = "max")]
        caps: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// List every rule with its id, explanation and spec reference.
        #[arg(long)]
        rules: bool,
    },
    /// Check that a vertex shader's outputs feed a pixel shader's inputs; print the varying map.
    #[command(
        after_help = "Examples:\n  dxso link skin_vs.asm skin_ps.asm\n  dxso link vs.vso ps.vso --format json\n  dxso link vs30.asm ps20.asm --software"
    )]
    Link {
        /// The vertex shader (text or bytecode).
        vs: PathBuf,
        /// The pixel shader (text or bytecode).
        ps: PathBuf,
        /// The vertex shader runs under software vertex processing (a vs_3_0 may then feed an
        /// older pixel shader through FVF semantics).
        #[arg(long)]
        software: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Run a vertex shader over the vertices a scene describes and print the outputs.
    #[command(
        after_help = "Examples:\n  dxso run scene.json\n  dxso run scene.json --format csv\n  dxso run big.json --format bin -o out.f32\n  dxso run scene.json --gpu\n  dxso run scene.json --gpu --adapter llvmpipe"
    )]
    Run {
        /// The scene (JSON; see CLI.md): shader, declaration, streams, constants.
        scene: PathBuf,
        /// Output format: json (default), csv, or bin (raw little-endian f32, needs -o).
        #[arg(long, value_enum, default_value_t = run::RunFormat::Json)]
        format: run::RunFormat,
        /// Write the outputs to OUT instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also draw the output triangles (POSITION0, coloured by COLOR0) into a PNG.
        #[arg(long, value_name = "OUT.png")]
        png: Option<PathBuf>,
        /// Print every instruction vertex N executes, with the values it wrote (debugger).
        #[arg(long, value_name = "N", conflicts_with = "gpu")]
        trace: Option<usize>,
        /// Run the shader on a GPU through wgpu (translated with --float strict) instead of
        /// the CPU; the outputs print the same way.
        #[arg(long)]
        gpu: bool,
        /// With --gpu: the first adapter whose name contains NAME (default: the best one).
        #[arg(long, value_name = "NAME", requires = "gpu")]
        adapter: Option<String>,
    },
    /// Run whole D3D9 draws (vertex stage, rasterization, pixel shader, output merger) into
    /// render targets and write what they hold.
    #[command(
        after_help = "Examples:\n  dxso draw scene.json\n  dxso draw scene.json -o out.png --target 1\n  dxso draw scene.json -o out.dds\n  dxso draw scene.json --pixel 10,20 --pixel 0,0 --format json"
    )]
    Draw {
        /// The draw scene (JSON; see CLI.md): the frame and its draws.
        scene: PathBuf,
        /// Write the target as OUT.png (8-bit RGBA) or OUT.dds (its own format, loss-free);
        /// default SCENE.png beside the scene, unless --pixel is given.
        #[arg(short, long, value_name = "OUT.png|OUT.dds")]
        output: Option<PathBuf>,
        /// The render target to write.
        #[arg(long, value_name = "N", default_value_t = 0)]
        target: usize,
        /// Print what every target, the depth and the stencil hold at X,Y (repeatable).
        #[arg(long, value_name = "X,Y", value_parser = draw::parse_xy)]
        pixel: Vec<(u32, u32)>,
        /// json: print the --pixel values; png: write the picture (the default without --pixel).
        #[arg(long, value_enum)]
        format: Option<draw::DrawFormat>,
        /// Trace the pixel shader and the output merger at X,Y.
        #[arg(long, value_name = "X,Y", value_parser = draw::parse_xy)]
        trace_pixel: Option<(u32, u32)>,
        /// Draw on a GPU through wgpu (a render pipeline; states it cannot express are refused).
        #[arg(long, conflicts_with = "compare")]
        gpu: bool,
        /// With --gpu or --compare: the first adapter whose name contains NAME.
        #[arg(long, value_name = "NAME")]
        adapter: Option<String>,
        /// Draw on the CPU and the GPU and print, per target, the pixels that differ and the
        /// largest difference per channel (-o diff.png writes the differences).
        #[arg(long)]
        compare: bool,
    },
    /// Measure draws: the built-in workloads, or the scenes given.
    #[command(
        after_help = "Examples:\n  dxso bench\n  dxso bench w1.json w2.json w3.json --repeat 5 --format json\n  dxso bench w1.json --threads 1\n  dxso bench w1.json --gpu\n  dxso bench w1.json p1.json --gpu --float ieee"
    )]
    Bench {
        /// Scenes to measure (default: the built-in W1, W2, W3 with 1,000,000 vertices).
        scenes: Vec<PathBuf>,
        /// Timed draws per scene after one warm-up draw.
        #[arg(long, default_value_t = 10)]
        repeat: usize,
        /// Threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Run the draws on a GPU through wgpu instead of the CPU.
        #[arg(long)]
        gpu: bool,
        /// With --gpu: the first adapter whose name contains NAME (default: the best one).
        #[arg(long, value_name = "NAME", requires = "gpu")]
        adapter: Option<String>,
        /// With --gpu: how the shaders are translated (as `dxso translate --float`).
        #[arg(long, value_enum, default_value_t = translate::Float::Strict, requires = "gpu")]
        float: translate::Float,
    },
    /// Translate a vertex or pixel shader for GPUs: WGSL, SPIR-V, GLSL, MSL or HLSL.
    #[command(
        after_help = "Examples:\n  dxso translate skin.asm\n  dxso translate skin.vso --to spirv -o skin.spv --interface skin.json\n  dxso translate water_ps.asm --to glsl --float ieee"
    )]
    Translate {
        /// The shader (text or bytecode, vs_1_1 .. vs_3_0, ps_1_1 .. ps_3_0); `-` reads stdin.
        file: PathBuf,
        /// The language to write.
        #[arg(long, value_enum, default_value_t = translate::To::Wgsl)]
        to: translate::To,
        /// Write to OUT instead of stdout (binary SPIR-V needs OUT or a pipe).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Also write the interface (bindings, inputs, outputs, locations) as JSON.
        #[arg(long, value_name = "OUT.json")]
        interface: Option<PathBuf>,
        /// strict: D3D9's arithmetic as dxso's CPU engine does it; ieee: plain IEEE.
        #[arg(long, value_enum, default_value_t = translate::Float::Strict)]
        float: translate::Float,
    },
    /// Decompile a vertex or pixel shader to HLSL a person can read.
    #[command(
        after_help = "Examples:\n  dxso decompile skin.vso\n  dxso decompile water_ps.asm -o water_ps.hlsl --asm-comments\n  dxso decompile skin.asm --for glslang -o skin.hlsl"
    )]
    Decompile {
        /// The shader (text or bytecode, vs_1_1 .. vs_3_0, ps_1_1 .. ps_3_0); `-` reads stdin.
        file: PathBuf,
        /// Write to OUT.hlsl instead of stdout.
        #[arg(short, long, value_name = "OUT.hlsl")]
        output: Option<PathBuf>,
        /// fxc: the D3D9 dialect of Microsoft's compiler; glslang: the form
        /// `glslangValidator -D --hlsl-dx9-compatible` compiles.
        #[arg(long = "for", value_enum, default_value_t = decompile::For::Fxc)]
        target: decompile::For,
        /// Put each source instruction, as a comment, beside the HLSL it became.
        #[arg(long)]
        asm_comments: bool,
    },
    /// Serve the playground: a local web page to edit, check, translate and run shaders.
    #[command(
        after_help = "Examples:\n  dxso serve\n  dxso serve --open examples/transform.asm\n  dxso serve --port 0 scene.json\n\nThe JSON API and the limits: docs/playground.md."
    )]
    Serve {
        /// The port on 127.0.0.1 (0: any free port; the first line printed names it).
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Open the page in the default browser.
        #[arg(long)]
        open: bool,
        /// A scene (.json) or a shader (text or bytecode) to open the page with.
        file: Option<PathBuf>,
    },
    /// Run the built-in vs_3_0 terrain shader on a built-in grid and draw it into a PNG.
    #[command(after_help = "Examples:\n  dxso demo\n  dxso demo -o /tmp/terrain.png")]
    Demo {
        /// Where to write the picture.
        #[arg(short, long, default_value = "dxso-demo.png")]
        output: PathBuf,
    },
}

/// `dis --style`: [`dxso::text::Style`] by name.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Style {
    Microsoft,
    Unity,
}

impl From<Style> for dxso::text::Style {
    fn from(s: Style) -> Self {
        match s {
            Style::Microsoft => dxso::text::Style::Microsoft,
            Style::Unity => dxso::text::Style::Unity,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

/// An error that maps to an exit code: 1 for bad input, 2 for usage or I/O.
enum Failure {
    /// Bad input; the diagnostics are printed to stderr.
    Input(Report),
    /// Bad input whose diagnostics were already printed.
    Quiet,
    Io(anyhow::Error),
}

impl Failure {
    /// Bad input in file `name`: `NAME: error: MESSAGE`.
    fn error(name: impl std::fmt::Display, message: impl std::fmt::Display) -> Failure {
        Failure::Input(Report::error(name.to_string(), message))
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Io(e)
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Asm {
            file,
            output,
            hex,
            ctab,
        } => asm(&file, output.as_deref(), hex, ctab),
        Command::Dis { file, style } => dis(&file, style.into()),
        Command::Check { rules: true, .. } => list_rules(),
        Command::Check {
            files,
            caps,
            format,
            ..
        } => check::check(&files, &caps, format == Format::Json),
        Command::Link {
            vs,
            ps,
            software,
            format,
        } => link::link(&vs, &ps, software, format == Format::Json),
        Command::Run {
            scene,
            format,
            output,
            png,
            trace,
            gpu,
            adapter,
        } => {
            let on = run::On::new(gpu, adapter);
            run::run(
                &scene,
                format,
                output.as_deref(),
                png.as_deref(),
                trace,
                &on,
            )
        }
        Command::Draw {
            scene,
            output,
            target,
            pixel,
            format,
            trace_pixel,
            gpu,
            adapter,
            compare,
        } => draw::draw(&draw::DrawArgs {
            scene,
            output,
            target,
            pixels: pixel,
            format,
            trace_pixel,
            gpu,
            adapter,
            compare,
        }),
        Command::Bench {
            scenes,
            repeat,
            threads,
            format,
            gpu,
            adapter,
            float,
        } => bench::bench(
            &scenes,
            repeat,
            threads,
            format == Format::Json,
            &run::On::new(gpu, adapter).with_float(float.mode()),
        ),
        Command::Demo { output } => demo::demo(&output),
        Command::Serve { port, open, file } => serve::serve(port, open, file.as_deref()),
        Command::Decompile {
            file,
            output,
            target,
            asm_comments,
        } => decompile::decompile(&file, output.as_deref(), target, asm_comments),
        Command::Translate {
            file,
            to,
            output,
            interface,
            float,
        } => translate::translate(&file, to, output.as_deref(), interface.as_deref(), float),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(report)) => {
            diagnostics_out(&report);
            ExitCode::from(1)
        }
        Err(Failure::Quiet) => ExitCode::from(1),
        Err(Failure::Io(e)) => {
            diagnostics_out(&Report::error("dxso", format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

fn list_rules() -> Result<(), Failure> {
    let mut s = String::new();
    for (_, id, summary, spec) in dxso::validate::RULES {
        s.push_str(&format!("{id}  {summary}  ({spec})\n"));
    }
    stdout(&s)
}

/// Whether diagnostics are coloured: on a terminal, unless `NO_COLOR` is set (to anything).
fn colour_choice(terminal: bool, no_color: bool) -> ColorChoice {
    if terminal && !no_color {
        ColorChoice::Always
    } else {
        ColorChoice::Never
    }
}

/// Stderr's [`colour_choice`], decided once per run.
fn stderr_colour() -> ColorChoice {
    use std::io::IsTerminal;
    static CHOICE: std::sync::OnceLock<ColorChoice> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| {
        colour_choice(
            std::io::stderr().is_terminal(),
            std::env::var_os("NO_COLOR").is_some(),
        )
    })
}

/// Print diagnostics to stderr through [`Report::emit`]: coloured on a terminal (unless
/// `NO_COLOR` is set), plain when piped.
pub fn diagnostics_out(report: &Report) {
    let stderr = BufferWriter::stderr(stderr_colour());
    // Stderr that cannot be written has no one to tell.
    let _ = stderr.print(&rendered(&stderr, report));
}

/// `report` rendered for `writer`: in colour when its choice says so, else plain.
fn rendered(writer: &BufferWriter, report: &Report) -> Buffer {
    let mut buffer = writer.buffer();
    // Writing to memory does not fail.
    let _ = report.emit(&mut buffer);
    buffer
}

/// Write to stdout; a closed pipe (`dxso ... | head`) ends the output quietly.
fn stdout(s: &str) -> Result<(), Failure> {
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::Io(anyhow::Error::new(e).context("writing stdout")))
        }
        _ => Ok(()),
    }
}

fn read_input(file: &Path) -> anyhow::Result<Vec<u8>> {
    if file == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading stdin")?;
        Ok(buf)
    } else {
        std::fs::read(file).with_context(|| format!("reading {}", file.display()))
    }
}

fn display_name(file: &Path) -> String {
    if file == Path::new("-") {
        "<stdin>".into()
    } else {
        file.display().to_string()
    }
}

fn asm(file: &Path, output: Option<&Path>, hex: bool, ctab: bool) -> Result<(), Failure> {
    let bytes = read_input(file)?;
    let name = display_name(file);
    let assembled = asm::assemble(&String::from_utf8_lossy(&bytes), ctab)
        .map_err(|e| Failure::Input(e.report(&name)))?;
    for w in &assembled.warnings {
        diagnostics_out(&Report(vec![
            Diagnostic::new(&name, Severity::Warning, w).into(),
        ]));
    }
    let tokens = assembled.tokens;
    drop(bytes);
    // Written token by token through a buffer, not copied into bytes or text first.
    let write_tokens = |w: &mut dyn Write, hex: bool| -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(w);
        for t in &tokens {
            if hex {
                writeln!(w, "{t:08x}")?;
            } else {
                w.write_all(&t.to_le_bytes())?;
            }
        }
        w.flush()
    };
    if let Some(out) = output {
        std::fs::File::create(out)
            .and_then(|mut f| write_tokens(&mut f, false))
            .with_context(|| format!("writing {}", out.display()))?;
    }
    if hex {
        write_tokens(&mut std::io::stdout().lock(), true).context("writing stdout")?;
    }
    Ok(())
}

fn dis(file: &Path, style: dxso::text::Style) -> Result<(), Failure> {
    let name = display_name(file);
    let bytes = read_input(file)?;
    let mut out = std::io::stdout().lock();
    let mut warn = |w: String| {
        diagnostics_out(&Report(vec![
            Diagnostic::new(&name, Severity::Warning, w).into(),
        ]));
    };
    match asm::disassemble(bytes, style, &mut out, &mut warn) {
        Ok(()) => Ok(()),
        Err(asm::DisError::Read(e)) => Err(Failure::error(name, e)),
        Err(asm::DisError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(asm::DisError::Write(e)) => {
            Err(Failure::Io(anyhow::Error::new(e).context("writing stdout")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with its snippet, a warning and a note, as `check` prints them.
    fn sample() -> Report {
        let source = dxso::source::Source::load(b"vs_2_0\nmov oPos, v0\n").unwrap();
        let mut report = Report::default();
        report.push(
            source
                .diagnostic(
                    "a.asm",
                    Some(0),
                    Severity::Error,
                    "v0 is used but not declared",
                )
                .with_code("V011"),
        );
        report.push(Diagnostic::new("a.asm", Severity::Warning, "unused"));
        report.push(Diagnostic::new("a.asm", Severity::Note, "1 more"));
        report
    }

    fn text(writer: &BufferWriter, report: &Report) -> String {
        String::from_utf8(rendered(writer, report).into_inner()).unwrap()
    }

    /// A terminal without `NO_COLOR` gets each severity in its colour (codespan-reporting's
    /// styles: bold intense red, yellow, green); `NO_COLOR` or a pipe gets the plain text,
    /// byte for byte what Python and C print.
    #[test]
    fn colours_the_severity_on_a_terminal_only() {
        let plain = "a.asm:2:1: error[V011]: v0 is used but not declared\n    mov oPos, v0\n    ^\n\
                     a.asm: warning: unused\n\
                     a.asm: note: 1 more\n";
        assert_eq!(sample().render(), plain);

        assert_eq!(colour_choice(true, false), ColorChoice::Always);
        let coloured = text(&BufferWriter::stderr(colour_choice(true, false)), &sample());
        assert_eq!(
            coloured,
            "a.asm:2:1: \x1b[0m\x1b[1m\x1b[38;5;9merror[V011]\x1b[0m\x1b[1m: v0 is used but not \
             declared\x1b[0m\n    mov oPos, v0\n    ^\n\
             a.asm: \x1b[0m\x1b[1m\x1b[38;5;11mwarning\x1b[0m\x1b[1m: unused\x1b[0m\n\
             a.asm: \x1b[0m\x1b[1m\x1b[38;5;10mnote\x1b[0m\x1b[1m: 1 more\x1b[0m\n"
        );

        for (terminal, no_color) in [(true, true), (false, false), (false, true)] {
            let choice = colour_choice(terminal, no_color);
            assert_eq!(choice, ColorChoice::Never);
            let out = text(&BufferWriter::stderr(choice), &sample());
            assert_eq!(out, plain, "terminal {terminal}, NO_COLOR {no_color}");
        }
    }
}
