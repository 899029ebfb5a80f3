//! A SPIR-V rewrite for the behaviour proofs: glslang writes each HLSL `sampler2D` (and
//! `samplerCUBE`, `sampler3D`) as one `UniformConstant` variable of a combined image-sampler
//! type (`OpTypeSampledImage`), which naga's SPIR-V front end (and WebGPU) refuses. [`split`]
//! turns each such variable into an image variable and a sampler variable and rebuilds the
//! combined value with `OpSampledImage` at each `OpLoad`, so the module keeps its meaning and
//! naga takes it.
//!
//! A variable bound at (set, binding `n`) — glslang gives `register(sN)` binding `n` —
//! becomes the image at (`set`, `2n`) and the sampler at (`set`, `2n + 1`), the numbering
//! dxso-naga's translations use (`dxso_naga::interface::Sampler`), in the set the caller
//! names (glslang puts its `$Global` block at set 0, binding 0, where `s0` would collide).
//!
//! Chosen over a `--for glslang` dialect with separate texture and sampler objects: the
//! decompiled HLSL stays the same text for both compilers (`sampler2D` and `tex2D`, which is
//! what the issue asks the output to be), and the rewrite is a test harness's concern.

use std::collections::BTreeMap;

const OP_NAME: u16 = 5;
const OP_ENTRY_POINT: u16 = 15;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_POINTER: u16 = 32;
const OP_VARIABLE: u16 = 59;
const OP_LOAD: u16 = 61;
const OP_FUNCTION_CALL: u16 = 57;
const OP_ACCESS_CHAIN: u16 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
const OP_COPY_OBJECT: u16 = 83;
const OP_DECORATE: u16 = 71;
const OP_SAMPLED_IMAGE: u16 = 86;
const UNIFORM_CONSTANT: u32 = 0;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

/// Why a module was not rewritten.
#[derive(Debug, PartialEq, Eq)]
pub enum SplitError {
    /// Not a SPIR-V module (no header, a bad magic number, an instruction running past the
    /// end or of zero words).
    Malformed,
    /// A combined image-sampler variable used other than by `OpLoad` (an access chain into an
    /// array of them, a function argument): the variable's id.
    UnsupportedUse(u32),
    /// A combined image-sampler variable without a `Binding` decoration (its id).
    NoBinding(u32),
}

/// One combined image-sampler that was split: its binding in the original (the `s#`
/// register for glslang's HLSL) and the bindings of its image and sampler now.
#[derive(Debug, PartialEq, Eq)]
pub struct Split {
    /// The original binding.
    pub register: u32,
    /// The image's binding (`2 * register`).
    pub texture_binding: u32,
    /// The sampler's binding (`2 * register + 1`).
    pub sampler_binding: u32,
    /// `OpTypeImage`'s `Dim` operand: 1 (2D), 2 (3D) or 3 (Cube).
    pub dim: u32,
}

fn op(inst: &[u32]) -> u16 {
    (inst[0] & 0xffff) as u16
}

fn inst(opcode: u16, operands: &[u32]) -> Vec<u32> {
    let mut v = vec![((operands.len() as u32 + 1) << 16) | opcode as u32];
    v.extend_from_slice(operands);
    v
}

/// An `OpName` for `id`: the string's bytes, NUL-terminated, in little-endian words.
fn name(id: u32, text: &str) -> Vec<u32> {
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    let mut operands = vec![id];
    operands.extend(
        bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
    );
    inst(OP_NAME, &operands)
}

/// The instructions of a module (after its five-word header).
fn instructions(words: &[u32]) -> Result<Vec<Vec<u32>>, SplitError> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(SplitError::Malformed);
    }
    let mut insts: Vec<Vec<u32>> = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            return Err(SplitError::Malformed);
        }
        insts.push(words[at..at + count].to_vec());
        at += count;
    }
    Ok(insts)
}

