//! `dxso draw`: whole D3D9 draws into render targets (`../shared/CLI.md`, "dxso draw").

use crate::run::number;
use crate::{Failure, stdout};
use anyhow::{Context, anyhow};
use dxso::report::Report;
use dxso_draw::{DrawError, DrawScene, Surfaces, TargetFormat};
use std::path::{Path, PathBuf};

/// What `--pixel` prints (`json`) or what the command writes (`png`: the picture).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DrawFormat {
    Png,
    Json,
}

/// `X,Y` for `--pixel` and `--trace-pixel`.
pub fn parse_xy(s: &str) -> Result<(u32, u32), String> {
    let (x, y) = s
        .split_once(',')
        .ok_or_else(|| format!("{s:?}: expected X,Y"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("{s:?}: expected X,Y (non-negative integers)"))
    };
    Ok((n(x)?, n(y)?))
}

/// `dxso draw`'s arguments.
pub struct DrawArgs {
    pub scene: PathBuf,
    pub output: Option<PathBuf>,
    pub target: usize,
    pub pixels: Vec<(u32, u32)>,
    pub format: Option<DrawFormat>,
    pub trace_pixel: Option<(u32, u32)>,
    pub gpu: bool,
    /// With `gpu` or `compare`: the adapter whose name contains this.
    pub adapter: Option<String>,
    pub compare: bool,
}

fn usage(msg: impl Into<String>) -> Failure {
    Failure::Io(anyhow!(msg.into()))
}

/// A draw error: the scene's problems exit 1, dxso's own defects exit 2.
fn draw_failure(path: &Path, e: DrawError) -> Failure {
    match e {
        DrawError::Internal(_) => Failure::Io(anyhow!("{}: {e}", path.display())),
        e => Failure::error(path.display(), e),
    }
}

/// A GPU draw error: what the scene asks and the GPU path cannot draw (or the scene's own
/// problems) exit 1; no adapter and dxso's or the driver's defects exit 2.
fn gpu_failure(path: &Path, e: dxso_gpu::Error) -> Failure {
    use dxso_gpu::Error as E;
    match e {
        E::Refused(_) | E::Vm(_) | E::Frame(_) | E::Translate(_) | E::Unsupported { .. } => {
            Failure::error(path.display(), e)
        }
        e => Failure::Io(anyhow!("{}: {e}", path.display())),
    }
}

fn open_gpu(adapter: Option<&str>) -> Result<dxso_gpu::Gpu, Failure> {
    dxso_gpu::Gpu::new(adapter).map_err(|e| Failure::Io(e.into()))
}

/// `--gpu`/`--compare` combinations the command refuses.
fn check_gpu_flags(args: &DrawArgs) -> Result<(), Failure> {
    if args.adapter.is_some() && !args.gpu && !args.compare {
        return Err(usage(
            "--adapter picks the GPU of --gpu or --compare: give one of them",
        ));
    }
    if (args.gpu || args.compare) && args.trace_pixel.is_some() {
        return Err(usage(
            "--trace-pixel traces the CPU draw (dxso's engine): drop --gpu/--compare",
        ));
    }
    if args.compare && !args.pixels.is_empty() {
        return Err(usage(
            "--compare prints the differences per target; --pixel prints one draw's values (use --gpu --pixel X,Y)",
        ));
    }
    Ok(())
}

