//! docket's resource URIs: one type that writes them (links in replies, resource listings) and
//! reads them (resources/read, subscriptions), so their spelling lives in one place.

use std::fmt;

const SCHEME: &str = "docket://";

/// A `docket://` resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceUri<'a> {
    /// `docket://issues/{id}`: the issue's whole file.
    Issue(&'a str),
    /// `docket://issues/{id}/chunk/{range}`, `range` as written (`start-end`, in characters).
    Chunk(&'a str, &'a str),
    /// `docket://issues/{id}/structure`: the body's heading outline.
    Structure(&'a str),
    /// `docket://board`: the issues by status.
    Board,
    /// `docket://config`: the effective settings.
    Config,
    /// `docket://errors/recent`: recurring failures and their fixes.
    ErrorsRecent,
}

impl<'a> ResourceUri<'a> {
    /// Reads `uri`; `None` when it is not one of docket's.
    pub fn parse(uri: &'a str) -> Option<Self> {
        match uri.strip_prefix(SCHEME)? {
            "board" => Some(ResourceUri::Board),
            "config" => Some(ResourceUri::Config),
            "errors/recent" => Some(ResourceUri::ErrorsRecent),
            rest => {
                let rest = rest.strip_prefix("issues/")?;
                match rest.split_once('/') {
                    None if !rest.is_empty() => Some(ResourceUri::Issue(rest)),
                    Some((id, "structure")) => Some(ResourceUri::Structure(id)),
                    Some((id, tail)) => tail.strip_prefix("chunk/").map(|range| ResourceUri::Chunk(id, range)),
                    None => None,
                }
            }
        }
    }

    /// The issue this resource is about, if any.
    pub fn issue(&self) -> Option<&'a str> {
        match *self {
            ResourceUri::Issue(id) | ResourceUri::Chunk(id, _) | ResourceUri::Structure(id) => Some(id),
            ResourceUri::Board | ResourceUri::Config | ResourceUri::ErrorsRecent => None,
        }
    }
}

impl fmt::Display for ResourceUri<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(SCHEME)?;
        match self {
            ResourceUri::Issue(id) => write!(f, "issues/{id}"),
            ResourceUri::Chunk(id, range) => write!(f, "issues/{id}/chunk/{range}"),
            ResourceUri::Structure(id) => write!(f, "issues/{id}/structure"),
            ResourceUri::Board => f.write_str("board"),
            ResourceUri::Config => f.write_str("config"),
            ResourceUri::ErrorsRecent => f.write_str("errors/recent"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_uri_reads_back_as_written() {
        for uri in [
            ResourceUri::Issue("ISS-000001"),
            ResourceUri::Chunk("ISS-000001", "0-25000"),
            ResourceUri::Structure("SPEC-000002"),
            ResourceUri::Board,
            ResourceUri::Config,
            ResourceUri::ErrorsRecent,
        ] {
            assert_eq!(ResourceUri::parse(&uri.to_string()), Some(uri));
        }
        for not_ours in ["docket://issues/", "docket://nope", "file:///etc/passwd", "docket://issues/A/chunk"] {
            assert_eq!(ResourceUri::parse(not_ours), None, "{not_ours}");
        }
    }
}
