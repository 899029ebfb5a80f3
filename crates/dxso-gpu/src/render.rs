//! Pixel shaders rendered on a GPU: [`Gpu::render`] draws one triangle covering a
//! `width` x `height` target with a translated pixel shader's `ps_main` and reads every
//! colour output (and oDepth) back as floats; [`Gpu::render_draw`] draws a dxso-vm
//! device's vertices as a triangle list through its vertex shader's `vs_main`.
//!
//! - **Varyings.** In [`Gpu::render`] each input of the pixel shader is a linear function of
//!   the pixel position ([`crate::Varying`]), so a value at a pixel can be computed by hand: the
//!   vertex stage is a generated vs_3_0 (`mov o#, v#` for each semantic the pixel shader
//!   reads) translated with [`dxso_naga::translate_linked`] at the pixel stage's locations, fed the function's values at the
//!   triangle's corners. With w = 1 at every corner, interpolation is exactly linear.
//! - **Pixel positions.** Pixel (x, y) has its centre at (x + 0.5, y + 0.5) in the target
//!   (origin top left, y down), where varyings are evaluated. `vPos` reads (x, y, 0, 0): the
//!   translation subtracts the half pixel, as D3D9 puts pixel centres on whole numbers.
//! - **Faces.** D3D9's rule: a triangle clockwise on screen is front-facing (`vFace` = +1),
//!   counter-clockwise back-facing (-1); nothing is culled ([`crate::Winding`]).
//! - **Targets.** Each colour output `oC#` is an `Rgba32Float` target at location `#`,
//!   cleared to [`crate::Frame::clear`] (a pixel `texkill` discards keeps it); oDepth writes a
//!   `Depth32Float` target cleared to 1.0 (depth test off: the last write wins).
//! - **Bindings** come from the translations' [`dxso_naga::Interface`]: the pixel shader's
//!   constants, ps_1_x parameters and textures from the [`crate::Frame`], the vertex shader's from
//!   the device. Textures are uploaded by [`crate::textures`], as for `texldl`.

use crate::bind::{self, Source};
use crate::{ColorTarget, Error, Frame, FrameError, Gpu, Image, Winding};
use dxso::validate::Checked;
use dxso_naga::{Options, Translation};
use dxso_vm::{SamplerState, Texture};

/// A source of nothing: the generated full-screen vertex shader binds nothing.
struct Nothing;

