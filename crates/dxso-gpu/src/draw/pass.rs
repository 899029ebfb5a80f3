//! One draw: its stages, vertices and states as a render pipeline, recorded into a pass that
//! loads and stores the frame's surfaces.

use super::{
    Cache, Prepared, Targets, assemble, fetch, formats, patch, rectangle, stages, state, viewport,
};
use crate::bind::{self, Source};
use crate::{Error, FrameError, Gpu, Refusal};
use dxso_draw::{Draw, Frame, MAX_DRAW_VERTICES, Primitive};
use dxso_naga::{Options, Translation};

/// The two stages' translations and what they bind.
type StagePair<'a> = (
    &'a Translation,
    &'a Translation,
    &'a dyn Source,
    &'a dyn Source,
);

impl Gpu {
    /// Check and prepare one draw (`None`: it covers no pixel).
    pub(super) fn prepare_one(
        &self,
        t: &Targets,
        frame: &Frame,
        draw: &Draw,
        cache: &mut Cache,
    ) -> Result<Option<Prepared>, Error> {
        let total = draw.vertex_count.checked_mul(draw.instance_count.max(1));
        if total.is_none_or(|n| n > MAX_DRAW_VERTICES) {
            return Err(Error::Frame(FrameError::DrawSize {
                vertices: draw.vertex_count,
                instances: draw.instance_count,
                max: MAX_DRAW_VERTICES,
            }));
        }
        self.prepare_draw(t, frame, draw, cache)
    }

