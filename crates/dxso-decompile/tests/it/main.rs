//! dxso-decompile's integration tests, one binary: the lifting rules against hand-written
//! HLSL, snapshots of corpus shaders, the compile-back proof (glslang + spirv-val) and the
//! behaviour proofs (the compiled-back vertex and pixel shaders on a Vulkan adapter against
//! dxso-vm), with the SPIR-V rewrite they need (`spirv_split`).

mod behaviour;
mod compile_back;
mod lifting;
mod pixel_behaviour;
mod snapshots;
mod spirv_split;
mod table_lifting;