impl Source for Nothing {
    fn float(&self, _: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn int(&self, _: u32) -> [i32; 4] {
        [0; 4]
    }
    fn boolean(&self, _: u32) -> bool {
        false
    }
    fn texture(&self, _: u32) -> Option<&Texture> {
        None
    }
    fn sampler_state(&self, _: u32) -> SamplerState {
        SamplerState::default()
    }
}

/// `TEXCOORD10` as (`texcoord`, 10).
fn split_semantic(semantic: &str) -> Option<(String, u32)> {
    let digits = semantic.len()
        - semantic
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .len();
    let (name, index) = semantic.split_at(semantic.len() - digits);
    Some((name.to_ascii_lowercase(), index.parse().ok()?))
}

/// The vs_3_0 text of the full-screen stage: `v0` is the position, `v1..` the semantics in
/// order, each copied to its output.
fn fullscreen_vs(semantics: &[String]) -> Result<String, Error> {
    // o0 is the position; vs_3_0 has o0..o11.
    if semantics.len() > 11 {
        return Err(Error::Frame(FrameError::TooManySemantics(semantics.len())));
    }
    let mut dcl = String::from("vs_3_0\ndcl_position v0\ndcl_position o0\n");
    let mut code = String::from("mov o0, v0\n");
    for (k, s) in semantics.iter().enumerate() {
        let n = k + 1;
        let (usage, index) = split_semantic(s)
            .filter(|(u, i)| !(u == "position" && *i == 0))
            .ok_or_else(|| Error::Frame(FrameError::UnwritableInput(s.clone())))?;
        dcl.push_str(&format!("dcl_texcoord{k} v{n}\ndcl_{usage}{index} o{n}\n"));
        code.push_str(&format!("mov o{n}, v{n}\n"));
    }
    Ok(dcl + &code)
}

/// The generated full-screen vertex stage and its three vertices: `inputs` are (the
/// semantic the stage writes, the semantic of the frame's [`crate::Varying`] it carries),
/// `agreed` the locations of written semantics without a fixed one.
fn fullscreen(
    inputs: &[(String, String)],
    agreed: &[(String, u32)],
    frame: &Frame,
) -> Result<(Translation, Vec<f32>), Error> {
    let written: Vec<String> = inputs.iter().map(|i| i.0.clone()).collect();
    let source = fullscreen_vs(&written)?;
    let shader = dxso::text::parse(&source)
        .map_err(|e| Error::Interface(format!("the generated vertex stage: {e}")))?;
    let vs = dxso::validate::validate(&shader, &dxso::validate::Caps::max())
        .map_err(|e| Error::Interface(format!("the generated vertex stage: {e:?}")))?;
    let vs = dxso_naga::translate_linked(&vs, agreed, &Options { float: frame.float })?;

    // The corners in the target: (0, 0), (2w, 0), (0, 2h) cover it.
    let (w, h) = (frame.width as f32, frame.height as f32);
    let mut corners = [(0.0, 0.0), (2.0 * w, 0.0), (0.0, 2.0 * h)];
    if frame.winding == Winding::CounterClockwise {
        corners.swap(1, 2);
    }
    let mut per_register: Vec<Vec<[f32; 4]>> = Vec::new();
    per_register.push(
        corners
            .iter()
            .map(|&(x, y)| [x / w * 2.0 - 1.0, 1.0 - y / h * 2.0, 0.0, 1.0])
            .collect(),
    );
    for (_, s) in inputs {
        let v = frame
            .varyings
            .iter()
            .find(|v| v.semantic.eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::Frame(FrameError::MissingInput(s.clone())))?;
        per_register.push(corners.iter().map(|&(x, y)| v.at(x, y)).collect());
    }
    // The vertex buffer in the order of the vertex shader's interface.
    let mut order = Vec::new();
    for i in &vs.interface.inputs {
        let n: usize = i
            .register
            .strip_prefix('v')
            .and_then(|n| n.parse().ok())
            .filter(|&n: &usize| n < per_register.len())
            .ok_or_else(|| Error::Interface(format!("generated vertex input {}", i.register)))?;
        order.push(n);
    }
    let per_register = &per_register;
    let vertices: Vec<f32> = (0..3)
        .flat_map(|corner| order.iter().flat_map(move |&n| per_register[n][corner]))
        .collect();
    Ok((vs, vertices))
}

fn pixel_shader(ps: &Checked) -> Result<(), Error> {
    if ps.shader().version.is_pixel() {
        Ok(())
    } else {
        Err(Error::Frame(FrameError::NotPixelShader(
            ps.shader().version,
        )))
    }
}

/// A draw ready to record: the vertex translation, the pixel stage's module and
/// interface, their sources and the vertices (one `vec4<f32>` per vertex-shader input, in
/// the Interface's order).
struct Pass<'a> {
    vs: Translation,
    vs_source: &'a dyn Source,
    ps_module: naga::Module,
    ps: dxso_naga::Interface,
    vertices: Vec<f32>,
    vertex_count: u32,
}

