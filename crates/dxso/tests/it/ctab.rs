//! The constant-table reader against the Wine d3dx9 vectors of `../shared/conformance`
//! (`wine-ctab-cases.json`: 26 token arrays with the values Microsoft's d3dx9 gives for them),
//! plus a hand-made table written, read back and resolved by name.

use dxso::ctab::{
    Class, Constant, ConstantDesc, ConstantTable, CtabErrorKind, Member, ParamType, RegisterSet,
    TypeInfo, ctab_data,
};
use dxso::text;
use serde_json::Value;

fn hex(v: &Value) -> u32 {
    let s = v.as_str().expect("hex string");
    u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex")
}

/// Where D3DXFindShaderComment finds the CTAB: the word offset of its data. D3DX reads the
/// table through a pointer, so the data handed on is everything after the FourCC to the end
/// of the array (two cases' comment lengths run past their arrays; see the README there).
fn find_ctab(tokens: &[u32]) -> Option<(usize, &[u32])> {
    if !matches!(tokens.first()? >> 16, 0xFFFE | 0xFFFF) {
        return None;
    }
    let mut i = 1;
    while i < tokens.len() && tokens[i] & 0xFFFF == 0xFFFE {
        let len = (tokens[i] >> 16 & 0x7FFF) as usize;
        if len > 0
            && tokens
                .get(i + 1)
                .is_some_and(|&w| ctab_data(&[w]).is_some())
        {
            return Some((i + 2, &tokens[i + 2..]));
        }
        i += 1 + len;
    }
    None
}

fn set_name(s: RegisterSet) -> &'static str {
    s.name()
}

/// Compare every field the case gives with the resolved description; `top_default` is the
/// DWORD offset of the top-level constant's default value when the case gives it.
fn check_desc(
    table: &ConstantTable,
    data: &[u32],
    want: &Value,
    top: Option<(&Constant, u32)>,
    failures: &mut Vec<String>,
) {
    let path = want["fullname"]
        .as_str()
        .or(want["name"].as_str())
        .expect("name");
    let Some(desc) = table.find(path) else {
        failures.push(format!("{path}: not found"));
        return;
    };
    let mut check = |field: &str, got: String| {
        if let Some(w) = want.get(field) {
            let w = match w {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if w != got {
                failures.push(format!("{path}.{field}: want {w}, got {got}"));
            }
        }
    };
    check("name", desc.name.clone());
    check("register_set", set_name(desc.register_set).into());
    check("register_index", desc.register_index.to_string());
    check("register_count", desc.register_count.to_string());
    check("class", desc.ty.class.name().into());
    check("type", desc.ty.ty.name().into());
    check("rows", desc.ty.rows.to_string());
    check("columns", desc.ty.columns.to_string());
    check("elements", desc.ty.elements.to_string());
    check("struct_members", desc.ty.members.len().to_string());
    check("bytes", desc.ty.bytes().to_string());

    let constant = table
        .constant(path.split(['.', '[']).next().unwrap_or(path))
        .expect("top-level constant of a found path");
    match want.get("default_value") {
        Some(Value::Null) if constant.default_value.is_some() => {
            failures.push(format!("{path}: default value should be NULL"));
        }
        Some(Value::Null) => {}
        Some(_) => {
            let bits: Vec<u32> = want["default_value_bits"]
                .as_array()
                .expect("bits")
                .iter()
                .map(hex)
                .collect();
            let n = desc.ty.bytes() as usize / 4;
            let got = constant.default_value.as_deref().unwrap_or(&[]);
            let got = &got[(desc.default_offset as usize).min(got.len())..];
            if got.get(..n) != bits.get(..n) {
                failures.push(format!(
                    "{path}: default value {:08x?}, want {:08x?}",
                    got.get(..n),
                    bits.get(..n)
                ));
            }
        }
        None => {}
    }
    if let Some(at) = want.get("default_value_offset").and_then(Value::as_u64) {
        let at = at as u32;
        match top {
            None => {
                // The top-level constant: its value lies at that offset of the data.
                let value = constant.default_value.as_deref().unwrap_or(&[]);
                let there = data.get(at as usize..at as usize + value.len());
                if value.is_empty() || there != Some(value) {
                    failures.push(format!("{path}: default value is not the data at {at}"));
                }
            }
            Some((_, top_at)) => {
                if at != top_at + desc.default_offset {
                    failures.push(format!(
                        "{path}: default offset {} + {} != {at}",
                        top_at, desc.default_offset
                    ));
                }
            }
        }
    }
    let top = top.or_else(|| {
        want.get("default_value_offset")
            .and_then(Value::as_u64)
            .map(|at| (constant, at as u32))
    });
    for sub in ["element_descs", "members"] {
        for s in want
            .get(sub)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            check_desc(table, data, s, top, failures);
        }
    }
}

