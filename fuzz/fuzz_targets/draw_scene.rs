#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| dxso_fuzz::draw_scene(data));
