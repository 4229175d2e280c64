//! The control API's methods: one list that the daemon's dispatcher (`control::handle`, which
//! must answer every one: its `match` is exhaustive) and every client call site name, so a
//! method cannot be renamed or dropped on one side only. On the wire a method is its name.

macro_rules! methods {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Method {
            $($(#[$doc])* $variant,)*
        }

        impl Method {
            /// Every method, in the order of the list.
            #[cfg(test)]
            pub const ALL: &[Method] = &[$(Method::$variant,)*];

            /// The method's name on the wire (`plugin.ls`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Method::$variant => $name,)*
                }
            }

            /// The method a wire name names, if any.
            pub fn parse(name: &str) -> Option<Method> {
                match name {
                    $($name => Some(Method::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

methods! {
    DaemonStatus = "daemon.status",
    DaemonStop = "daemon.stop",
    PluginsEnable = "plugins.enable",
    PluginsDisable = "plugins.disable",
    PluginLs = "plugin.ls",
    /// Streams `{"progress": …}` lines before its answer.
    PluginInstall = "plugin.install",
    /// Streams `{"progress": …}` lines before its answer.
    PluginUpdate = "plugin.update",
    PluginEnable = "plugin.enable",
    PluginDisable = "plugin.disable",
    PluginReload = "plugin.reload",
    PluginRemove = "plugin.remove",
    /// With `follow`, streams `{"log": …}` lines until the client goes.
    PluginLogs = "plugin.logs",
    PluginStats = "plugin.stats",
    PluginPermissions = "plugin.permissions",
    /// `id` and the grants (a policy's fields) to add.
    PluginAllow = "plugin.allow",
    /// `id` and the grants to take back.
    PluginDeny = "plugin.deny",
    /// `id`, and `apply` to write the policy the audit saw.
    PluginAudit = "plugin.audit",
    /// `id`, and in `set` the quotas to change (camelCase keys, as in config.json).
    PluginQuotas = "plugin.quotas",
    WorkspaceCreate = "workspace.create",
    WorkspaceLs = "workspace.ls",
    WorkspaceArchive = "workspace.archive",
    ProviderLs = "provider.ls",
    ForgeLs = "forge.ls",
    ForgeCall = "forge.call",
    UsageLs = "usage.ls",
    UsageCall = "usage.call",
    AttachmentSearch = "attachment.search",
    AgentCreate = "agent.create",
    AgentLs = "agent.ls",
    AgentShow = "agent.show",
    AgentSend = "agent.send",
    AgentWait = "agent.wait",
    AgentCancel = "agent.cancel",
    AgentClose = "agent.close",
    AgentArchive = "agent.archive",
    AgentReload = "agent.reload",
    PermissionRespond = "permission.respond",
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Method;

    #[test]
    fn every_method_parses_back_from_its_name_and_names_are_unique() {
        let mut names = std::collections::BTreeSet::new();
        for &m in Method::ALL {
            assert_eq!(Method::parse(m.as_str()), Some(m));
            assert!(names.insert(m.as_str()), "{m} twice");
        }
        assert_eq!(Method::parse("plugin.nope"), None);
    }
}
