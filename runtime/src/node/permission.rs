//! The checks the `node:` ops make where they start, against the bound plugin's permissions
//! (`crate::permissions`, from the owner's config): nothing for a plugin without a policy; for
//! one with a policy, an access it was not granted fails as Node's permission model fails it
//! (`ERR_ACCESS_DENIED`, with `permission` and `resource`), and one line in the plugin's log
//! says what was denied and the command that would grant it. `process.permission.has` answers
//! from the same policy (`op_permission_has`).

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use deno_core::{op2, OpState};
use deno_error::{JsErrorBox, JsErrorClass};

use crate::engine::PluginShared;
use crate::logs::Stream;
use crate::permissions::{Denied, Kind, Permissions};

/// Node's error for an access its permission model refuses.
#[derive(Debug, thiserror::Error)]
#[error("Access to this API has been restricted")]
pub(crate) struct AccessDenied(Denied);

impl JsErrorClass for AccessDenied {
    fn get_class(&self) -> std::borrow::Cow<'static, str> {
        "Error".into()
    }

    fn get_message(&self) -> std::borrow::Cow<'static, str> {
        self.to_string().into()
    }

    fn get_additional_properties(&self) -> deno_error::AdditionalProperties {
        use deno_error::PropertyValue;
        Box::new(
            [
                (
                    "code".into(),
                    PropertyValue::String("ERR_ACCESS_DENIED".into()),
                ),
                (
                    "permission".into(),
                    PropertyValue::String(self.0.kind.node_name().into()),
                ),
                (
                    "resource".into(),
                    PropertyValue::String(self.0.resource.clone().into()),
                ),
            ]
            .into_iter(),
        )
    }

    fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        self
    }
}

/// The bound plugin and its permissions, if it has a policy: borrowed, as every op that reaches
/// outside the isolate asks.
fn permissions(state: &OpState) -> Option<(&PluginShared, &Permissions)> {
    let shared = state.try_borrow::<Arc<PluginShared>>()?;
    Some((shared, shared.permissions.as_deref()?))
}

/// Runs `check` against the plugin's permissions (none: allowed); a denial is logged under the
/// plugin and returned as Node's error.
pub(crate) fn check(
    state: &OpState,
    check: impl FnOnce(&Permissions) -> Result<(), Denied>,
) -> Result<(), JsErrorBox> {
    let Some((shared, permissions)) = permissions(state) else {
        return Ok(());
    };
    check(permissions).map_err(|denied| {
        shared.logs.write(
            Stream::Stderr,
            &format!(
                "[paseo] Permission denied: {} {}; to allow it: {}",
                denied.kind.node_name(),
                denied.resource,
                denied.grant_command(&shared.id)
            ),
        );
        JsErrorBox::from_err(AccessDenied(denied))
    })
}

/// `check` for async ops, which hold the state in a cell.
pub(crate) fn check_rc(
    state: &Rc<RefCell<OpState>>,
    f: impl FnOnce(&Permissions) -> Result<(), Denied>,
) -> Result<(), JsErrorBox> {
    check(&state.borrow(), f)
}

/// May the plugin read `path`?
pub(crate) fn read(state: &OpState, path: &str) -> Result<(), JsErrorBox> {
    check(state, |p| p.check_path(Kind::Read, Path::new(path)))
}

/// May the plugin write, create or remove `path`?
pub(crate) fn write(state: &OpState, path: &str) -> Result<(), JsErrorBox> {
    check(state, |p| p.check_path(Kind::Write, Path::new(path)))
}

/// May the plugin connect to or listen on `host` (at `port`)?
pub(crate) fn net(state: &OpState, host: &str, port: Option<u16>) -> Result<(), JsErrorBox> {
    check(state, |p| p.check_net(host, port))
}

/// May the plugin read host information (`what`: the function asked)?
pub(crate) fn sys(state: &OpState, what: &str) -> Result<(), JsErrorBox> {
    check(state, |p| p.check_sys(what))
}

/// Whether the plugin sees environment variable `name` (every one without a policy).
pub(crate) fn env_visible(state: &OpState, name: &str) -> bool {
    permissions(state).is_none_or(|(_, p)| p.env_visible(name))
}

/// Whether the plugin runs in audit mode: process.js then records each environment variable
/// it reads (`op_permission_note_env`).
#[op2(fast)]
pub fn op_permission_auditing(state: &mut OpState) -> bool {
    permissions(state).is_some_and(|(_, p)| p.auditing())
}

/// Records, in audit mode, that the plugin read environment variable `name`.
#[op2(fast)]
pub fn op_permission_note_env(state: &mut OpState, #[string] name: &str) {
    if let Some((_, p)) = permissions(state) {
        p.note_env(name);
    }
}

/// `process.permission.has(scope, reference)`; `null` when the plugin has no policy (Node then
/// has no `process.permission`).
#[op2]
pub fn op_permission_has(
    state: &mut OpState,
    #[string] scope: &str,
    #[string] reference: Option<String>,
) -> Option<bool> {
    let (_, permissions) = permissions(state)?;
    Some(permissions.has(scope, reference.as_deref()))
}