pub fn draw(args: &DrawArgs) -> Result<(), Failure> {
    check_gpu_flags(args)?;
    let json = match (args.format, args.pixels.is_empty()) {
        (Some(DrawFormat::Json), true) => {
            return Err(usage(
                "--format json prints the pixels --pixel X,Y names: give at least one",
            ));
        }
        (Some(DrawFormat::Png), false) => {
            return Err(usage(
                "--pixel prints JSON (--format json); write a picture with -o OUT.png",
            ));
        }
        (_, pixels_empty) => !pixels_empty,
    };
    let path = &args.scene;
    if !path.exists() {
        return Err(usage(format!("{}: no such file", path.display())));
    }
    let mut scene = DrawScene::load(path).map_err(|e| draw_failure(path, e))?;
    // The command line is a face: it reads DXSO_* (tier, ISA, ...) into the devices' options.
    scene.set_options(&dxso_vm::Options::from_env());
    for w in &scene.warnings {
        // dxso-draw's warnings are rendered text (`streams[0]: ...`, `a.asm:3:1:
        // warning[V020]: ...`): printed as lines.
        crate::diagnostics_out(&Report::line(format!("{}: {w}", path.display())));
    }
    let (width, height, targets) = (
        scene.frame.width,
        scene.frame.height,
        scene.frame.targets.len(),
    );
    if args.target >= targets {
        return Err(usage(format!(
            "--target {}: the scene has {targets} render target{} (0..{})",
            args.target,
            if targets == 1 { "" } else { "s" },
            targets - 1
        )));
    }
    if let Some(&(x, y)) = args
        .pixels
        .iter()
        .chain(&args.trace_pixel)
        .find(|&&(x, y)| x >= width || y >= height)
    {
        return Err(usage(format!(
            "--pixel {x},{y} is outside the {width}x{height} frame"
        )));
    }
    let out = match &args.output {
        Some(o) => Some(o.clone()),
        None if !json => Some(path.with_extension("png")),
        None => None,
    };
    let dds = match &out {
        Some(o) => match o.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("png") => false,
            Some(e) if e.eq_ignore_ascii_case("dds") => true,
            _ => {
                return Err(usage(format!(
                    "-o {}: dxso draw writes OUT.png or OUT.dds",
                    o.display()
                )));
            }
        },
        None => false,
    };
    if let Some((x, y)) = args.trace_pixel {
        let (_, reports) = dxso_draw::trace_pixel(&scene.frame, &scene.draws, x, y)
            .map_err(|e| draw_failure(path, e))?;
        return stdout(&trace_text(&scene, x, y, &reports));
    }
    if args.compare {
        return compare(
            args,
            &scene,
            out.as_deref().filter(|_| args.output.is_some()),
            dds,
        );
    }
    let surfaces = if args.gpu {
        let gpu = open_gpu(args.adapter.as_deref())?;
        gpu.draw_frame(&scene.frame, &scene.draws)
            .map_err(|e| gpu_failure(path, e))?
    } else {
        dxso_draw::draw_frame(&scene.frame, &scene.draws).map_err(|e| draw_failure(path, e))?
    };
    if let Some(o) = &out {
        if dds {
            write_dds(&surfaces, args.target, o)?;
        } else {
            write_png(&surfaces, args.target, o)?;
        }
        eprintln!(
            "{}: target {} written to {}",
            path.display(),
            args.target,
            o.display()
        );
    }
    if json {
        stdout(&pixels_json(&surfaces, &args.pixels))?;
    }
    Ok(())
}

