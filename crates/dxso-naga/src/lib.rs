//! Direct3D 9 shaders translated for GPUs through naga (work in progress).