/// Rewrite `words` (a SPIR-V module) so that every `UniformConstant` variable of a combined
/// image-sampler type is an image and a sampler in descriptor set `set`; the module is
/// returned unchanged (and no [`Split`]) where it has none.
pub fn split(words: &[u32], set: u32) -> Result<(Vec<u32>, Vec<Split>), SplitError> {
    let insts = instructions(words)?;
    let operands_ok = |i: &[u32], n: usize| i.len() > n;
    // Combined types -> their image type; pointers to them; the variables.
    let mut sampled: BTreeMap<u32, u32> = BTreeMap::new();
    let mut sampler_type = None;
    for i in &insts {
        match op(i) {
            OP_TYPE_SAMPLED_IMAGE if operands_ok(i, 2) => {
                sampled.insert(i[1], i[2]);
            }
            OP_TYPE_SAMPLER if operands_ok(i, 1) => sampler_type = Some(i[1]),
            _ => {}
        }
    }
    let mut pointers: BTreeMap<u32, u32> = BTreeMap::new(); // pointer -> combined type
    let mut image_pointers: BTreeMap<u32, u32> = BTreeMap::new(); // image type -> pointer
    let mut sampler_pointer = None;
    for i in insts
        .iter()
        .filter(|i| op(i) == OP_TYPE_POINTER && i.len() == 4)
    {
        if i[2] != UNIFORM_CONSTANT {
            continue;
        }
        if sampled.contains_key(&i[3]) {
            pointers.insert(i[1], i[3]);
        } else if sampled.values().any(|&img| img == i[3]) {
            image_pointers.insert(i[3], i[1]);
        } else if Some(i[3]) == sampler_type {
            sampler_pointer = Some(i[1]);
        }
    }
    // variable -> its combined type
    let vars: BTreeMap<u32, u32> = insts
        .iter()
        .filter(|i| op(i) == OP_VARIABLE && i.len() >= 4 && i[3] == UNIFORM_CONSTANT)
        .filter_map(|i| Some((i[2], *pointers.get(&i[1])?)))
        .collect();
    if vars.is_empty() {
        return Ok((words.to_vec(), Vec::new()));
    }
    // Every use of a variable must be an OpLoad's pointer: a use as a pointer operand of
    // an access chain, a function call's argument or a copy is refused (the operands of
    // other instructions cannot be one of these variables; literals such as `OpExtInst`'s
    // instruction number are not ids and are not looked at).
    for i in &insts {
        let ids: &[u32] = match op(i) {
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if i.len() > 3 => &i[3..4],
            OP_FUNCTION_CALL if i.len() > 4 => &i[4..],
            OP_COPY_OBJECT if i.len() > 3 => &i[3..4],
            _ => &[],
        };
        if let Some(v) = ids.iter().find(|w| vars.contains_key(w)) {
            return Err(SplitError::UnsupportedUse(*v));
        }
    }
    let mut bound = words[3];
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    // New types: the sampler and a pointer to it (after the first combined type), a
    // pointer to each image type (after its combined type: the image type is declared
    // before it, every variable of the combined type after it).
    let mut new_types: BTreeMap<u32, Vec<Vec<u32>>> = BTreeMap::new();
    let first_combined = insts
        .iter()
        .find(|i| op(i) == OP_TYPE_SAMPLED_IMAGE && i.len() > 2)
        .map_or(0, |i| i[1]);
    let sampler_type = sampler_type.unwrap_or_else(|| {
        let id = fresh();
        new_types
            .entry(first_combined)
            .or_default()
            .push(inst(OP_TYPE_SAMPLER, &[id]));
        id
    });
    let sampler_pointer = sampler_pointer.unwrap_or_else(|| {
        let id = fresh();
        new_types
            .entry(first_combined)
            .or_default()
            .push(inst(OP_TYPE_POINTER, &[id, UNIFORM_CONSTANT, sampler_type]));
        id
    });
    for (&combined, &image) in &sampled {
        if let std::collections::btree_map::Entry::Vacant(e) = image_pointers.entry(image) {
            let id = fresh();
            new_types
                .entry(combined)
                .or_default()
                .push(inst(OP_TYPE_POINTER, &[id, UNIFORM_CONSTANT, image]));
            e.insert(id);
        }
    }
    let sampler_vars: BTreeMap<u32, u32> = vars.keys().map(|&v| (v, fresh())).collect();
    let bindings: BTreeMap<u32, u32> = insts
        .iter()
        .filter(|i| op(i) == OP_DECORATE && i.len() == 4 && i[2] == DECORATION_BINDING)
        .filter(|i| vars.contains_key(&i[1]))
        .map(|i| (i[1], i[3]))
        .collect();
    let mut splits = Vec::new();
    for (&v, &combined) in &vars {
        let register = *bindings.get(&v).ok_or(SplitError::NoBinding(v))?;
        let image = sampled[&combined];
        let dim = insts
            .iter()
            .find(|i| op(i) == 25 && i.len() > 3 && i[1] == image)
            .map_or(1, |i| i[3]);
        splits.push(Split {
            register,
            texture_binding: 2 * register,
            sampler_binding: 2 * register + 1,
            dim,
        });
    }

    let plan = Plan {
        set,
        sampled,
        vars,
        sampler_vars,
        image_pointers,
        sampler_type,
        sampler_pointer,
        new_types,
    };
    let out = rewrite(insts, plan, &mut bound)?;
    let mut words_out = words[..5].to_vec();
    words_out[3] = bound;
    words_out.extend(out.into_iter().flatten());
    Ok((words_out, splits))
}

