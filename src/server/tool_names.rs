//! The names of the tools Folio serves ([`ToolName`]): the one list of them. The dispatch
//! (`tools`, which gives every variant its arguments and handler), the errors' repairs and the
//! payloads' hints name tools by it.
//!
//! A leaf: it knows names only, so that the modules `tools` builds on can name a tool without
//! importing `tools`. Must not: know a tool's arguments or run one.

/// Declares the tools' names: one line each, `Variant = "name";`.
macro_rules! names {
    ($($variant:ident = $name:literal;)*) => {
        /// A tool's name: every tool Folio serves, sorted by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum ToolName {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl ToolName {
            /// Every tool, sorted by name (`tools/list` is deterministic).
            pub(crate) const ALL: &'static [ToolName] = &[$(ToolName::$variant),*];

            /// The name clients call it by.
            pub(crate) const fn as_str(self) -> &'static str {
                match self {
                    $(ToolName::$variant => $name,)*
                }
            }

            /// The tool called `name`, if Folio serves one.
            pub(crate) fn from_name(name: &str) -> Option<ToolName> {
                match name {
                    $($name => Some(ToolName::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

names! {
    GetPatternById = "get_pattern_by_id";
    GetSkillDocumentById = "get_skill_document_by_id";
    ListResources = "list_resources";
    ReadResource = "read_resource";
    SearchPatterns = "search_patterns";
}
