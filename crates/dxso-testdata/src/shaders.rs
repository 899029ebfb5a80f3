//! Shaders made to size for the suites that measure how work grows with the input.

/// A valid vs_3_0 of `n` arithmetic instructions, half of them reading `c#[a0.x]`.
pub fn relative_shader(n: usize) -> String {
    let mut s = String::from(
        "vs_3_0\ndcl_position v0\ndcl_texcoord v1\ndcl_position o0\ndcl_texcoord o1\n\
         mova a0.x, v1.x\nmov r0, v0\nmov r1, v1\n",
    );
    for k in 0..n.saturating_sub(5) {
        let line = match k % 4 {
            0 => format!("add r0, r0, c{}[a0.x]\n", k % 200),
            1 => format!("mad r1, r0, c{}[a0.x], r1\n", k * 7 % 200),
            2 => format!("mul r0, r1, c{}\n", k * 3 % 250),
            _ => "max r1, r1, r0\n".to_string(),
        };
        s.push_str(&line);
    }
    s.push_str("mov o0, r0\nmov o1, r1\n");
    s
}

/// A valid vs_3_0 whose main program calls `l1` `calls` times and each of `l1` .. `l3`
/// calls the next `calls` times: `calls`^4 bodies of `l4` once inlined.
pub fn nested_calls(calls: usize) -> String {
    let mut s = String::from("vs_3_0\ndcl_position v0\ndcl_position o0\nmov r0, v0\n");
    s.push_str(&"call l1\n".repeat(calls));
    s.push_str("mov o0, r0\nret\n");
    for d in 1..=4 {
        s.push_str(&format!("label l{d}\n"));
        if d < 4 {
            s.push_str(&format!("call l{}\n", d + 1).repeat(calls));
        } else {
            s.push_str("add r0, r0, c0\n");
        }
        s.push_str("ret\n");
    }
    s
}
