//! The README and the pages of `docs/`: every relative link resolves, every page is reachable
//! from the README, the README stays short and opens with the two commands, its examples print
//! what they show, and the commands it names exist.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most lines the README may have (the rest belongs in `docs/`).
const MAX_README_LINES: usize = 250;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn readme() -> String {
    read(&root().join("README.md"))
}

/// `path` as the repository names it.
fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The markdown pages of `docs/`, sorted.
fn doc_pages() -> Vec<PathBuf> {
    let dir = root().join("docs");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages
}

/// A fenced code block: the info string after the opening fence, and its lines.
struct Block {
    info: String,
    lines: Vec<String>,
}

/// The fenced code blocks of a markdown text, and the text outside them.
fn split_fences(text: &str) -> (Vec<Block>, String) {
    let mut blocks = Vec::new();
    let mut prose = String::new();
    let mut open: Option<Block> = None;
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match open.take() {
            Some(block) if fence => blocks.push(block),
            Some(mut block) => {
                block.lines.push(line.to_string());
                open = Some(block);
            }
            None if fence => {
                let info = line.trim_start().trim_start_matches('`').trim().to_string();
                open = Some(Block {
                    info,
                    lines: Vec::new(),
                });
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    (blocks, prose)
}

/// `text` without its code spans (a run of backticks up to the next run of the same length),
/// so that `c[a0.x](...)`-like code is not read as a link.
fn without_code_spans(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let run = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let after = &rest[start + run..];
        let ticks = "`".repeat(run);
        // The span ends at the next run of exactly `run` backticks; without one the backticks
        // are text.
        let mut end = None;
        let mut from = 0;
        while let Some(i) = after[from..].find(&ticks) {
            let at = from + i;
            let len = after[at..].len() - after[at..].trim_start_matches('`').len();
            if len == run {
                end = Some(at);
                break;
            }
            from = at + len;
        }
        match end {
            Some(at) => rest = &after[at + run..],
            None => {
                out.push_str(&ticks);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links and images (`[text](target)`, `![alt](target)`) of a
/// markdown text, outside code blocks and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let (_, prose) = split_fences(text);
    let prose = without_code_spans(&prose);
    let mut targets = Vec::new();
    let mut rest = prose.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find([')', ' ', '\n']).unwrap_or(after.len());
        targets.push(after[..end].to_string());
        rest = &after[end..];
    }
    targets
}

/// The file or directory a relative link of the page `page` names, or `None` for a link that
/// leaves the repository's files (a URL, a mail address) or stays on the page (`#anchor`).
fn link_path(page: &Path, target: &str) -> Option<PathBuf> {
    let external = ["http://", "https://", "mailto:"];
    if target.starts_with('#') || external.iter().any(|scheme| target.starts_with(scheme)) {
        return None;
    }
    let file = target.split('#').next().unwrap_or(target);
    Some(page.parent().expect("a page is in a directory").join(file))
}

#[test]
fn links_resolve_and_every_page_is_reachable() {
    let readme_path = root().join("README.md");
    let index_path = root().join("docs/README.md");
    let mut pages = vec![readme_path.clone()];
    pages.extend(doc_pages());
    let mut broken = Vec::new();
    let mut reachable = BTreeSet::new();
    for page in &pages {
        for target in link_targets(&read(page)) {
            let Some(path) = link_path(page, &target) else {
                continue;
            };
            match path.canonicalize() {
                Ok(path) if page == &readme_path || page == &index_path => {
                    reachable.insert(path);
                }
                Ok(_) => {}
                Err(_) => broken.push(format!("{}: ({target})", shown(page))),
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );

    let index = index_path.canonicalize().expect("docs/README.md exists");
    assert!(
        reachable.contains(&index),
        "README.md does not link docs/README.md"
    );
    let unreachable: Vec<String> = doc_pages()
        .into_iter()
        .filter(|page| !reachable.contains(&page.canonicalize().expect("a page")))
        .map(|page| shown(&page))
        .collect();
    assert!(
        unreachable.is_empty(),
        "pages neither README.md nor docs/README.md links:\n{}",
        unreachable.join("\n")
    );
}

#[test]
fn readme_is_short_and_opens_with_the_two_commands() {
    let text = readme();
    let lines = text.lines().count();
    assert!(
        lines <= MAX_README_LINES,
        "README.md has {lines} lines (at most {MAX_README_LINES}): move reference material to docs/"
    );
    let (blocks, _) = split_fences(&text);
    let first = blocks.first().expect("README.md has a code block");
    assert!(
        first
            .lines
            .iter()
            .any(|line| line.contains("cargo run --release -- demo")),
        "the README's first code block does not run the demo: {:?}",
        first.lines
    );
    assert!(
        first
            .lines
            .iter()
            .any(|line| line.trim_start().starts_with("cargo test")),
        "the README's first code block does not run the tests: {:?}",
        first.lines
    );
}

#[test]
fn the_rust_example_is_in_docs_library_md() {
    // rustdoc runs docs/library.md's Rust blocks as doctests (dxso-vm's `LibraryDoctests`);
    // a Rust block in the README would be compiled by nothing.
    let (readme_blocks, _) = split_fences(&readme());
    assert!(
        readme_blocks
            .iter()
            .all(|b| !b.info.is_empty() && !b.info.starts_with("rust")),
        "every README code block names a language other than Rust (rustdoc does not read it)"
    );
    let (library_blocks, _) = split_fences(&read(&root().join("docs/library.md")));
    assert!(library_blocks.iter().any(|b| b.info == "rust"));
}

/// `line` without trailing white space; `lines` without trailing empty lines.
fn normalise<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = lines
        .into_iter()
        .map(|l| l.trim_end().to_string())
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Runs `command` with `sh -c` from the repository root, with the `dxso` under test first on
/// the PATH, and returns its stdout (its exit status and stderr in `context`).
fn run_shell(command: &str) -> (String, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_dxso"));
    let dir = bin.parent().expect("the binary is in a directory");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root())
        .env("PATH", std::env::join_paths(dirs).expect("a PATH"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("sh -c {command:?}: {e}"));
    let context = format!(
        "exit status {}; stderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), context)
}

/// Whether a block's first line is a `dxso` command to run: `$ dxso ...`, or
/// `$ printf '...' | dxso ...` for an input on stdin.
fn command_of(block: &Block) -> Option<&str> {
    let command = block.lines.first()?.strip_prefix("$ ")?;
    let runs_dxso = command.starts_with("dxso ")
        || (command.starts_with("printf '") && command.contains("' | dxso "));
    runs_dxso.then_some(command)
}

#[test]
fn readme_examples_print_what_they_show() {
    let (blocks, _) = split_fences(&readme());
    let mut ran = 0;
    let mut failures = Vec::new();
    for block in blocks.iter().filter(|b| b.info == "text") {
        let Some(command) = command_of(block) else {
            continue;
        };
        let expected = normalise(block.lines[1..].iter().map(String::as_str));
        assert!(
            !expected.iter().any(|line| line.starts_with("$ ")),
            "one command per example: {command}"
        );
        let (stdout, context) = run_shell(command);
        let actual = normalise(stdout.lines());
        if actual != expected {
            failures.push(format!(
                "$ {command}\n--- the README shows:\n{}\n--- it prints:\n{}\n--- {context}",
                expected.join("\n"),
                actual.join("\n")
            ));
        }
        ran += 1;
    }
    assert!(ran > 0, "the README has no `$ dxso` example to run");
    assert!(
        failures.is_empty(),
        "README examples that print something else:\n\n{}",
        failures.join("\n\n")
    );
}

/// The subcommands a shell line runs: the word after `dxso`, or after `--` in `cargo run`.
fn subcommands(line: &str) -> Vec<String> {
    let line = line.split(" #").next().unwrap_or(line);
    let words: Vec<&str> = line.split_whitespace().collect();
    let cargo_run = words.starts_with(&["cargo", "run"]);
    words
        .windows(2)
        .filter(|pair| pair[0] == "dxso" || (cargo_run && pair[0] == "--"))
        .map(|pair| pair[1])
        .filter(|word| !word.starts_with('-'))
        .map(str::to_string)
        .collect()
}

#[test]
fn readme_commands_exist() {
    let (blocks, _) = split_fences(&readme());
    let named: BTreeSet<String> = blocks
        .iter()
        .filter(|b| b.info == "sh")
        .flat_map(|b| b.lines.iter().flat_map(|line| subcommands(line)))
        .collect();
    assert!(
        !named.is_empty(),
        "the README's sh blocks name no dxso command"
    );
    for sub in named {
        let out = Command::new(env!("CARGO_BIN_EXE_dxso"))
            .args([sub.as_str(), "--help"])
            .output()
            .expect("dxso runs");
        assert!(
            out.status.success(),
            "the README runs `dxso {sub}`, but `dxso {sub} --help` fails: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_parsers_see_what_markdown_shows() {
    let text = "See [a](x.md) and ![b](img/c.png \"t\") but not `[c](y.md)`,\n\
                ```sh\n[d](z.md)\n```\n[e](#anchor) [f](https://example.com) [g](dir/#h)\n";
    assert_eq!(
        link_targets(text),
        [
            "x.md",
            "img/c.png",
            "#anchor",
            "https://example.com",
            "dir/#h"
        ]
    );
    let page = Path::new("/r/docs/p.md");
    assert_eq!(link_path(page, "#anchor"), None);
    assert_eq!(
        link_path(page, "../README.md#x"),
        Some(PathBuf::from("/r/docs/../README.md"))
    );
    assert_eq!(
        subcommands("dxso asm x.asm | dxso dis -   # dxso nothing"),
        ["asm", "dis"]
    );
    assert_eq!(subcommands("cargo run --release -- demo"), ["demo"]);
    assert_eq!(
        subcommands("cargo install --path crates/dxso-cli"),
        Vec::<String>::new()
    );
}