/// `--compare`: the scene drawn on the CPU and on the GPU; per target, the pixels that
/// differ and the largest difference per channel; `diff` (a PNG) gets target `--target`'s
/// absolute differences, scaled so that the largest is 1.
fn compare(
    args: &DrawArgs,
    scene: &DrawScene,
    diff: Option<&Path>,
    dds: bool,
) -> Result<(), Failure> {
    let path = &args.scene;
    if dds {
        return Err(usage("--compare writes its differences as OUT.png"));
    }
    let gpu = open_gpu(args.adapter.as_deref())?;
    let cpu =
        dxso_draw::draw_frame(&scene.frame, &scene.draws).map_err(|e| draw_failure(path, e))?;
    let on_gpu = gpu
        .draw_frame(&scene.frame, &scene.draws)
        .map_err(|e| gpu_failure(path, e))?;
    let mut text = format!(
        "{}: CPU against GPU ({})\n",
        path.display(),
        gpu.adapter_name()
    );
    let mut picture = None;
    for (n, (a, b)) in cpu.targets.iter().zip(&on_gpu.targets).enumerate() {
        let diffs: Vec<[f32; 4]> = a
            .texels
            .iter()
            .zip(&b.texels)
            .map(|(p, q)| std::array::from_fn(|c| difference(p[c], q[c])))
            .collect();
        let differ = diffs.iter().filter(|d| d.iter().any(|&x| x != 0.0)).count();
        let largest: [f32; 4] =
            std::array::from_fn(|c| diffs.iter().map(|d| d[c]).fold(0.0, f32::max));
        text.push_str(&format!(
            "target {n} ({}): {differ} of {} pixels differ; largest difference r {} g {} b {} a {}\n",
            a.format.name(),
            a.texels.len(),
            number(largest[0]),
            number(largest[1]),
            number(largest[2]),
            number(largest[3])
        ));
        if n == args.target {
            picture = Some((diffs, largest));
        }
    }
    if let (Some(a), Some(b)) = (&cpu.depth_stencil, &on_gpu.depth_stencil) {
        let dz = a.z.iter().zip(&b.z).map(|(p, q)| difference(*p, *q));
        let differ = dz.clone().filter(|&d| d != 0.0).count();
        let largest = dz.fold(0.0, f32::max);
        let stencil = a
            .stencil
            .iter()
            .zip(&b.stencil)
            .filter(|(p, q)| p != q)
            .count();
        text.push_str(&format!(
            "depth ({}): {differ} pixels differ, largest {}; stencil: {stencil} differ\n",
            a.format.name(),
            number(largest)
        ));
    }
    stdout(&text)?;
    if let (Some(o), Some((diffs, largest))) = (diff, picture) {
        let scale = largest.iter().fold(0.0f32, |m, &x| m.max(x));
        let texels = diffs
            .iter()
            .map(|d| {
                let s = |x: f32| if scale > 0.0 { x / scale } else { 0.0 };
                [s(d[0]), s(d[1]), s(d[2]), 1.0]
            })
            .collect();
        let picture = Surfaces {
            width: cpu.width,
            height: cpu.height,
            targets: vec![dxso_draw::Target {
                format: TargetFormat::A32B32G32R32F,
                texels,
            }],
            depth_stencil: None,
        };
        write_png(&picture, 0, o)?;
        eprintln!(
            "{}: differences of target {} written to {}",
            path.display(),
            args.target,
            o.display()
        );
    }
    Ok(())
}

/// |a − b|, with NaN against NaN 0 and NaN against a number infinite.
fn difference(a: f32, b: f32) -> f32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => 0.0,
        (false, false) if a == b => 0.0,
        (false, false) => (a - b).abs(),
        _ => f32::INFINITY,
    }
}

/// The pixel debugger's report: for every draw that shades (x, y), its interpolated inputs,
/// the pixel shader's trace (as `run --trace` prints it) and what the output merger did.
pub(crate) fn trace_text(
    scene: &DrawScene,
    x: u32,
    y: u32,
    reports: &[dxso_draw::PixelReport],
) -> String {
    let v4 = |v: [f32; 4]| format!("({}, {}, {}, {})", v[0], v[1], v[2], v[3]);
    let mut s = format!(
        "pixel ({x}, {y}): {} draw{} of {} shade it\n",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        scene.draws.len()
    );
    for r in reports {
        s.push_str(&format!("\ndraw {}:\n  inputs:\n", r.draw));
        for (name, v) in &r.inputs {
            s.push_str(&format!("    {name:<10} {}\n", v4(*v)));
        }
        match &r.shader {
            Some(t) => {
                let names = scene.draws[r.draw]
                    .pixel
                    .as_ref()
                    .and_then(|p| p.constant_table().ok().flatten())
                    .map(|t| t.register_names())
                    .unwrap_or_default();
                s.push_str(&format!(
                    "  pixel shader: {} instructions executed\n",
                    t.steps.len()
                ));
                s.push_str(&crate::run::trace_steps(t, &names));
                if let Some(e) = &t.error {
                    s.push_str(&format!("  stopped: {e}\n"));
                }
            }
            None => s.push_str("  no pixel shader: the diffuse colour (plus specular)\n"),
        }
        if r.discarded {
            s.push_str("  texkill: discarded\n");
            continue;
        }
        s.push_str("  output merger:\n");
        for step in &r.merge.steps {
            s.push_str(&format!("    {step}\n"));
        }
        s.push_str(if r.merge.written {
            "    written\n"
        } else {
            "    not written\n"
        });
    }
    s
}