impl Gpu {
    /// Draw one triangle over the whole `frame` with the pixel shader `ps` (any version,
    /// ps_1_1 .. ps_3_0) and read back what it writes.
    ///
    /// ```no_run
    /// let ps = dxso::text::parse("ps_2_0\ndcl t0\nmov oC0, t0\n").unwrap();
    /// let ps = dxso::validate::validate(&ps, &Default::default()).unwrap();
    /// let gpu = dxso_gpu::Gpu::new(None).unwrap();
    /// let mut frame = dxso_gpu::Frame::new(8, 8);
    /// // TEXCOORD0 = (x / 8, y / 8, 0, 1) at (x, y) in the target.
    /// frame.varyings.push(dxso_gpu::Varying {
    ///     semantic: "TEXCOORD0".into(),
    ///     origin: [0.0, 0.0, 0.0, 1.0],
    ///     dx: [0.125, 0.0, 0.0, 0.0],
    ///     dy: [0.0, 0.125, 0.0, 0.0],
    /// });
    /// let image = gpu.render(&ps, &frame).unwrap();
    /// // Pixel (3, 5) is sampled at its centre (3.5, 5.5).
    /// assert_eq!(image.pixel("oC0", 3, 5), Some([0.4375, 0.6875, 0.0, 1.0]));
    /// ```
    pub fn render(&self, ps: &Checked, frame: &Frame) -> Result<Image, Error> {
        pixel_shader(ps)?;
        let options = Options { float: frame.float };
        let ps = dxso_naga::translate(ps, &options)?;
        let inputs: Vec<(String, String)> = ps
            .interface
            .inputs
            .iter()
            .flat_map(|i| &i.varyings)
            .filter(|v| v.builtin.is_none())
            .map(|v| (v.semantic.clone(), v.semantic.clone()))
            .collect();
        let agreed: Vec<(String, u32)> = ps
            .interface
            .inputs
            .iter()
            .flat_map(|i| &i.varyings)
            .filter_map(|v| Some((v.semantic.clone(), v.location?)))
            .collect();
        let (vs, vertices) = fullscreen(&inputs, &agreed, frame)?;
        self.run_pass(
            Pass {
                vs,
                vs_source: &Nothing,
                ps_module: ps.module,
                ps: ps.interface,
                vertices,
                vertex_count: 3,
            },
            frame,
        )
    }

    /// [`Gpu::render`] with a pixel stage compiled elsewhere: `module` (naga IR, such as
    /// naga's SPIR-V front end reads from another compiler's output) drawn through its
    /// `interface.entry_point`, which `interface` describes as a translation's Interface
    /// would: each input varying's semantic (the [`crate::Varying`] of the frame that feeds
    /// it) and location, a builtin for `vPos`/`vFace`, the colour outputs' locations (or
    /// `frag_depth`), and the constant buffers and samplers it binds — filled from the frame
    /// by register exactly as for a translation (a `float_constants` buffer of `registers`
    /// registers holds `frame.float_constants[0..registers]`, whatever the module calls
    /// it). The generated vertex stage writes the varyings at the locations given.
    pub fn render_module(
        &self,
        module: naga::Module,
        interface: &dxso_naga::Interface,
        frame: &Frame,
    ) -> Result<Image, Error> {
        if interface.stage != "fragment" {
            return Err(Error::Interface(format!(
                "render_module takes a fragment stage, not {}",
                interface.stage
            )));
        }
        // Each input is carried as TEXCOORD<location>: fixed at that location below 10,
        // agreed from 10 on.
        let mut inputs = Vec::new();
        let mut agreed = Vec::new();
        for v in interface
            .inputs
            .iter()
            .flat_map(|i| &i.varyings)
            .filter(|v| v.builtin.is_none())
        {
            let location = v.location.ok_or_else(|| {
                Error::Interface(format!(
                    "input {} has neither location nor builtin",
                    v.semantic
                ))
            })?;
            let carrier = format!("TEXCOORD{location}");
            agreed.push((carrier.clone(), location));
            inputs.push((carrier, v.semantic.clone()));
        }
        let (vs, vertices) = fullscreen(&inputs, &agreed, frame)?;
        self.run_pass(
            Pass {
                vs,
                vs_source: &Nothing,
                ps_module: module,
                ps: interface.clone(),
                vertices,
                vertex_count: 3,
            },
            frame,
        )
    }

