//! The core's modules import in one direction only: each from layers below its own, as the layer
//! table in the crate docs (`src/lib.rs`) says. This test reads that table and every file under
//! `src/`, and fails on an import that points up or sideways, on a module the table does not
//! place, and on a file longer than the bound (tests and generated tables excluded). The copy of
//! the table in `docs/design.md` must place every module where the crate docs do.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The most lines a core file may have before its `#[cfg(test)]` module.
const MAX_LINES: usize = 700;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Module name to layer, from the rows `//! | 3 | [`pod`], [`tfconfig`] | ... |` of `src/lib.rs`.
fn layer_table() -> BTreeMap<String, u32> {
    let lib = fs::read_to_string(src().join("lib.rs")).expect("src/lib.rs");
    let table = rows(&lib, "//! | ");
    assert!(table.len() > 10, "the layer table of src/lib.rs was not found");
    table
}

/// Module name to layer, from the table rows starting with `prefix` (a layer number, then the
/// modules in backticks, links or not).
fn rows(text: &str, prefix: &str) -> BTreeMap<String, u32> {
    let mut table = BTreeMap::new();
    for line in text.lines() {
        let Some(row) = line.strip_prefix(prefix) else { continue };
        let mut cells = row.split(" | ");
        let (Some(layer), Some(modules)) = (cells.next(), cells.next()) else { continue };
        let Ok(layer) = layer.trim().parse::<u32>() else { continue };
        for name in modules.split('`').skip(1).step_by(2) {
            let name = name.trim_start_matches("mod@");
            assert!(table.insert(name.to_owned(), layer).is_none(), "`{name}` is in the layer table twice");
        }
    }
    table
}

/// Every `.rs` file under `src/` but the crate root, with the top-level module it belongs to.
fn files(dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir).expect("src/").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") && path != src().join("lib.rs") {
            let relative = path.strip_prefix(src()).expect("under src/");
            let first = relative.components().next().expect("a component").as_os_str().to_string_lossy();
            out.push((first.trim_end_matches(".rs").to_owned(), path));
        }
    }
}

/// The top-level modules a line of code names after `crate::`: `crate::pod::name` gives `pod`,
/// `use crate::{job, naming::X}` gives `job` and `naming`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `elasticjob_crate::` and the like
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push(head(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            if !item.trim().is_empty() {
                found.push(head(&item));
            }
        } else {
            found.push(head(rest));
        }
    }
    found
}

fn head(path: &str) -> String {
    path.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

#[test]
fn imports_point_down_the_layers() {
    let table = layer_table();
    let mut sources = Vec::new();
    files(&src(), &mut sources);
    let mut problems = Vec::new();
    for (module, _) in &sources {
        if !table.contains_key(module) {
            problems.push(format!("module `{module}` has no layer in the table of src/lib.rs"));
        }
    }
    for module in table.keys() {
        if !sources.iter().any(|(m, _)| m == module) {
            problems.push(format!("the layer table names `{module}`, which has no file under src/"));
        }
    }
    for (module, path) in &sources {
        let Some(&layer) = table.get(module) else { continue };
        let text = fs::read_to_string(path).expect("source file");
        // A statement may span lines (`use crate::{\n a,\n b};`): read code with comments removed.
        let code: String =
            text.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
        for target in crate_paths(&code) {
            let shown = path.strip_prefix(src()).unwrap_or(path).display();
            match table.get(&target) {
                _ if target == *module => {}
                Some(&t) if t < layer => {}
                Some(&t) => problems.push(format!(
                    "src/{shown} (`{module}`, layer {layer}) imports `{target}` (layer {t}): move the helper down, or the importer up"
                )),
                None => problems.push(format!(
                    "src/{shown} names `crate::{target}`, which is not a module of the table: import it from the module that defines it"
                )),
            }
        }
        // A generated table (`//! ... Do not edit.` in its header) is data, not code to split.
        let generated = text.lines().take(8).any(|l| l.starts_with("//!") && l.contains("Do not edit."));
        let lines = text.lines().take_while(|l| !l.starts_with("#[cfg(test)]")).count();
        if lines > MAX_LINES && !generated {
            problems.push(format!(
                "src/{} has {lines} lines before its tests, more than {MAX_LINES}: split it by concern",
                path.strip_prefix(src()).unwrap_or(path).display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_design_page_has_the_same_layers() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/design.md");
    let design = rows(&fs::read_to_string(&page).expect("docs/design.md"), "| ");
    assert_eq!(design, layer_table(), "docs/design.md's layer table differs from src/lib.rs's: copy it over");
}

#[test]
fn the_checker_sees_every_form_of_import() {
    assert_eq!(crate_paths("use crate::pod;"), ["pod"]);
    assert_eq!(crate_paths("use crate::{job, naming::{A, B}, pod};"), ["job", "naming", "pod"]);
    assert_eq!(crate_paths("let x = crate::error::Code::Syntax;"), ["error"]);
    assert_eq!(crate_paths("use crate::{\n    api::X,\n    plan,\n};"), ["api", "plan"]);
    assert!(crate_paths("use my_crate::x;").is_empty());
}
