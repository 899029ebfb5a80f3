use super::*;

use crate::binary::write;

fn tokens(src: &str) -> Vec<u32> {
    write(&parse(src).unwrap_or_else(|e| panic!("{src}: {e}"))).unwrap()
}

#[test]
fn assembles_relative_forms() {
    assert_eq!(
        tokens("vs_2_0\nmov r0, -c0[a0.w+5].x\n")[1..4],
        [0x03000001, 0x800F0000, 0xA1002005]
    );
    assert_eq!(tokens("vs_1_1\nmov r0, c[ 2 + a0.x + 12 ]")[3], 0xA0E4200E);
    assert_eq!(
        tokens("vs_3_0\nmov r0, c0[aL]")[3..5],
        [0xA0E42000, 0xF0E40800]
    );
}

#[test]
fn collects_every_error_with_its_position() {
    let e = parse("vs_3_0\nfoo r0, r1\nmov r0.xxyz, r1\nmov r0, v17\n").unwrap_err();
    assert_eq!(e.0.len(), 3);
    assert_eq!((e.0[0].line, e.0[0].col), (2, 1));
    assert_eq!((e.0[1].line, e.0[1].col), (3, 8));
    assert!(e.0[2].message.contains("v17"), "{}", e.0[2].message);
    let shown = e.render("x.asm");
    assert!(
        shown.starts_with("x.asm:2:1: error: unknown instruction 'foo'\n    foo r0, r1\n    ^\n"),
        "{shown}"
    );
}

#[test]
fn floats_as_people_write_them() {
    let t = tokens(
        "vs_3_0\ndef c0, 1.0f, 0., -1.5e-05, 3.40282e+38\ndef c1, -0.0, .5, 1e2, 0x7fc00000",
    );
    assert_eq!(
        t[3..7],
        [
            0x3F800000,
            0,
            (-1.5e-05f32).to_bits(),
            3.40282e38f32.to_bits()
        ]
    );
    assert_eq!(
        t[9..13],
        [0x80000000, 0x3F000000, 100f32.to_bits(), 0x7FC00000]
    );
}

#[test]
fn preprocessor_and_line_endings() {
    let t = tokens(
        "#define R r1\r\n#define TWO \\\n 2\nvs_2_0 ; comment\r\nmov r0, R // c\nmov r0, c[TWO]\0garbage",
    );
    assert_eq!(t[3], 0x80E40001);
    assert_eq!(t[6], 0xA0E40002);
}

#[test]
fn block_comments_stand_where_white_space_may() {
    let plain = tokens("vs_2_0\nmov r0, c1\nadd r1, r0, c2\n");
    // Between two instructions, across lines.
    assert_eq!(
        tokens("vs_2_0\nmov r0, c1\n/* one\n   two\n*/\nadd r1, r0, c2\n"),
        plain
    );
    // Inside one line, between operands and around the comma.
    assert_eq!(
        tokens("vs_2_0 /* v */\nmov /*a*/ r0 /*b*/, /*c*/c1/*d*/\nadd r1,r0/**/,c2\n"),
        plain
    );
    // Starting inside an instruction line and ending inside the next one.
    assert_eq!(
        tokens("vs_2_0\nmov r0, c1 /* from here\n to here */ add r1, r0, c2\n"),
        plain
    );
    // `/*` inside a line comment starts nothing; `//` inside a block comment is comment.
    assert_eq!(
        tokens("vs_2_0\nmov r0, c1 // not /* a block\n/* // */ add r1, r0, c2\n"),
        plain
    );
    // A comment in a #define body.
    assert_eq!(
        tokens("#define SRC /* the constant */ c1\nvs_2_0\nmov r0, SRC\nadd r1, r0, c2\n"),
        plain
    );
}

#[test]
fn block_comments_keep_later_positions() {
    // Two lines of comment before the bad register: still line 4, column 9.
    let e = parse("vs_3_0\n/* a\n b */ mov r0, c0\nmov r0, v17 /* x */\n").unwrap_err();
    assert_eq!((e.0[0].line, e.0[0].col), (4, 9), "{e}");
    // A comment earlier on the same line keeps the column of what follows.
    let e = parse("vs_3_0\n/* comment */ mov r0, v17\n").unwrap_err();
    assert_eq!((e.0[0].line, e.0[0].col), (2, 23), "{e}");
}