/// The words of a SPIR-V file.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// What [`split`] found and made, for [`rewrite`].
struct Plan {
    set: u32,
    /// Combined type -> its image type.
    sampled: BTreeMap<u32, u32>,
    /// Variable -> its combined type.
    vars: BTreeMap<u32, u32>,
    /// Variable -> its new sampler variable.
    sampler_vars: BTreeMap<u32, u32>,
    /// Image type -> the pointer to it.
    image_pointers: BTreeMap<u32, u32>,
    sampler_type: u32,
    sampler_pointer: u32,
    /// Combined type -> the new types declared after it.
    new_types: BTreeMap<u32, Vec<Vec<u32>>>,
}

/// The instructions with the plan applied: decorations, names, types, variables and loads
/// (`bound`: the module's id bound, raised for the new ids).
fn rewrite(insts: Vec<Vec<u32>>, plan: Plan, bound: &mut u32) -> Result<Vec<Vec<u32>>, SplitError> {
    let Plan {
        set,
        sampled,
        vars,
        sampler_vars,
        image_pointers,
        sampler_type,
        sampler_pointer,
        mut new_types,
    } = plan;
    let mut out: Vec<Vec<u32>> = Vec::new();
    for i in insts {
        match op(&i) {
            OP_ENTRY_POINT => {
                // SPIR-V 1.4 lists every global the entry point uses.
                let mut i = i;
                let extra: Vec<u32> = i[1..]
                    .iter()
                    .filter_map(|w| sampler_vars.get(w).copied())
                    .collect();
                i.extend(extra);
                i[0] = ((i.len() as u32) << 16) | OP_ENTRY_POINT as u32;
                out.push(i);
            }
            OP_NAME if i.len() >= 3 && sampler_vars.contains_key(&i[1]) => {
                let text: Vec<u8> = i[2..].iter().flat_map(|w| w.to_le_bytes()).collect();
                let text = String::from_utf8_lossy(&text)
                    .trim_end_matches('\0')
                    .to_string();
                let sampler = sampler_vars[&i[1]];
                out.push(i);
                out.push(name(sampler, &format!("{text}_sampler")));
            }
            OP_DECORATE if i.len() == 4 && sampler_vars.contains_key(&i[1]) => {
                let v = i[1];
                match i[2] {
                    DECORATION_DESCRIPTOR_SET => {
                        out.push(inst(OP_DECORATE, &[v, DECORATION_DESCRIPTOR_SET, set]));
                        out.push(inst(
                            OP_DECORATE,
                            &[sampler_vars[&v], DECORATION_DESCRIPTOR_SET, set],
                        ));
                    }
                    DECORATION_BINDING => {
                        out.push(inst(OP_DECORATE, &[v, DECORATION_BINDING, 2 * i[3]]));
                        out.push(inst(
                            OP_DECORATE,
                            &[sampler_vars[&v], DECORATION_BINDING, 2 * i[3] + 1],
                        ));
                    }
                    _ => out.push(i),
                }
            }
            OP_TYPE_SAMPLED_IMAGE if i.len() > 2 => {
                let combined = i[1];
                out.push(i);
                out.extend(new_types.remove(&combined).unwrap_or_default());
            }
            OP_VARIABLE if i.len() >= 4 && vars.contains_key(&i[2]) => {
                let v = i[2];
                let image = sampled[&vars[&v]];
                let pointer = image_pointers[&image];
                out.push(inst(OP_VARIABLE, &[pointer, v, UNIFORM_CONSTANT]));
                out.push(inst(
                    OP_VARIABLE,
                    &[sampler_pointer, sampler_vars[&v], UNIFORM_CONSTANT],
                ));
            }
            OP_LOAD if i.len() >= 4 && vars.contains_key(&i[3]) => {
                let (combined, result, v) = (i[1], i[2], i[3]);
                let image = *sampled.get(&combined).ok_or(SplitError::Malformed)?;
                let (img, smp) = (
                    {
                        *bound += 1;
                        *bound - 1
                    },
                    {
                        *bound += 1;
                        *bound - 1
                    },
                );
                out.push(inst(OP_LOAD, &[image, img, v]));
                out.push(inst(OP_LOAD, &[sampler_type, smp, sampler_vars[&v]]));
                out.push(inst(OP_SAMPLED_IMAGE, &[combined, result, img, smp]));
            }
            _ => out.push(i),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A pixel shader with a 2D and a cube sampler, compiled by glslang (`None` without it).
    fn compiled() -> Option<Vec<u32>> {
        if !dxso_testdata::tool("glslangValidator", "glslang-tools") {
            return None;
        }
        let dir = std::env::temp_dir().join(format!("dxso-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let src = dir.join("t.hlsl");
        let spv = dir.join("t.spv");
        std::fs::write(
            &src,
            "float4 k : register(c0);\nsampler2D a : register(s0);\nsamplerCUBE b : register(s3);\n\
             float4 main(float4 t : TEXCOORD0) : SV_Target0\n\
             { return tex2D(a, t.xy) * k + texCUBE(b, t.xyz) + tex2D(a, t.zw); }\n",
        )
        .ok()?;
        let ok = Command::new("glslangValidator")
            .args([
                "-D",
                "--hlsl-dx9-compatible",
                "-e",
                "main",
                "-S",
                "frag",
                "-V",
            ])
            .arg(&src)
            .arg("-o")
            .arg(&spv)
            .output()
            .ok()?
            .status
            .success();
        assert!(ok, "glslang compiles the test shader");
        let w = words(&std::fs::read(&spv).ok()?);
        let _ = std::fs::remove_dir_all(&dir);
        Some(w)
    }

    fn naga(words: &[u32]) -> Result<naga::Module, String> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        naga::front::spv::parse_u8_slice(&bytes, &Default::default()).map_err(|e| e.to_string())
    }

    #[test]
    fn combined_samplers_become_images_and_samplers_naga_takes() {
        let Some(original) = compiled() else { return };
        // Without the rewrite naga's front end refuses glslang's module.
        assert!(
            naga(&original).is_err(),
            "naga took a combined image-sampler"
        );
        let (rewritten, splits) = split(&original, 3).expect("split");
        assert_eq!(
            splits,
            [
                Split {
                    register: 0,
                    texture_binding: 0,
                    sampler_binding: 1,
                    dim: 1
                },
                Split {
                    register: 3,
                    texture_binding: 6,
                    sampler_binding: 7,
                    dim: 3
                },
            ]
        );
        let module = naga(&rewritten).expect("naga takes the split module");
        let mut found: Vec<(u32, u32, &'static str)> = module
            .global_variables
            .iter()
            .filter_map(|(_, g)| {
                let b = g.binding.as_ref()?;
                let kind = match module.types[g.ty].inner {
                    naga::TypeInner::Image {
                        dim: naga::ImageDimension::D2,
                        ..
                    } => "2d",
                    naga::TypeInner::Image {
                        dim: naga::ImageDimension::Cube,
                        ..
                    } => "cube",
                    naga::TypeInner::Sampler { .. } => "sampler",
                    _ => "other",
                };
                Some((b.group, b.binding, kind))
            })
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                (0, 0, "other"),
                (3, 0, "2d"),
                (3, 1, "sampler"),
                (3, 6, "cube"),
                (3, 7, "sampler")
            ]
        );
        // spirv-val takes it too.
        if dxso_testdata::tool("spirv-val", "spirv-tools") {
            let path = std::env::temp_dir().join(format!("dxso-split-{}.spv", std::process::id()));
            let bytes: Vec<u8> = rewritten.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&path, bytes).expect("writable");
            let out = Command::new("spirv-val")
                .arg(&path)
                .output()
                .expect("spirv-val");
            let _ = std::fs::remove_file(&path);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // A module without combined samplers is returned as it is.
        let (again, none) = split(&rewritten, 3).expect("split");
        assert_eq!((again, none), (rewritten, Vec::new()));
    }

    #[test]
    fn malformed_modules_are_errors() {
        assert_eq!(split(&[], 0), Err(SplitError::Malformed));
        assert_eq!(split(&[1, 2, 3, 4, 5], 0), Err(SplitError::Malformed));
        // An instruction of 3 words with 1 left; one of 0 words.
        let header = [0x0723_0203, 0x0001_0000, 0, 10, 0];
        assert_eq!(
            split(&[&header[..], &[3 << 16 | 1]].concat(), 0),
            Err(SplitError::Malformed)
        );
        assert_eq!(
            split(&[&header[..], &[0]].concat(), 0),
            Err(SplitError::Malformed)
        );
        if let Some(m) = compiled() {
            for cut in [6, m.len() / 2, m.len() - 1] {
                // Cut at an arbitrary word: an error or a module, never a panic.
                let _ = split(&m[..cut], 0);
            }
        }
    }
}
