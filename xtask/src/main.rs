//! Build tooling for coderun, run by the Makefile.
//!
//! `xtask snapshot <in.wasm> <out.wasm>` pre-initialises the guest component
//! with Wizer: it instantiates the component, calls its `initialize` export
//! (which creates the QuickJS runtime and context and evaluates the prelude)
//! and writes a component whose memory starts in that state. Every run then
//! skips QuickJS start-up.

use anyhow::{Context as _, bail};
use wasmtime::component::{Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wizer::Wizer;

struct InitState {
    wasi: WasiCtx,
    table: ResourceTable,
}

impl WasiView for InitState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [cmd, input, output] if cmd == "snapshot" => {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(snapshot(input, output))
        }
        _ => bail!("usage: xtask snapshot <guest.wasm> <snapshot.wasm>"),
    }
}

async fn snapshot(input: &str, output: &str) -> anyhow::Result<()> {
    let wasm = std::fs::read(input).with_context(|| format!("reading the guest {input}"))?;
    let engine = Engine::new(&Config::new())?;
    // Initialisation must not depend on the build machine: no environment,
    // no arguments, no files, and host imports trap if called.
    let mut store = Store::new(
        &engine,
        InitState {
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
        },
    );
    let mut linker = Linker::new(&engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    // The guest must not call the host during initialisation; if it does,
    // the snapshot fails loudly.
    let mut host = linker.instance("coderun:sandbox/host@0.1.0")?;
    for name in ["start-call", "wait-settled", "log"] {
        host.func_new(name, move |_, _, _, _| {
            wasmtime::bail!("the guest called coderun:sandbox/host#{name} during initialisation")
        })?;
    }

    let mut wizer = Wizer::new();
    // A component's init export is wired into its component-level exports,
    // so it has to stay; calling it again is a no-op in the guest.
    wizer.init_func("initialize").keep_init_func(true);
    let (snapshot, _) = wizer
        .run_component(&mut store, &wasm, async |store, component| {
            linker.instantiate_async(store, component).await
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e:?} (root cause: {})", e.root_cause()))
        .context("pre-initialising the guest")?;
    std::fs::write(output, &snapshot).with_context(|| format!("writing {output}"))?;
    eprintln!(
        "snapshot: {input} ({} bytes) -> {output} ({} bytes)",
        wasm.len(),
        snapshot.len()
    );
    Ok(())
}