/// `{"pixels": [{"x": .., "y": .., "targets": [[r, g, b, a]], "z": .., "stencil": ..}]}`;
/// `z` and `stencil` are `null` where the frame has no such surface.
fn pixels_json(s: &Surfaces, pixels: &[(u32, u32)]) -> String {
    let items: Vec<String> = pixels
        .iter()
        .filter_map(|&(x, y)| s.pixel(x, y))
        .map(|p| {
            let targets: Vec<String> = p
                .targets
                .iter()
                .map(|t| {
                    let c: Vec<String> = t.iter().map(|&v| number(v)).collect();
                    format!("[{}]", c.join(", "))
                })
                .collect();
            format!(
                "{{\"x\": {}, \"y\": {}, \"targets\": [{}], \"z\": {}, \"stencil\": {}}}",
                p.x,
                p.y,
                targets.join(", "),
                p.z.map_or("null".to_string(), number),
                p.stencil.map_or("null".to_string(), |v| v.to_string())
            )
        })
        .collect();
    format!("{{\"pixels\": [{}]}}\n", items.join(", "))
}

/// Target `target` as an 8-bit RGBA PNG (a float target's values clamped to [0, 1]), written
/// to `w`. `None`: no such target.
pub(crate) fn encode_png(
    s: &Surfaces,
    target: usize,
    w: impl std::io::Write,
) -> Option<anyhow::Result<()>> {
    let rgba = s.rgba8(target)?;
    Some(crate::raster::encode_png(w, s.width, s.height, &rgba))
}

fn write_png(s: &Surfaces, target: usize, path: &Path) -> Result<(), Failure> {
    if s.rgba8(target).is_none() {
        return Err(usage(format!("--target {target}: no such target")));
    }
    let file = std::fs::File::create(path)
        .with_context(|| format!("writing {}", path.display()))
        .map_err(Failure::Io)?;
    encode_png(s, target, std::io::BufWriter::new(file))
        .unwrap_or_else(|| Err(anyhow!("--target {target}: no such target")))
        .with_context(|| format!("writing {}", path.display()))
        .map_err(Failure::Io)
}