#[test]
fn an_unterminated_block_comment_is_an_error_at_its_start() {
    let e =
        parse("vs_3_0\nmov r0, c0\n  add r0, r0, c1 /* never closed\nmov r1, c0\n").unwrap_err();
    assert_eq!(e.0.len(), 1, "{e}");
    assert_eq!((e.0[0].line, e.0[0].col), (3, 18));
    assert!(e.0[0].message.contains("unterminated"), "{e}");
    assert_eq!(e.0[0].line_text, "  add r0, r0, c1 /* never closed");
}

#[test]
fn macros_expand_as_in_c_with_bounded_work() {
    // Macros use macros; a name is not expanded inside its own expansion.
    let t = tokens("#define S T\n#define T r2\nvs_2_0\nmov r0, S\n");
    assert_eq!(t[3], 0x80E40002);
    let e = parse("#define R R\nvs_2_0\nmov R, r1\n").unwrap_err();
    assert!(
        e.0[0].message.contains("R") && !e.0[0].message.contains("MAX_"),
        "{e}"
    );
    // Digits glued to letters are one word (`1e2` is a number, not `1` then `e2`).
    let t = tokens("#define e2 junk\nvs_2_0\ndef c0, 1e2, 0, 0, 0\n");
    assert_eq!(t[3], 100f32.to_bits());

    // A chain of MAX_MACRO_DEPTH macros expands; one more is an error at the name.
    let chain = |n: usize| {
        let mut src = "#define m0 r3\n".to_string();
        for k in 1..n {
            src.push_str(&format!("#define m{k} m{}\n", k - 1));
        }
        src + &format!("vs_2_0\nmov r0, m{}\n", n - 1)
    };
    assert_eq!(tokens(&chain(MAX_MACRO_DEPTH))[3], 0x80E40003);
    let e = parse(&chain(MAX_MACRO_DEPTH + 1)).unwrap_err();
    assert_eq!(e.0.len(), 1);
    assert_eq!((e.0[0].line, e.0[0].col), (MAX_MACRO_DEPTH + 3, 9));
    assert!(e.0[0].message.contains("MAX_MACRO_DEPTH"), "{e}");

    // Each level quadruples the text: 12 levels are 4^12 * 3 bytes, past the limit.
    // (This shape of source, 35 bytes of it, once made the assembler allocate gigabytes.)
    let grow = |levels: usize| {
        let mut src = "#define x0 r0 \n".to_string();
        for k in 1..=levels {
            let p = format!("x{} ", k - 1);
            src.push_str(&format!("#define x{k} {}\n", p.repeat(4)));
        }
        src + &format!("vs_2_0\nmov r0, x{levels}\n")
    };
    let e = parse(&grow(12)).unwrap_err();
    assert_eq!(e.0.len(), 1);
    assert_eq!((e.0[0].line, e.0[0].col), (15, 9));
    assert!(e.0[0].message.contains("MAX_MACRO_EXPANSION"), "{e}");
    assert!(
        e.0[0].line_text.len() < 100,
        "the error shows the line as written"
    );
    // Below the limit the expansion happens (and the statement is then wrong).
    let e = parse(&grow(4)).unwrap_err();
    assert!(!e.0[0].message.contains("MAX_MACRO"), "{e}");
}

#[test]
fn errors_past_the_cap_are_counted_in_one() {
    let src = format!("vs_2_0\n{}", "foo\n".repeat(MAX_PARSE_ERRORS + 50));
    let e = parse(&src).unwrap_err();
    assert_eq!(e.0.len(), MAX_PARSE_ERRORS + 1);
    let last = e.0.last().unwrap();
    assert_eq!(
        last.line,
        MAX_PARSE_ERRORS + 1,
        "the line of the last error shown"
    );
    assert_eq!(
        last.message,
        "50 more errors not shown (limit MAX_PARSE_ERRORS = 100)"
    );
    assert!(
        e.render("x")
            .ends_with("x:101:1: error: 50 more errors not shown (limit MAX_PARSE_ERRORS = 100)\n")
    );
    // Continued lines are joined and numbered from their first line.
    let e = parse("vs_2_0\nmov r0, \\\r\n  v99\nfoo\n").unwrap_err();
    assert_eq!((e.0[0].line, e.0[1].line), (2, 4), "{e}");
}