    /// Draw the `vertex_count` vertices of `device`'s draw as a triangle list through its
    /// vertex shader's `@vertex` entry (the device's vertex fetch, constants and textures),
    /// with the pixel shader `ps` (the `frame`'s constants, textures and ps_1_x state; its
    /// varyings and winding are not used), and read back what `ps` writes.
    pub fn render_draw(
        &self,
        device: &dxso_vm::Device,
        vertex_count: usize,
        ps: &Checked,
        frame: &Frame,
    ) -> Result<Image, Error> {
        pixel_shader(ps)?;
        let checked = device.vertex_shader().ok_or(dxso_vm::VmError::NoShader)?;
        let program = device.program().ok_or(dxso_vm::VmError::NoShader)?;
        let options = Options { float: frame.float };
        let (vs, ps) = dxso_naga::translate_pair(checked, ps, &options)?;
        let (ps_module, ps) = (ps.module, ps.interface);
        let slots = crate::run::input_slots(&vs.interface, program)?;
        let fetched = device.fetch(vertex_count, 1)?;
        let mut vertices = Vec::new();
        crate::run::pack_inputs(&fetched, &slots, 0..fetched.vertices, &mut vertices);
        let vertex_count = u32::try_from(fetched.vertices)
            .map_err(|_| Error::Frame(FrameError::Vertices(fetched.vertices)))?;
        self.run_pass(
            Pass {
                vs,
                vs_source: device,
                ps_module,
                ps,
                vertices,
                vertex_count,
            },
            frame,
        )
    }

