//! The sandbox: what app code may reach outside the isolate. Nothing.
//!
//! The host registers no file-system, process or environment ops at all, so
//! those capabilities do not exist in JS. The one capability the Web globals
//! bring, `fetch()` (deno_fetch), checks a `PermissionsContainer` in OpState
//! before it touches the network or a file; we install one that grants
//! nothing and never prompts, so every fetch is refused with a
//! `NotCapable`-class error naming what was attempted.

use std::sync::Arc;

use deno_permissions::{Permissions, PermissionsContainer, RuntimePermissionDescriptorParser};

/// A permissions container that denies everything, without prompting.
pub fn deny_all() -> PermissionsContainer {
    let parser = RuntimePermissionDescriptorParser::new(sys_traits::impls::RealSys);
    PermissionsContainer::new(Arc::new(parser), Permissions::none_without_prompt())
}