    /// Record one prepared draw: a pass that loads and stores the surfaces.
    pub(super) fn record_draw(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        t: &Targets,
        p: &Prepared,
    ) {
        let srgb = p.srgb;
        let colors: Vec<_> = t
            .colors
            .iter()
            .map(|c| {
                Some(wgpu::RenderPassColorAttachment {
                    view: match (&c.srgb_view, srgb) {
                        (Some(v), true) => v,
                        _ => &c.view,
                    },
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })
            })
            .collect();
        let ds = t
            .depth
            .as_ref()
            .map(|d| wgpu::RenderPassDepthStencilAttachment {
                view: &d.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: d.format.has_stencil().then_some(wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                }),
            });
        {
            let mut rp = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("dxso-gpu draw"),
                color_attachments: &colors,
                depth_stencil_attachment: ds,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            rp.set_pipeline(&p.pipeline);
            for (g, bg) in &p.groups {
                rp.set_bind_group(*g, bg, &[]);
            }
            let vp = &p.viewport;
            rp.set_viewport(
                vp.x as f32,
                vp.y as f32,
                vp.width as f32,
                vp.height as f32,
                vp.min_z,
                vp.max_z,
            );
            let [x, y, w, h] = p.rect;
            rp.set_scissor_rect(x, y, w, h);
            rp.set_stencil_reference(p.stencil_reference);
            rp.set_blend_constant(p.blend_constant);
            for (slot, (vb, offset)) in p.vertices.iter().enumerate() {
                rp.set_vertex_buffer(slot as u32, vb.slice(*offset..));
            }
            match p.points {
                Some(n) => rp.draw(0..6, 0..n),
                None => {
                    rp.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
                    rp.draw_indexed(0..p.index_count, 0, 0..p.instances);
                }
            }
        }
    }

    /// The pipeline, bindings and buffers of one draw (`None`: it covers no pixel).
    fn prepare_draw(
        &self,
        t: &Targets,
        frame: &Frame,
        draw: &Draw,
        cache: &mut Cache,
    ) -> Result<Option<Prepared>, Error> {
        let mut vp = viewport(frame, draw)?;
        let Some(rect) = rectangle(&vp, draw) else {
            return Ok(None);
        };
        let indices = assemble(
            draw.primitive,
            draw.vertex_count,
            draw.instance_count.max(1),
            state::flat(&draw.states),
        );
        if indices.is_empty() {
            return Ok(None);
        }
        let options = Options { float: self.float };
        let area = (vp.x as f32, vp.y as f32, vp.width as f32, vp.height as f32);
        let st = stages::build(draw, &options, area)?;
        let generated_vs = st.generated_vs;
        let psize = st.psize.is_some();
        if st.screen_space {
            // POSITIONT: z is the surface's depth as it is.
            (vp.min_z, vp.max_z) = (0.0, 1.0);
            screen_positions(draw)?;
        }
        let (mut vs, ps) = self.finish_stages(draw, st, &vp)?;

        let program = draw.vertex.program().ok_or(dxso_vm::VmError::NoShader)?;
        let expanded = expanded_points(draw, psize);
        let flat = state::flat(&draw.states);
        let mut on_gpu = fetch::on_gpu(draw, &vs.interface, program, flat, expanded, &self.limits)?;
        if let Some(v) = &on_gpu {
            let mut module = vs.module.clone();
            if patch::fetch_inputs(&mut module, &vs.interface.entry_point, &v.inputs)? {
                vs.module = module;
            } else {
                on_gpu = None;
            }
        }
        let input = match on_gpu {
            Some(v) => v,
            None => {
                cache.stats.cpu_fetches += 1;
                fetch::on_cpu(draw, &vs.interface, program, indices, expanded)?
            }
        };
        let vertices: Vec<(wgpu::Buffer, u64)> = input
            .streams
            .iter()
            .map(|st| (cache.buffer(&self.device, &st.data), st.offset))
            .collect();
        let index_data = fetch::Data::Owned(bytemuck::cast_slice(&input.indices).to_vec());
        let index_buffer = cache.buffer(&self.device, &index_data);
        let storage: Vec<(u32, wgpu::Buffer)> = input
            .storage
            .iter()
            .map(|(b, d)| (*b, cache.buffer(&self.device, d)))
            .collect();

        let vs_source: &dyn Source = if generated_vs {
            &stages::Nothing
        } else {
            &draw.vertex
        };
        if let Some(p) = &draw.pixel {
            srgb_textures(p)?;
        }
        let ps_source: Box<dyn Source> = match &draw.pixel {
            Some(p) => Box::new(stages::PixelSource::new(p)),
            None => Box::new(stages::Nothing),
        };
        let layouts: Vec<wgpu::VertexBufferLayout<'_>> = input
            .streams
            .iter()
            .map(|st| wgpu::VertexBufferLayout {
                array_stride: st.stride,
                step_mode: st.step,
                attributes: &st.attributes,
            })
            .collect();
        let stages = (&vs, &ps, vs_source, &*ps_source);
        let topology = if expanded {
            wgpu::PrimitiveTopology::TriangleList
        } else {
            state::topology(draw.primitive)
        };
        let (pipeline, groups) =
            self.pipeline(t, draw, stages, (&layouts, &storage), topology, cache)?;
        Ok(Some(Prepared {
            pipeline,
            groups,
            vertices,
            indices: index_buffer,
            index_count: input.indices.len() as u32,
            instances: input.instances,
            viewport: vp,
            rect,
            stencil_reference: state::stencil_reference(&draw.states),
            blend_constant: state::blend_constant(&draw.states),
            srgb: state::srgb_write(&draw.states),
            points: expanded.then_some(input.indices.len() as u32),
        }))
    }

    /// The translations with what D3D9 needs and GPUs lack added to their entries: the
    /// pixel-centre offset, colour clamps, flat colours, clip distances, fog and the alpha
    /// test ([`patch`]).
    fn finish_stages(
        &self,
        draw: &Draw,
        st: stages::Stages,
        vp: &dxso_draw::Viewport,
    ) -> Result<(Translation, Translation), Error> {
        let (mut vs, mut ps) = (st.vs, st.ps);
        let ps_entry = ps.interface.entry_point.clone();
        let (fog_semantic, fog_component) = if st.generated_vs {
            ("COLOR1", 3)
        } else {
            ("FOG0", 0)
        };
        let vertex_fog = vs
            .interface
            .outputs
            .iter()
            .flat_map(|o| &o.varyings)
            .find(|v| v.semantic.eq_ignore_ascii_case(fog_semantic))
            .and_then(|v| v.location)
            .map(|l| (l, fog_component));
        let tail = state::pixel_tail(draw, vertex_fog);
        patch::finish_pixel(&mut ps.module, &ps_entry, &tail)?;
        let colour_inputs: Vec<u32> = if ps.interface.version.starts_with("ps_3") {
            Vec::new()
        } else {
            ps.interface
                .inputs
                .iter()
                .flat_map(|i| &i.varyings)
                .filter(|v| v.semantic.to_ascii_uppercase().starts_with("COLOR"))
                .filter_map(|v| v.location)
                .collect()
        };
        // User clip planes, in clip space (POSITIONT draws are not clipped, as on the CPU).
        let enabled = state::clip_planes(&draw.states);
        let planes: Vec<[f32; 4]> = if st.screen_space {
            Vec::new()
        } else {
            (0..6)
                .filter(|n| enabled >> n & 1 != 0)
                .map(|n| draw.clip_planes[n])
                .collect()
        };
        if !planes.is_empty() && !self.features.contains(wgpu::Features::CLIP_DISTANCES) {
            return Err(Error::Refused(Refusal::ClipDistances));
        }
        // Flat shading: every colour input takes the provoking vertex's value.
        let flat: Vec<u32> = if state::flat(&draw.states) {
            ps.interface
                .inputs
                .iter()
                .flat_map(|i| &i.varyings)
                .filter(|v| v.semantic.to_ascii_uppercase().starts_with("COLOR"))
                .filter_map(|v| v.location)
                .collect()
        } else {
            Vec::new()
        };
        let entry = vs.interface.entry_point.clone();
        let points = expanded_points(draw, st.psize.is_some()).then(|| {
            let size = state::point_size(&draw.states);
            let sprite = if state::sprites(&draw.states) {
                ps.interface
                    .inputs
                    .iter()
                    .flat_map(|i| &i.varyings)
                    .filter(|v| v.semantic.to_ascii_uppercase().starts_with("TEXCOORD"))
                    .filter_map(|v| v.location)
                    .collect()
            } else {
                Vec::new()
            };
            let f = |n: &str| f32::from_bits(draw.states.get_by_name(n).unwrap_or(0));
            patch::Points {
                half: [size / vp.width as f32, -size / vp.height as f32],
                sprite,
                screen_space: st.screen_space,
                psize: st.psize,
                limits: [f("POINTSIZE_MIN"), f("POINTSIZE_MAX")],
                per_pixel: [1.0 / vp.width as f32, -1.0 / vp.height as f32],
            }
        });
        if points.is_some() && !planes.is_empty() {
            return Err(Error::Refused(Refusal::ClipPlanesWithPoints));
        }
        let tail = patch::VertexTail {
            offset: [1.0 / vp.width as f32, -1.0 / vp.height as f32],
            clamp: &colour_inputs,
            flat: &flat,
            planes: &planes,
            constants: &st.unwritten,
            points: points.as_ref(),
        };
        patch::finish_vertex(&mut vs.module, &entry, &tail)?;
        patch::flat_inputs(&mut ps.module, &ps_entry, &flat)?;
        Ok((vs, ps))
    }

    /// The render pipeline of a draw (made once per distinct pipeline in the frame) and its
    /// bind groups; `storage`: the vertex entry's storage buffers ([`fetch`]).
    fn pipeline(
        &self,
        t: &Targets,
        draw: &Draw,
        (vs, ps, vs_source, ps_source): StagePair<'_>,
        (buffers, storage): (&[wgpu::VertexBufferLayout<'_>], &[(u32, wgpu::Buffer)]),
        topology: wgpu::PrimitiveTopology,
        cache: &mut Cache,
    ) -> Result<(wgpu::RenderPipeline, Vec<(u32, wgpu::BindGroup)>), Error> {
        let device = &self.device;
        let (vsi, psi) = (&vs.interface, &ps.interface);
        let visibility = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let mut layouts = Vec::new();
        bind::add_layout(&mut layouts, vsi, visibility, self.features);
        bind::add_layout(&mut layouts, psi, visibility, self.features);
        let vs_resources = bind::resources(self, vsi, vs_source)?;
        let ps_resources = bind::resources(self, psi, ps_source)?;
        let mut entries = vs_resources.entries();
        entries.extend(ps_resources.entries());
        if !storage.is_empty() {
            let group = patch::STORAGE_GROUP;
            if layouts.len() <= group as usize {
                layouts.resize_with(group as usize + 1, Vec::new);
            }
            for (b, buffer) in storage {
                layouts[group as usize].push(bind::storage_entry(
                    *b,
                    true,
                    wgpu::ShaderStages::VERTEX,
                ));
                entries.push((
                    group,
                    wgpu::BindGroupEntry {
                        binding: *b,
                        resource: buffer.as_entire_binding(),
                    },
                ));
            }
        }
        let written: Vec<u32> = psi
            .outputs
            .iter()
            .flat_map(|o| &o.varyings)
            .filter(|v| v.builtin.is_none())
            .filter_map(|v| v.location)
            .collect();
        let blend = state::blend(&draw.states);
        let mut targets = Vec::new();
        for (n, c) in t.colors.iter().enumerate() {
            let mut mask = state::write_mask(&draw.states, n);
            if !c.format.has_alpha() {
                mask.remove(wgpu::ColorWrites::ALPHA);
            }
            if !written.contains(&(n as u32)) {
                mask = wgpu::ColorWrites::empty();
            }
            if blend.is_some()
                && formats::float32(c.wgpu)
                && !self.features.contains(wgpu::Features::FLOAT32_BLENDABLE)
            {
                return Err(Error::Refused(Refusal::Float32Blend { format: c.format }));
            }
            let srgb = c.srgb_view.is_some() && state::srgb_write(&draw.states);
            targets.push(Some(wgpu::ColorTargetState {
                format: if srgb {
                    wgpu::TextureFormat::Rgba8UnormSrgb
                } else {
                    c.wgpu
                },
                blend,
                write_mask: mask,
            }));
        }
        let depth_stencil = t
            .depth
            .as_ref()
            .map(|d| state::depth_stencil(&draw.states, d.wgpu, d.format.has_stencil()));
        let primitive = wgpu::PrimitiveState {
            topology,
            front_face: wgpu::FrontFace::Cw,
            cull_mode: if draw.primitive == Primitive::PointList {
                None
            } else {
                state::cull(&draw.states)
            },
            ..Default::default()
        };
        // Everything the pipeline is made of, as its key.
        let key = format!(
            "{:?}",
            (
                &vs.module,
                &ps.module,
                &vsi.entry_point,
                &psi.entry_point,
                buffers,
                primitive,
                &depth_stencil,
                &targets,
                &layouts
            )
        );
        if !cache.pipelines.contains_key(&key) {
            let bgls = bind::layouts(device, &layouts);
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("dxso-gpu draw"),
                bind_group_layouts: &bgls.iter().map(Some).collect::<Vec<_>>(),
                immediate_size: 0,
            });
            let module = |tr: &Translation, label| {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(tr.module.clone())),
                })
            };
            let vs_module = module(vs, "dxso-gpu draw vertex");
            let ps_module = module(ps, "dxso-gpu draw pixel");
            let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("dxso-gpu draw"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &vs_module,
                    entry_point: Some(&vsi.entry_point),
                    compilation_options: Default::default(),
                    buffers: &buffers.iter().cloned().map(Some).collect::<Vec<_>>(),
                },
                primitive,
                depth_stencil,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &ps_module,
                    entry_point: Some(&psi.entry_point),
                    compilation_options: Default::default(),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            });
            self.check()?;
            cache.stats.pipelines += 1;
            cache.pipelines.insert(key.clone(), (pipeline, bgls));
        }
        let (pipeline, bgls) = &cache.pipelines[&key];
        let groups = bind::groups(device, bgls, &entries, &[]);
        Ok((pipeline.clone(), groups))
    }
}

