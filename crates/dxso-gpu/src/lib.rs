//! Translated Direct3D 9 vertex shaders run on a GPU through wgpu (work in progress).
