//! Golden cases: one folder per case under `tests/golden/`, holding `input.yaml` (the operation
//! and its inputs) and `output.json` (its full result). Any difference fails.
//!
//! Regenerate after an intended change with `UPDATE_GOLDEN=1 cargo test --test golden`, then
//! review the diff.

mod common;

#[test]
fn golden_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut dirs: Vec<_> = std::fs::read_dir(common::golden_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("input.yaml").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 15, "only {} golden cases", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        let input = common::yaml_file(&dir.join("input.yaml"));
        let got = common::run_case(&input);
        let expected_path = dir.join("output.json");
        if update {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            let line = got.lines().zip(expected.lines()).position(|(a, b)| a != b).unwrap_or(0);
            failures.push(format!(
                "{}: output differs from output.json at line {}:\n  got:      {}\n  expected: {}",
                dir.display(),
                line + 1,
                got.lines().nth(line).unwrap_or("<end>"),
                expected.lines().nth(line).unwrap_or("<end>")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden case(s) differ (UPDATE_GOLDEN=1 regenerates):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