/// `SetDefaults`: each constant's default value copied into its registers, from register 0.
fn set_defaults(table: &ConstantTable, set: RegisterSet) -> Vec<u32> {
    let mut regs = Vec::new();
    for c in table.constants.iter().filter(|c| c.register_set == set) {
        let Some(value) = &c.default_value else {
            continue;
        };
        let at = c.register_index as usize * set.words_per_register();
        if regs.len() < at + value.len() {
            regs.resize(at + value.len(), 0);
        }
        regs[at..at + value.len()].copy_from_slice(value);
    }
    regs
}

#[test]
fn every_wine_case_decodes_to_d3dx9s_values() {
    let Some(dir) = dxso_testdata::shared("conformance") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("wine-ctab-cases.json")).expect("cases");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    assert_eq!(cases.len(), 26);
    let mut failures = Vec::new();
    let mut constants_checked = 0;
    for case in &cases {
        let name = case["name"].as_str().expect("name");
        let tokens: Vec<u32> = case["tokens"]
            .as_array()
            .expect("tokens")
            .iter()
            .map(hex)
            .collect();
        let found = find_ctab(&tokens);
        let result = found.map(|(at, data)| (at, data, ConstantTable::read(data)));
        let expect = case["constant_table"].as_str();
        let (at, data, table) = match (expect, result) {
            (Some("none"), None) => continue,
            (Some("invalid_data"), Some((_, _, Err(_)))) => continue,
            (Some("ok") | None, Some((at, data, Ok(t)))) => (at, data, t),
            (_, r) => {
                failures.push(format!(
                    "{name}: want {expect:?}, got {:?}",
                    r.map(|(_, _, t)| t)
                ));
                continue;
            }
        };
        if let Some(want) = case.get("ctab_data_token_offset").and_then(Value::as_u64)
            && at != want as usize
        {
            failures.push(format!("{name}: CTAB data at word {at}, want {want}"));
        }
        for (field, got) in [
            ("creator", table.creator.clone()),
            ("target", table.target.clone()),
            ("ctab_version", format!("0x{:08x}", table.version)),
            ("constant_count", table.constants.len().to_string()),
        ] {
            let want = case.get(field).map(|v| match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            });
            if want.is_some_and(|w| w != got) {
                failures.push(format!("{name}: {field} {got:?}, want {:?}", case[field]));
            }
        }
        for c in case["constants"].as_array().into_iter().flatten() {
            constants_checked += 1;
            check_desc(&table, data, c, None, &mut failures);
        }
        // GetShaderSamplers: the sampler constants' names in table order.
        if let Some(samplers) = case.get("samplers").and_then(Value::as_array) {
            let got: Vec<&str> = table
                .constants
                .iter()
                .filter(|c| c.register_set == RegisterSet::Sampler)
                .map(|c| c.name.as_str())
                .collect();
            let want: Vec<&str> = samplers.iter().filter_map(|s| s["name"].as_str()).collect();
            if got != want {
                failures.push(format!("{name}: samplers {got:?}, want {want:?}"));
            }
        }
        // GetSamplerIndex: the register of a sampler constant, -1 for anything else.
        if let Some(index) = case.get("sampler_index").and_then(Value::as_object) {
            for (n, want) in index {
                let got = table
                    .constant(n)
                    .filter(|c| c.register_set == RegisterSet::Sampler)
                    .map_or(-1, |c| c.register_index as i64);
                if Some(got) != want.as_i64() {
                    failures.push(format!("{name}: sampler index of {n} {got}, want {want}"));
                }
            }
        }
        check_lookups(name, &table, case, &mut failures);
        check_set_defaults(name, &table, case, &mut failures);
        check_round_trips(name, &table, &mut failures);
    }
    assert!(
        constants_checked >= 100,
        "only {constants_checked} constants checked"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The case's ID3DXConstantTable lookups (GetConstantByName, GetConstantElement,
/// GetConstant) find the constants native d3dx9 found.
fn check_lookups(name: &str, table: &ConstantTable, case: &Value, failures: &mut Vec<String>) {
    for l in case["lookups"].as_array().into_iter().flatten() {
        let parent = l["parent"].as_str();
        let p = parent.map(|p| table.find(p));
        let got: Option<ConstantDesc> = match l["call"].as_str() {
            Some("GetConstantByName") => {
                let arg = l["arg"].as_str().expect("arg");
                match p {
                    None => table.find(arg),
                    Some(p) => p.and_then(|p| p.member(arg)),
                }
            }
            Some("GetConstantElement") => {
                let i = l["index"].as_u64().expect("index") as u32;
                p.flatten().and_then(|p| p.element(i))
            }
            Some("GetConstant") => {
                let i = l["index"].as_u64().expect("index") as usize;
                match p {
                    None => table.constants.get(i).and_then(|c| table.find(&c.name)),
                    Some(p) => p.and_then(|p| {
                        let m = p.ty.members.get(i)?.name.clone();
                        p.member(&m)
                    }),
                }
            }
            other => panic!("unknown call {other:?}"),
        };
        let expect = l["expect"].as_str();
        let ok = match expect {
            None => got.is_none(),
            Some(e) => {
                let other = e.split('"').nth(1).expect("quoted name");
                let same = got.is_some() && got == table.find(other);
                if e.starts_with("same") {
                    same
                } else {
                    got.is_some() && !same
                }
            }
        };
        if !ok {
            failures.push(format!("{name}: lookup {l} gave {got:?}"));
        }
    }
}

/// SetDefaults writes the registers native d3dx9 wrote.
fn check_set_defaults(name: &str, table: &ConstantTable, case: &Value, failures: &mut Vec<String>) {
    if let Some(regs) = case.get("set_defaults_registers") {
        for (set, key) in [
            (RegisterSet::Float4, "float4"),
            (RegisterSet::Int4, "int4"),
            (RegisterSet::Bool, "bool"),
        ] {
            let Some(want) = regs.get(key).and_then(Value::as_array) else {
                continue;
            };
            let want: Vec<u32> = want.iter().map(hex).collect();
            let mut got = set_defaults(table, set);
            // Trailing zeros the C initialiser of the test added lie past the table.
            let padded = regs["zero_padded_by_c_initialiser"][key]
                .as_u64()
                .unwrap_or(0);
            if got.len() < want.len() && want.len() - got.len() <= padded as usize {
                got.resize(want.len(), 0);
            }
            // A BOOL register holds 0 or 1 in the table; native writes TRUE as ~0.
            if set == RegisterSet::Bool {
                got.iter_mut()
                    .for_each(|b| *b = if *b != 0 { !0 } else { 0 });
            }
            if got != want {
                failures.push(format!(
                    "{name}: SetDefaults {key} {got:08x?}, want {want:08x?}"
                ));
            }
        }
    }
}

/// The table survives printing as a header and encoding as words.
fn check_round_trips(name: &str, table: &ConstantTable, failures: &mut Vec<String>) {
    // The header printed from the table reads back to the same constants (names,
    // registers, types; default values print with 6 digits, so they are left out).
    if !table.constants.is_empty() {
        let mut header = String::new();
        dxso::text::print_header(table, &mut header);
        header.push_str("\nvs_3_0\n");
        let key = |t: &ConstantTable| -> Vec<_> {
            t.constants
                .iter()
                .map(|c| {
                    (
                        c.name.clone(),
                        c.register_set,
                        c.register_index,
                        c.register_count,
                        c.ty.clone(),
                    )
                })
                .collect()
        };
        match text::parse_header(&header, dxso::Version::vs(3, 0)) {
            Ok(Some(back)) if key(&back) == key(table) => {}
            other => failures.push(format!("{name}: header reads back as {other:?}\n{header}")),
        }
    }
    // A table read back from its own encoding is the same table.
    let again = ConstantTable::read(&table.to_words());
    if again.as_ref() != Ok(table) {
        failures.push(format!("{name}: to_words -> read gives {again:?}"));
    }
}

fn float4(name: &str, index: u16, count: u16, ty: TypeInfo) -> Constant {
    Constant {
        name: name.into(),
        register_set: RegisterSet::Float4,
        register_index: index,
        register_count: count,
        ty,
        default_value: None,
    }
}

/// The struct of `cLightInfo[4]` in the corpus: five float4 members.
fn light_table() -> ConstantTable {
    let v4 = TypeInfo::new(Class::Vector, ParamType::Float, 1, 4);
    let members = ["color", "dir", "pos", "spotParams", "atten"]
        .map(|n| Member {
            name: n.into(),
            ty: v4.clone(),
        })
        .to_vec();
    let light = TypeInfo {
        class: Class::Struct,
        ty: ParamType::Void,
        rows: 1,
        columns: 20,
        elements: 4,
        members,
    };
    let matrix = TypeInfo::new(Class::MatrixColumns, ParamType::Float, 4, 4);
    let rows = TypeInfo::new(Class::MatrixRows, ParamType::Float, 4, 4);
    ConstantTable {
        creator: "dxso test".into(),
        version: 0xFFFE_0300,
        flags: 0,
        target: "vs_3_0".into(),
        constants: vec![
            float4("cLightInfo", 27, 20, light),
            float4("cViewProj", 8, 4, matrix.clone()),
            float4("worldIT", 4, 3, matrix),
            float4("world", 0, 4, rows),
        ],
    }
}

#[test]
fn paths_resolve_to_registers_and_slots() {
    let t = light_table();
    let again = ConstantTable::read(&t.to_words()).expect("own table reads back");
    assert_eq!(again, t);
    let pos = t.find("cLightInfo[1].pos").expect("member of an element");
    assert_eq!((pos.register_index, pos.register_count), (27 + 5 + 2, 1));
    assert_eq!(pos.name, "pos");
    assert!(
        t.find("cLightInfo.pos").is_none(),
        "a member of an array needs an index"
    );
    assert!(t.find("cLightInfo[4]").is_none());
    assert!(t.find("cLightInfo[1].nope").is_none());
    assert!(t.find("cLightInfo[x]").is_none());

    // MATRIX_COLUMNS: values row by row, register k holds column k.
    let m = t.find("cViewProj").expect("matrix");
    let slots = m.slots();
    assert_eq!(slots.len(), 16);
    let s = slots[1]; // row 0, column 1
    assert_eq!((s.register, s.component), (9, 0));
    let s = slots[4]; // row 1, column 0
    assert_eq!((s.register, s.component), (8, 1));
    // MATRIX_ROWS: register k holds row k.
    let s = t.find("world").expect("rows").slots()[4];
    assert_eq!((s.register, s.component), (1, 0));
    // A matrix given 3 registers keeps the values of its first 3 columns.
    let it = t.find("worldIT").expect("3 columns").slots();
    assert_eq!(it.len(), 12);
    assert!(it.iter().all(|s| (4..7).contains(&s.register)));
    assert_eq!(t.paths().len(), 1 + 4 * 6 + 3);
}

#[test]
fn malformed_tables_name_the_word() {
    let mut words = light_table().to_words();
    assert_eq!(
        ConstantTable::read(&words[..5]).map_err(|e| e.kind),
        Err(CtabErrorKind::TooShort(5))
    );
    words[4] = 0x7FFF_FFF0; // the constant records' offset
    let e = ConstantTable::read(&words).expect_err("records out of bounds");
    assert_eq!(e.offset, 4);
    assert!(matches!(e.kind, CtabErrorKind::OutOfBounds { .. }));
    let mut words = light_table().to_words();
    words[7 + 1] = 9 | 27 << 16; // first constant's register set
    let e = ConstantTable::read(&words).expect_err("bad register set");
    assert_eq!((e.offset, e.kind), (8, CtabErrorKind::RegisterSet(9)));
}

mod fuzz {
    use super::light_table;
    use dxso::ctab::ConstantTable;
    use proptest::prelude::*;

    /// Everything a caller may do with a table that reads: no panic, whatever the words.
    fn exercise(words: &[u32]) {
        if let Ok(t) = ConstantTable::read(words) {
            for p in t.paths().iter().take(64) {
                if let Some(d) = t.find(p) {
                    let _ = d.slots();
                }
            }
            let _ = t.register_names();
            let mut s = String::new();
            dxso::text::print_header(&t, &mut s);
            let _ = t.to_words();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn random_words_never_panic(words in proptest::collection::vec(any::<u32>(), 0..96)) {
            exercise(&words);
        }

        #[test]
        fn mutated_tables_never_panic(
            edits in proptest::collection::vec((any::<usize>(), any::<u32>()), 1..6),
            small in any::<bool>(),
            cut in any::<usize>(),
        ) {
            let mut words = light_table().to_words();
            for (at, v) in edits {
                let n = words.len();
                // Small values hit offsets, counts and enum fields; large ones anything.
                words[at % n] = if small { v % 512 } else { v };
            }
            let keep = words.len() - cut % 8;
            exercise(&words[..keep]);
        }
    }
}

/// A `// Parameters:` header whose struct nests `levels` deep around one float4 member,
/// followed by its register table and a vs_3_0 body.
fn nested_header(levels: usize) -> String {
    let mut s = String::from("//\n// Parameters:\n//\n");
    for _ in 0..levels {
        s.push_str("//   struct\n//   {\n");
    }
    s.push_str("//       float4 v;\n");
    for _ in 0..levels {
        s.push_str("//   } s;\n");
    }
    s.push_str("//\n//\n// Registers:\n//\n//   Name  Reg   Size\n//   ----- ----- ----\n//   s     c0       1\n//\n\nvs_3_0\n");
    s
}

/// Struct nesting in a text header is bounded as in binary tables ([`dxso::ctab::MAX_DEPTH`]):
/// within it the header reads, past it a clean error — never a stack overflow, however deep
/// (20,000 levels overflowed the stack before the bound).
#[test]
fn struct_nesting_in_a_text_header_is_bounded() {
    let depth = |t: &TypeInfo| {
        let (mut d, mut t) = (0, t);
        while let Some(m) = t.members.first() {
            d += 1;
            t = &m.ty;
        }
        d
    };
    let table = text::parse_header(
        &nested_header(dxso::ctab::MAX_DEPTH),
        dxso::Version::vs(3, 0),
    )
    .expect("within the bound")
    .expect("a table");
    assert_eq!(depth(&table.constants[0].ty), dxso::ctab::MAX_DEPTH);
    for levels in [dxso::ctab::MAX_DEPTH + 1, 1_000, 20_000, 100_000] {
        let errors = text::parse_header(&nested_header(levels), dxso::Version::vs(3, 0))
            .expect_err("past the bound");
        let text = errors.to_string();
        assert!(
            text.contains("struct types nest deeper than 32 levels"),
            "{levels} levels: {text}"
        );
    }
}

/// `text::parse_with_header` (`asm --ctab` for the C library and Python): the header's table
/// goes into the shader; a text without a header, or with a CTAB of its own, is left as it is.
#[test]
fn parse_with_header_embeds_the_listed_table() {
    let listing = "//\n// Parameters:\n//\n//   float4x4 WorldViewProj;\n//\n//\n// Registers:\n//\n\
                   //   Name          Reg   Size\n//   ------------- ----- ----\n\
                   //   WorldViewProj c4       4\n//\n\
                   vs_3_0\ndcl_position v0\ndcl_position o0\nm4x4 o0, v0, c4\n";
    let shader = text::parse_with_header(listing).unwrap();
    let table = shader.constant_table().unwrap().expect("a table");
    let c = &table.constants[0];
    assert_eq!(
        (c.name.as_str(), c.register_index, c.register_count),
        ("WorldViewProj", 4, 4)
    );
    // Without a header: the plain assembly, no table.
    let bare = "vs_3_0\ndcl_position v0\ndcl_position o0\nm4x4 o0, v0, c4\n";
    assert_eq!(
        text::parse_with_header(bare).unwrap(),
        text::parse(bare).unwrap()
    );
    // A header that does not parse is an error at its line.
    let broken = listing.replace("c4       4", "c4       x");
    assert!(text::parse_with_header(&broken).is_err());
}
