//! Markdown files with YAML frontmatter: tolerant reading of real wrangler files, and writing that
//! keeps unknown keys, key order and the body's bytes.

use std::path::Path;

use serde_json::{Map, Value as Json};
use serde_yaml::{Mapping, Value as Yaml};

use super::model::{IssueMeta, IssueType, Priority, Status};

/// A parsed file: the frontmatter mapping (in file order) and the body after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub front: Mapping,
    pub body: String,
}

/// Splits and parses `text`. A file without frontmatter is all body; frontmatter that is not a
/// YAML mapping is an error (the caller skips the file and never rewrites it).
pub fn parse(text: &str) -> Result<Document, String> {
    let (yaml, body) = split(text)?;
    let front = match yaml.map(serde_yaml::from_str::<Yaml>).transpose().map_err(|e| e.to_string())? {
        None | Some(Yaml::Null) => Mapping::new(),
        Some(Yaml::Mapping(m)) => m,
        Some(other) => return Err(format!("frontmatter is a {}, not a mapping of keys", kind(&other))),
    };
    Ok(Document { front, body: body.to_string() })
}

/// The frontmatter YAML (if the file has any) and the body after the closing `---` line.
fn split(text: &str) -> Result<(Option<&str>, &str), String> {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return Ok((None, text));
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Ok((Some(&rest[..offset]), &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err("the frontmatter has no closing `---` line".into())
}

fn kind(v: &Yaml) -> &'static str {
    match v {
        Yaml::Sequence(_) => "list",
        Yaml::String(_) => "string",
        _ => "scalar",
    }
}

/// The file text for `doc`: `---`, the YAML, `---`, then the body unchanged.
pub fn render(doc: &Document) -> String {
    let yaml = if doc.front.is_empty() { String::new() } else { serde_yaml::to_string(&doc.front).unwrap_or_default() };
    format!("---\n{yaml}---\n{}", doc.body)
}

/// The ID a file name starts with (`ISS-000042-...` or legacy `000042-...`), if any.
pub fn id_from_file_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let (prefix, rest) = match stem.find(|c: char| c.is_ascii_digit()) {
        Some(i) => stem.split_at(i),
        None => return None,
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let known = prefix.is_empty() || IssueType::ALL.iter().any(|t| t.prefix() == prefix);
    (known && digits.len() == 6).then(|| format!("{prefix}{digits}"))
}

/// The frontmatter keys docket reads; everything else is left in the mapping untouched. Each is
/// a raw YAML value, so no value in a real file can make deserialization fail.
#[derive(Debug, Default, serde::Deserialize)]
struct Front {
    id: Option<Yaml>,
    title: Option<Yaml>,
    #[serde(rename = "type")]
    kind: Option<Yaml>,
    status: Option<Yaml>,
    priority: Option<Yaml>,
    labels: Option<Yaml>,
    assignee: Option<Yaml>,
    project: Option<Yaml>,
    #[serde(rename = "createdAt")]
    created_at: Option<Yaml>,
    #[serde(rename = "updatedAt")]
    updated_at: Option<Yaml>,
    #[serde(rename = "closedAt")]
    closed_at: Option<Yaml>,
    #[serde(rename = "wranglerContext")]
    context: Option<Yaml>,
}

/// The issue described by `doc`, with wrangler's defaults for whatever is missing.
pub fn meta(doc: &Document, path: &Path, folder_type: IssueType, modified: &str) -> IssueMeta {
    let front: Front = serde_yaml::from_value(Yaml::Mapping(doc.front.clone())).unwrap_or_default();
    meta_from(front, path, folder_type, modified, doc.body.chars().count())
}

/// Reads only what the index needs from a whole file: the known keys and the body's length.
/// Faster than [`parse`] + [`meta`] (no mapping, no body copy), which matters for cold starts.
pub fn index_meta(text: &str, path: &Path, folder_type: IssueType, modified: &str) -> Result<IssueMeta, String> {
    let (yaml, body) = split(text)?;
    let front: Front = match yaml {
        None => Front::default(),
        Some(y) if y.trim().is_empty() => Front::default(),
        Some(y) => serde_yaml::from_str(y).map_err(|e| match serde_yaml::from_str::<Yaml>(y) {
            Ok(_) => "frontmatter is not a mapping of keys".to_string(),
            Err(_) => e.to_string(),
        })?,
    };
    Ok(meta_from(front, path, folder_type, modified, body.chars().count()))
}

fn meta_from(f: Front, path: &Path, folder_type: IssueType, modified: &str, body_len: usize) -> IssueMeta {
    let text = |v: &Option<Yaml>| v.as_ref().and_then(scalar_text).filter(|s| !s.is_empty());
    let id = text(&f.id)
        .or_else(|| id_from_file_name(path))
        .unwrap_or_else(|| path.file_stem().and_then(|s| s.to_str()).unwrap_or("unnamed").to_string());
    let labels = match &f.labels {
        Some(Yaml::Sequence(items)) => items.iter().filter_map(scalar_text).collect(),
        Some(v) => scalar_text(v).map(|s| vec![s]).unwrap_or_default(),
        None => Vec::new(),
    };
    let context = match f.context.as_ref().map(serde_json::to_value) {
        Some(Ok(Json::Object(m))) => m,
        _ => Map::new(),
    };
    IssueMeta {
        id,
        title: text(&f.title).unwrap_or_else(|| "Untitled Issue".into()),
        issue_type: text(&f.kind).and_then(|t| t.parse().ok()).unwrap_or(folder_type),
        status: text(&f.status).and_then(|s| s.parse().ok()).unwrap_or(Status::Open),
        priority: text(&f.priority).and_then(|p| p.parse().ok()).unwrap_or(Priority::Medium),
        labels,
        assignee: text(&f.assignee),
        project: text(&f.project),
        created_at: text(&f.created_at).unwrap_or_else(|| modified.to_string()),
        updated_at: text(&f.updated_at).or_else(|| text(&f.created_at)).unwrap_or_else(|| modified.to_string()),
        closed_at: text(&f.closed_at),
        context,
        path: path.to_path_buf(),
        body_len,
    }
}

/// A scalar as text: strings as-is, numbers and booleans printed (an unquoted `id: 000037`).
fn scalar_text(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Number(n) if n.is_u64() => Some(format!("{:06}", n.as_u64().unwrap_or_default())),
        Yaml::Number(n) => Some(n.to_string()),
        Yaml::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Writes `meta`'s fields into `front`, keeping other keys and the existing order; new keys go
/// after the existing ones in wrangler's order; cleared optional fields are removed.
pub fn store_meta(front: &mut Mapping, meta: &IssueMeta) {
    let set = |front: &mut Mapping, key: &str, value: Option<Yaml>| match value {
        Some(v) => {
            front.insert(Yaml::String(key.into()), v);
        }
        None => {
            front.remove(key);
        }
    };
    let s = |v: &str| Some(Yaml::String(v.to_string()));
    let opt = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).and_then(s);
    set(front, "id", s(&meta.id));
    set(front, "title", s(&meta.title));
    set(front, "type", s(meta.issue_type.as_str()));
    set(front, "status", s(meta.status.as_str()));
    set(front, "priority", s(meta.priority.as_str()));
    set(front, "labels", Some(Yaml::Sequence(meta.labels.iter().map(|l| Yaml::String(l.clone())).collect())));
    set(front, "assignee", opt(&meta.assignee));
    set(front, "project", opt(&meta.project));
    set(front, "createdAt", s(&meta.created_at));
    set(front, "updatedAt", s(&meta.updated_at));
    set(front, "closedAt", opt(&meta.closed_at));
    let context = (!meta.context.is_empty()).then(|| serde_yaml::to_value(&meta.context).ok()).flatten();
    set(front, "wranglerContext", context);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn sample_meta(title: &str) -> IssueMeta {
        IssueMeta {
            id: "ISS-000001".into(),
            title: title.into(),
            issue_type: IssueType::Issue,
            status: Status::Open,
            priority: Priority::High,
            labels: vec!["a: b".into(), "🚀".into(), "---".into()],
            assignee: None,
            project: Some("p".into()),
            created_at: "2026-02-17T21:01:15.176Z".into(),
            updated_at: "2026-02-17T21:01:15.176Z".into(),
            closed_at: None,
            context: Map::new(),
            path: PathBuf::from("/w/issues/ISS-000001-x.md"),
            body_len: 0,
        }
    }

    #[test]
    fn yaml_special_titles_and_labels_round_trip_exactly() {
        for title in [
            "Fix: colon",
            "He said \"hi\" and 'bye'",
            "---",
            "line one\nline two",
            "emoji 🚀 ✓",
            "# not a comment",
            "- dash",
            "null",
            "true",
            "012",
        ] {
            let mut front = Mapping::new();
            store_meta(&mut front, &sample_meta(title));
            let text = render(&Document { front, body: "Body\n---\nafter rule\n".into() });
            let doc = parse(&text).unwrap_or_else(|e| panic!("{title:?} broke the file: {e}\n{text}"));
            let back = meta(&doc, Path::new("/w/issues/ISS-000001-x.md"), IssueType::Issue, "");
            assert_eq!(back.title, title);
            assert_eq!(back.labels, vec!["a: b", "🚀", "---"]);
            assert_eq!(doc.body, "Body\n---\nafter rule\n");
        }
    }

    #[test]
    fn unknown_keys_and_key_order_survive_a_rewrite() {
        let text = "---\nid: ISS-000007\ncustom: keep me\ntitle: Old\nstatus: open\n---\nbody";
        let mut doc = parse(text).expect("parses");
        let mut m = meta(&doc, Path::new("/w/ISS-000007-old.md"), IssueType::Issue, "");
        m.title = "New".into();
        store_meta(&mut doc.front, &m);
        let out = render(&doc);
        assert!(out.starts_with("---\nid: ISS-000007\ncustom: keep me\ntitle: New\nstatus: open\n"), "{out}");
        assert!(out.ends_with("---\nbody"));
    }

    #[test]
    fn legacy_quoted_ids_and_missing_fields_get_defaults() {
        let doc = parse("---\nid: \"000037\"\n---\n").expect("parses");
        let m = meta(&doc, Path::new("/w/issues/task-000037.md"), IssueType::Issue, "2026-01-01T00:00:00Z");
        assert_eq!(
            (m.id.as_str(), m.title.as_str(), m.status, m.priority),
            ("000037", "Untitled Issue", Status::Open, Priority::Medium)
        );
        let unquoted = parse("---\nid: 000037\n---\n").expect("parses");
        assert_eq!(meta(&unquoted, Path::new("/w/x.md"), IssueType::Issue, "").id, "000037");
    }

    #[test]
    fn id_comes_from_the_file_name_when_missing() {
        let doc = parse("no frontmatter at all").expect("parses");
        assert_eq!(
            meta(&doc, Path::new("/w/issues/SPEC-000012-plan.md"), IssueType::Specification, "").id,
            "SPEC-000012"
        );
        assert_eq!(id_from_file_name(Path::new("000005-legacy.md")).as_deref(), Some("000005"));
        assert_eq!(id_from_file_name(Path::new("notes.md")), None);
    }

    #[test]
    fn broken_frontmatter_is_an_error_not_a_guess() {
        assert!(parse("---\ntitle: [unclosed\n---\nbody").is_err());
        assert!(parse("---\ntitle: x\nno closing line").is_err());
        assert!(parse("---\n- a list\n---\n").is_err());
    }
}
