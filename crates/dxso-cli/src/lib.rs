//! The parts of the `dxso` command line that turn files from strangers into device state:
//! shader input (text, binary or hex tokens), and — from `dxso_draw::scene`, where the scene
//! format is read once for every face — scenes, textures (DDS, PNG) and meshes (OBJ, glTF).
//! They form a library so the fuzz targets (`fuzz/`) can call them; the `dxso` binary uses
//! them from here.

pub mod input;

pub use dxso_draw::scene;
pub use dxso_draw::scene::{mesh, textures};
