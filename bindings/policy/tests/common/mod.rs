//! Shared by the policy's tests and benchmark: the fixtures, the payloads built from them, the
//! built .wasm, and a waPC host like Kubewarden's.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

/// One fixture folder: `tests/fixtures/<kind>/<name>/`.
pub struct Case {
    /// The folder name; `accept-`/`reject-` (validate) or `valid-`/`invalid-` (settings) first.
    pub name: String,
    pub dir: PathBuf,
    /// The bytes Kubewarden passes to the policy function.
    pub payload: Vec<u8>,
}

impl Case {
    /// The expected answer: `response.json` without its final newline.
    pub fn expected(&self) -> Vec<u8> {
        let path = self.dir.join("response.json");
        let mut bytes =
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (UPDATE_FIXTURES=1 writes it)", path.display()));
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        bytes
    }

    /// Compares an answer with `response.json`; with `UPDATE_FIXTURES=1`, writes it instead
    /// (native runs only: the host test never writes).
    pub fn check(&self, answer: &[u8], may_update: bool) {
        if may_update && std::env::var_os("UPDATE_FIXTURES").is_some() {
            let mut bytes = answer.to_vec();
            bytes.push(b'\n');
            std::fs::write(self.dir.join("response.json"), bytes).unwrap();
            return;
        }
        assert_eq!(
            String::from_utf8_lossy(answer),
            String::from_utf8_lossy(&self.expected()),
            "{}: the answer differs from response.json",
            self.name
        );
    }
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn case_dirs(kind: &str) -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<(String, PathBuf)> = std::fs::read_dir(fixtures_dir().join(kind))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    dirs.sort();
    dirs
}

fn read_trimmed(path: &Path) -> Vec<u8> {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.trim_ascii().to_vec()
}

/// The `validate` cases. The payload is `{"settings": <settings.json>, "request": <request.json>}`
/// put together from the files' bytes, so a request file that is not JSON makes a payload that
/// is not JSON either. `settings.json` is `{}` when absent.
pub fn validate_cases() -> Vec<Case> {
    case_dirs("validate")
        .into_iter()
        .map(|(name, dir)| {
            let settings = dir.join("settings.json");
            let settings = if settings.exists() { read_trimmed(&settings) } else { b"{}".to_vec() };
            let request = read_trimmed(&dir.join("request.json"));
            let mut payload = b"{\"settings\":".to_vec();
            payload.extend_from_slice(&settings);
            payload.extend_from_slice(b",\"request\":");
            payload.extend_from_slice(&request);
            payload.push(b'}');
            Case { name, dir, payload }
        })
        .collect()
}

/// The `validate_settings` cases: the payload is `settings.json` as it is.
pub fn settings_cases() -> Vec<Case> {
    case_dirs("settings")
        .into_iter()
        .map(|(name, dir)| {
            let payload = read_trimmed(&dir.join("settings.json"));
            Case { name, dir, payload }
        })
        .collect()
}

pub fn validate_case(name: &str) -> Case {
    validate_cases().into_iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no fixture {name}"))
}

/// The policy as `make policy` builds it (after wasm-opt), or `ELASTICJOB_POLICY_WASM`.
pub fn wasm_path() -> PathBuf {
    match std::env::var_os("ELASTICJOB_POLICY_WASM") {
        Some(path) => PathBuf::from(path),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/policy/elasticjob_policy.wasm"),
    }
}

/// The built .wasm; a missing file fails the test (it is never skipped).
pub fn wasm_bytes() -> Vec<u8> {
    let path = wasm_path();
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; build the policy first with `make policy` (or run `make test-policy`)", path.display())
    })
}