/// The target in its own format, loss-free: every stored value is already one the format
/// holds (a unorm channel k / (2^n - 1), a half channel an f16), so it converts back exactly.
fn write_dds(s: &Surfaces, target: usize, path: &Path) -> Result<(), Failure> {
    use ddsfile::D3DFormat as D;
    let t = s
        .targets
        .get(target)
        .ok_or_else(|| usage(format!("--target {target}: no such target")))?;
    let unorm = |v: f32, bits: u32| -> u32 {
        let max = ((1u64 << bits) - 1) as f32;
        (v.clamp(0.0, 1.0) * max + 0.5) as u32
    };
    let half = |v: f32| half::f16::from_f32(v).to_bits().to_le_bytes();
    let mut data = Vec::new();
    let format = match t.format {
        TargetFormat::A8R8G8B8 => D::A8R8G8B8,
        TargetFormat::X8R8G8B8 => D::X8R8G8B8,
        TargetFormat::A2R10G10B10 => D::A2R10G10B10,
        TargetFormat::R5G6B5 => D::R5G6B5,
        TargetFormat::A16B16G16R16 => D::A16B16G16R16,
        TargetFormat::A16B16G16R16F => D::A16B16G16R16F,
        TargetFormat::A32B32G32R32F => D::A32B32G32R32F,
        TargetFormat::R16F => D::R16F,
        TargetFormat::R32F => D::R32F,
        TargetFormat::G16R16F => D::G16R16F,
        TargetFormat::G32R32F => D::G32R32F,
    };
    for &[r, g, b, a] in &t.texels {
        match t.format {
            TargetFormat::A8R8G8B8 | TargetFormat::X8R8G8B8 => {
                let a = if t.format == TargetFormat::X8R8G8B8 {
                    255
                } else {
                    unorm(a, 8)
                };
                data.extend([unorm(b, 8), unorm(g, 8), unorm(r, 8), a].map(|c| c as u8))
            }
            TargetFormat::A2R10G10B10 => data.extend(
                (unorm(a, 2) << 30 | unorm(r, 10) << 20 | unorm(g, 10) << 10 | unorm(b, 10))
                    .to_le_bytes(),
            ),
            TargetFormat::R5G6B5 => data.extend(
                ((unorm(r, 5) << 11 | unorm(g, 6) << 5 | unorm(b, 5)) as u16).to_le_bytes(),
            ),
            TargetFormat::A16B16G16R16 => {
                for c in [r, g, b, a] {
                    data.extend((unorm(c, 16) as u16).to_le_bytes());
                }
            }
            TargetFormat::A16B16G16R16F => [r, g, b, a].iter().for_each(|&c| data.extend(half(c))),
            TargetFormat::G16R16F => [r, g].iter().for_each(|&c| data.extend(half(c))),
            TargetFormat::R16F => data.extend(half(r)),
            TargetFormat::A32B32G32R32F => [r, g, b, a]
                .iter()
                .for_each(|c| data.extend(c.to_le_bytes())),
            TargetFormat::G32R32F => [r, g].iter().for_each(|c| data.extend(c.to_le_bytes())),
            TargetFormat::R32F => data.extend(r.to_le_bytes()),
        }
    }
    let write = || -> anyhow::Result<()> {
        let mut dds = ddsfile::Dds::new_d3d(ddsfile::NewD3dParams {
            height: s.height,
            width: s.width,
            depth: None,
            format,
            mipmap_levels: None,
            caps2: None,
        })
        .map_err(|e| anyhow!("DDS ({}): {e}", t.format.name()))?;
        if dds.data.len() != data.len() {
            return Err(anyhow!(
                "DDS ({}): {} bytes for a {}-byte surface",
                t.format.name(),
                data.len(),
                dds.data.len()
            ));
        }
        dds.data = data;
        // ddsfile describes a format with both a bit count and a FourCC (the float formats,
        // A16B16G16R16) by its bit count alone, with no masks, which no reader (ddsfile's
        // included) can name: D3D9's DDS files name those formats by their FourCC.
        if let Some(fourcc) = ddsfile::DataFormat::get_fourcc(&format) {
            let spf = &mut dds.header.spf;
            spf.flags = ddsfile::PixelFormatFlags::FOURCC;
            spf.fourcc = Some(fourcc);
            spf.rgb_bit_count = None;
            spf.r_bit_mask = None;
            spf.g_bit_mask = None;
            spf.b_bit_mask = None;
            spf.a_bit_mask = None;
        }
        let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
        dds.write(&mut file).map_err(|e| anyhow!("{e}"))?;
        std::io::Write::flush(&mut file)?;
        Ok(())
    };
    write()
        .with_context(|| format!("writing {}", path.display()))
        .map_err(Failure::Io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_coordinates() {
        assert_eq!(parse_xy("3,4"), Ok((3, 4)));
        assert_eq!(parse_xy(" 3, 4"), Ok((3, 4)));
        assert!(parse_xy("3").is_err());
        assert!(parse_xy("-1,2").is_err());
        assert!(parse_xy("1,2,3").is_err());
    }
}
