//! `fwbench serve`'s banner, as bench reads it: the address the server
//! listens on and, for a JS row, its start-up split (src/serve.rs writes
//! both).

use std::net::SocketAddr;
use std::time::Duration;

/// When a JS row's server had its runtime ready and its app loaded, from
/// the spawn of its process: the server's own times since its `main`
/// (its banner's `started:` note), moved by what came before `main`
/// (exec, the dynamic loader), which is the time between the spawn and the
/// banner's arrival less the server's own time to its banner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadedAt {
    /// The runtime was built, with the Web globals and preloaded modules.
    pub runtime_ready: Duration,
    /// Every worker had loaded and installed the app.
    pub app_loaded: Duration,
}

/// The address in `fwbench serve`'s banner (`… on http://127.0.0.1:PORT/ …`).
pub fn address(banner: &str) -> Option<SocketAddr> {
    let start = banner.find("http://")? + "http://".len();
    banner[start..].split('/').next()?.parse().ok()
}

/// The start-up split in a JS row's banner (`… · started: runtime ready
/// R ms, app loaded A ms, banner B ms`), moved to the spawner's clock: the
/// banner arrived `banner_seen` after the spawn.
pub fn loaded_at(banner: &str, banner_seen: Duration) -> Option<LoadedAt> {
    let note = &banner[banner.rfind("started: ")? + "started: ".len()..];
    let mut runtime_ready = None;
    let mut app_loaded = None;
    let mut at_banner = None;
    for part in note.trim_end().split(", ") {
        let (label, ms) = part.strip_suffix(" ms")?.rsplit_once(' ')?;
        let at = Duration::try_from_secs_f64(ms.parse::<f64>().ok()? / 1e3).ok()?;
        match label {
            "runtime ready" => runtime_ready = Some(at),
            "app loaded" => app_loaded = Some(at),
            "banner" => at_banner = Some(at),
            _ => {}
        }
    }
    let before_main = banner_seen.saturating_sub(at_banner?);
    Some(LoadedAt {
        runtime_ready: before_main + runtime_ready?,
        app_loaded: before_main + app_loaded?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_give_the_address() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [QuickJS]";
        assert_eq!(address(banner), Some("127.0.0.1:4321".parse().unwrap()));
        assert_eq!(address("fwbench: failed to load"), None);
    }

    #[test]
    fn a_js_banner_gives_the_start_up_split_on_the_spawners_clock() {
        let banner = "fwbench serving x (fetch app) on http://127.0.0.1:4321/ with 1 worker [V8] \
                      · started: runtime ready 8.0 ms, app loaded 20.5 ms, banner 21.0 ms\n";
        // The banner came 25 ms after the spawn: 4 ms before `main`.
        let loaded = loaded_at(banner, Duration::from_millis(25)).expect("a split");
        assert_eq!(loaded.runtime_ready, Duration::from_millis(12));
        assert_eq!(loaded.app_loaded, Duration::from_micros(24_500));
        let native = "fwbench serving x (native) on http://127.0.0.1:1/ with 1 worker [native Rust] \
                      · started: banner 1.0 ms";
        assert_eq!(loaded_at(native, Duration::from_millis(3)), None);
        assert_eq!(
            loaded_at("fwbench serving x on http://127.0.0.1:1/", Duration::ZERO),
            None
        );
    }
}
