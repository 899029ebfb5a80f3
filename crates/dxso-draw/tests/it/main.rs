//! dxso-draw's integration tests: whole draws with hand-computed pixels.

mod fixed_function;
mod merger;
mod pixel;
mod property;
mod support;
mod tiers;