    /// One render pass, by phase: the bindings, the vertex attributes
    /// ([`vertex_attributes`]), the targets ([`color_outputs`]), the pipeline
    /// ([`render_pipeline`]), the target textures and read-back buffers, the pass and its
    /// copies, and the unpadded read-back ([`Gpu::read_image`]).
    fn run_pass(&self, pass: Pass<'_>, frame: &Frame) -> Result<Image, Error> {
        let device = &self.device;
        let max = self.limits.max_texture_dimension_2d;
        if !(1..=max).contains(&frame.width) || !(1..=max).contains(&frame.height) {
            return Err(Error::Frame(FrameError::TargetSize {
                width: frame.width,
                height: frame.height,
                max,
            }));
        }
        let (vs, ps) = (&pass.vs.interface, &pass.ps);

        // Bindings: the vertex shader's groups and the pixel shader's.
        let visibility = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let mut layouts = Vec::new();
        bind::add_layout(&mut layouts, vs, visibility, self.features);
        bind::add_layout(&mut layouts, ps, visibility, self.features);
        let bgls = bind::layouts(device, &layouts);
        let vs_resources = bind::resources(self, vs, pass.vs_source)?;
        let ps_resources = bind::resources(self, ps, frame)?;
        let mut entries = vs_resources.entries();
        entries.extend(ps_resources.entries());
        let groups = bind::groups(device, &bgls, &entries, &[]);
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("dxso-gpu render"),
            bind_group_layouts: &bgls.iter().map(Some).collect::<Vec<_>>(),
            immediate_size: 0,
        });

        let attributes = vertex_attributes(vs)?;
        let stride = 16 * attributes.len() as u64;
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: stride,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &attributes,
        })];

        let (colors, depth) = color_outputs(ps)?;
        let slots = colors.iter().map(|c| c.1 as usize + 1).max().unwrap_or(0);
        let targets = color_target_states(&colors, slots);
        let depth_format = wgpu::TextureFormat::Depth32Float;
        let buffers: &[_] = if stride > 0 { &buffers } else { &[] };
        let pipeline = render_pipeline(
            device,
            &pass,
            &layout,
            buffers,
            &targets,
            depth.then_some(depth_format),
        );
        self.check()?;

        let size = wgpu::Extent3d {
            width: frame.width,
            height: frame.height,
            depth_or_array_layers: 1,
        };
        let texture = |format| target_texture(device, size, format);
        let color_textures: Vec<wgpu::Texture> = colors
            .iter()
            .map(|_| texture(wgpu::TextureFormat::Rgba32Float))
            .collect();
        let color_views: Vec<wgpu::TextureView> = color_textures
            .iter()
            .map(|t| t.create_view(&Default::default()))
            .collect();
        let depth_texture = depth.then(|| texture(depth_format));
        let depth_view = depth_texture
            .as_ref()
            .map(|t| t.create_view(&Default::default()));
        let [r, g, b, a] = frame.clear.map(f64::from);
        let mut attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = vec![None; slots];
        for ((_, l), view) in colors.iter().zip(&color_views) {
            attachments[*l as usize] = Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                    store: wgpu::StoreOp::Store,
                },
            });
        }
        let vertex_buffer = (stride > 0).then(|| vertex_buffer(device, &pass.vertices));

        // Read-back buffers: rows padded to wgpu's copy alignment.
        let row =
            (frame.width as u64 * 16).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64);
        let depth_row =
            (frame.width as u64 * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64);
        let readback = |bytes: u64| readback_buffer(device, bytes);
        let rows = frame.height as u64;
        let color_reads: Vec<wgpu::Buffer> = colors.iter().map(|_| readback(row * rows)).collect();
        let depth_read = depth.then(|| readback(depth_row * rows));

        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("dxso-gpu render"),
        });
        {
            let mut rp = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("dxso-gpu render"),
                color_attachments: &attachments,
                depth_stencil_attachment: depth_view.as_ref().map(|view| {
                    wgpu::RenderPassDepthStencilAttachment {
                        view,
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(1.0),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: None,
                    }
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            rp.set_pipeline(&pipeline);
            for (g, bg) in &groups {
                rp.set_bind_group(*g, bg, &[]);
            }
            if let Some(vb) = &vertex_buffer {
                rp.set_vertex_buffer(0, vb.slice(..));
            }
            rp.draw(0..pass.vertex_count, 0..1);
        }
        let copy = |encoder: &mut wgpu::CommandEncoder, texture, aspect, buffer, bytes_per_row| {
            copy_to_buffer(encoder, texture, aspect, buffer, bytes_per_row, size);
        };
        for (t, b) in color_textures.iter().zip(&color_reads) {
            copy(&mut encoder, t, wgpu::TextureAspect::All, b, row);
        }
        if let (Some(t), Some(b)) = (&depth_texture, &depth_read) {
            copy(
                &mut encoder,
                t,
                wgpu::TextureAspect::DepthOnly,
                b,
                depth_row,
            );
        }
        self.queue.submit([encoder.finish()]);
        self.check()?;

        let image = self.read_image(
            frame,
            &colors,
            &color_reads,
            depth_read.as_ref(),
            [row, depth_row],
        )?;
        self.check()?;
        Ok(image)
    }

    /// Unpad the rows of the read-back buffers (`row`: the colour and depth buffers' padded
    /// bytes per row) into the image.
    fn read_image(
        &self,
        frame: &Frame,
        colors: &[(String, u32)],
        color_reads: &[wgpu::Buffer],
        depth_read: Option<&wgpu::Buffer>,
        [row, depth_row]: [u64; 2],
    ) -> Result<Image, Error> {
        let texels = |buffer: &wgpu::Buffer, bytes_per_row: u64, texel: usize| {
            let mut out: Vec<f32> = Vec::new();
            self.read_mapped(buffer, bytes_per_row * frame.height as u64, |view| {
                for r in view.chunks_exact(bytes_per_row as usize) {
                    let used = &r[..frame.width as usize * texel];
                    out.extend(
                        used.chunks_exact(4)
                            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                    );
                }
            })?;
            Ok::<_, Error>(out)
        };
        let mut image = Image {
            width: frame.width,
            height: frame.height,
            colors: Vec::new(),
            depth: None,
        };
        for ((register, _), b) in colors.iter().zip(color_reads) {
            let floats = texels(b, row, 16)?;
            image.colors.push(ColorTarget {
                register: register.clone(),
                pixels: floats
                    .chunks_exact(4)
                    .map(|p| [p[0], p[1], p[2], p[3]])
                    .collect(),
            });
        }
        if let Some(b) = depth_read {
            image.depth = Some(texels(b, depth_row, 4)?);
        }
        Ok(image)
    }
}

