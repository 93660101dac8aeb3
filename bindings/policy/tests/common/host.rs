//! A waPC host for the built policy: wasmtime through `wasmtime-provider` and `wapc`, as
//! Kubewarden's policy-server runs policies. The engine and the compiled module are shared; every
//! instance is new.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};

use wapc::WapcHost;
use wasmtime_provider::wasmtime::{Engine, Module};
use wasmtime_provider::{WasmtimeEngineProviderBuilder, WasmtimeEngineProviderPre};

/// How often the guest called the host (`__host_call`), over the process.
pub static HOST_CALLS: AtomicUsize = AtomicUsize::new(0);

type HostResult = Result<Vec<u8>, Box<dyn std::error::Error + Send + Sync>>;

/// Answers `kubewarden/tracing/log` with Ok (an error would make the SDK's log drain panic) and
/// refuses every other host capability, as a policy-server without context-aware settings does.
fn host_callback(_id: u64, binding: &str, namespace: &str, operation: &str, _payload: &[u8]) -> HostResult {
    HOST_CALLS.fetch_add(1, Ordering::SeqCst);
    match (binding, namespace, operation) {
        ("kubewarden", "tracing", "log") => Ok(Vec::new()),
        _ => Err(format!("host capability {binding}/{namespace}/{operation} is not offered").into()),
    }
}

/// Compiles the module once.
pub fn compile(bytes: &[u8]) -> (Engine, Module) {
    let engine = Engine::default();
    let module = Module::new(&engine, bytes).unwrap();
    (engine, module)
}

/// Links the module with waPC and WASI once; [`instance`] makes instances from it.
pub fn pre(engine: &Engine, module: &Module) -> WasmtimeEngineProviderPre {
    WasmtimeEngineProviderBuilder::new().engine(engine.clone()).module(module.clone()).build_pre().unwrap()
}

/// A new instance, after `wapc_init`.
pub fn instance(pre: &WasmtimeEngineProviderPre) -> WapcHost {
    let provider = pre.rehydrate(None).unwrap();
    WapcHost::new(Box::new(provider), Some(Box::new(host_callback))).unwrap()
}

/// Calls a policy function; a waPC error or a trap fails the test.
pub fn call(host: &WapcHost, function: &str, payload: &[u8]) -> Vec<u8> {
    host.call(function, payload).unwrap_or_else(|e| panic!("{function} failed in the host: {e}"))
}
