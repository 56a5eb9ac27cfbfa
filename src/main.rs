fn main() {
    let _ = deno_core::JsRuntime::new(deno_core::RuntimeOptions {
        extensions: vec![
            deno_webidl::deno_webidl::init(),
        ],
        ..Default::default()
    });
    println!("fwbench");
}