/// Vertex attributes: input k at the location the Interface gives, 16 bytes each.
fn vertex_attributes(vs: &dxso_naga::Interface) -> Result<Vec<wgpu::VertexAttribute>, Error> {
    let mut attributes = Vec::new();
    for (k, i) in vs.inputs.iter().enumerate() {
        let location = i.varyings.first().and_then(|v| v.location).ok_or_else(|| {
            Error::Interface(format!("vertex input {} has no location", i.register))
        })?;
        attributes.push(wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 16 * k as u64,
            shader_location: location,
        });
    }
    Ok(attributes)
}

/// Targets: each colour output (its register and location), and whether oDepth is written
/// (to a depth target).
fn color_outputs(ps: &dxso_naga::Interface) -> Result<(Vec<(String, u32)>, bool), Error> {
    let mut colors: Vec<(String, u32)> = Vec::new();
    let mut depth = false;
    for o in &ps.outputs {
        for v in &o.varyings {
            match (v.builtin, v.location) {
                (Some("frag_depth"), _) => depth = true,
                (None, Some(l)) => colors.push((o.register.clone(), l)),
                _ => {
                    return Err(Error::Interface(format!(
                        "pixel output {} is neither a location nor oDepth",
                        o.register
                    )));
                }
            }
        }
    }
    Ok((colors, depth))
}

/// The render pipeline of the pass's two translations (`depth`: the depth target's format,
/// when oDepth is written).
fn render_pipeline(
    device: &wgpu::Device,
    pass: &Pass<'_>,
    layout: &wgpu::PipelineLayout,
    buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
    targets: &[Option<wgpu::ColorTargetState>],
    depth: Option<wgpu::TextureFormat>,
) -> wgpu::RenderPipeline {
    let (vs, ps) = (&pass.vs.interface, &pass.ps);
    let module = |m: &naga::Module, label| {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(m.clone())),
        })
    };
    let vs_module = module(&pass.vs.module, "dxso-gpu vertex");
    let ps_module = module(&pass.ps_module, "dxso-gpu pixel");
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("dxso-gpu render"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: &vs_module,
            entry_point: Some(&vs.entry_point),
            compilation_options: Default::default(),
            buffers,
        },
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            // D3D9: clockwise on screen is the front face.
            front_face: wgpu::FrontFace::Cw,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: depth.map(|format| wgpu::DepthStencilState {
            format,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &ps_module,
            entry_point: Some(&ps.entry_point),
            compilation_options: Default::default(),
            targets,
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A colour target state (Rgba32Float, no blending) at each colour output's location, of
/// `slots` in all.
fn color_target_states(
    colors: &[(String, u32)],
    slots: usize,
) -> Vec<Option<wgpu::ColorTargetState>> {
    let mut targets: Vec<Option<wgpu::ColorTargetState>> = vec![None; slots];
    for (_, l) in colors {
        targets[*l as usize] = Some(wgpu::ColorTargetState {
            format: wgpu::TextureFormat::Rgba32Float,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        });
    }
    targets
}

/// A render target of `size` in `format`, copied out after the pass.
fn target_texture(
    device: &wgpu::Device,
    size: wgpu::Extent3d,
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("dxso-gpu target"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// The vertex buffer holding the packed inputs.
fn vertex_buffer(device: &wgpu::Device, vertices: &[f32]) -> wgpu::Buffer {
    wgpu::util::DeviceExt::create_buffer_init(
        device,
        &wgpu::util::BufferInitDescriptor {
            label: Some("dxso-gpu vertices"),
            contents: bytemuck::cast_slice(vertices),
            usage: wgpu::BufferUsages::VERTEX,
        },
    )
}

/// A buffer of `bytes` that a target is copied into and mapped for reading.
fn readback_buffer(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("dxso-gpu read-back"),
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Copy the whole of `texture` (`size`; `aspect` of it) into `buffer`, rows
/// `bytes_per_row` apart.
fn copy_to_buffer(
    encoder: &mut wgpu::CommandEncoder,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
    buffer: &wgpu::Buffer,
    bytes_per_row: u64,
    size: wgpu::Extent3d,
) {
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect,
        },
        wgpu::TexelCopyBufferInfo {
            buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row as u32),
                rows_per_image: Some(size.height),
            },
        },
        size,
    );
}
