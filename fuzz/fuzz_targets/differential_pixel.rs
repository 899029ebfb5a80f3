#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| dxso_fuzz::differential_pixel(data));