/// Whether a draw's points are drawn as quads (larger than a pixel, sized per vertex by a
/// `PSIZE` output, or sprites): WebGPU's points are one pixel.
fn expanded_points(draw: &Draw, psize: bool) -> bool {
    draw.primitive == Primitive::PointList
        && (psize || state::point_size(&draw.states) != 1.0 || state::sprites(&draw.states))
}

/// Check a `POSITIONT` draw's positions: the GPU path maps them to clip space with w = 1/rhw,
/// which only positions the CPU draw rasterizes as they are survive: finite x, y inside
/// ±2^22, a finite z and an rhw whose reciprocal is finite and positive. Others are refused
/// (the CPU draw drops a primitive with such a vertex, or rasterizes it with a negative w).
fn screen_positions(draw: &Draw) -> Result<(), Error> {
    let Some(element) = draw
        .fixed_function
        .as_ref()
        .and_then(|f| f.iter().position(|&s| s == (dxso::ir::Usage::PositionT, 0)))
    else {
        return Ok(());
    };
    let program = draw.vertex.program().ok_or(dxso_vm::VmError::NoShader)?;
    let Some(slot) = program.inputs.iter().position(|p| p.0 as usize == element) else {
        return Ok(());
    };
    let fetched = draw.vertex.fetch(draw.vertex_count, draw.instance_count)?;
    let limit = (1u32 << 22) as f32;
    for v in 0..fetched.vertices {
        let p = &fetched.vertex(v)[slot * 4..slot * 4 + 4];
        let w = 1.0 / p[3];
        let ok = |x: f32| x.is_finite() && x.abs() < limit;
        if !(ok(p[0]) && ok(p[1]) && p[2].is_finite() && w.is_finite() && w > 0.0) {
            return Err(Error::Refused(Refusal::PositionT {
                vertex: v,
                position: [p[0], p[1], p[2], p[3]],
            }));
        }
    }
    Ok(())
}

/// Refuse `SRGBTEXTURE` on a pixel sampler whose texture D3D9 reads as sRGB: the texture
/// upload gives the GPU the stored values, which its filter would take as linear.
fn srgb_textures(ps: &dxso_vm::PixelState) -> Result<(), Error> {
    for n in 0..dxso_vm::PIXEL_SAMPLERS {
        let srgb = ps.sampler_state(n).srgb_texture;
        if srgb && ps.texture(n).is_some_and(|t| t.format.srgb_read()) {
            return Err(Error::Refused(Refusal::SrgbTexture(n)));
        }
    }
    Ok(())
}
