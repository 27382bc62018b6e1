//! Settings: built-in defaults (the manifest's limits), then `config/docket.yaml` inside the
//! workspace directory, then `DOCKET_*` environment variables, then `--set KEY=VALUE` flags.
//! One table of keys drives parsing, validation messages and the `docket://config` resource.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::error_memory;
use crate::generated::limits;
use crate::store::{StoreOptions, Worktrees};
use crate::tokens::Counter;

/// Which tool surface the server publishes (`docket serve --tool-style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ToolStyle {
    /// One tool per operation, as declared in tools.yaml (`issues_list`, `session_start`, ...).
    #[default]
    Granular,
    /// One tool per group (`issues`, `session`, `errors`) with an `action` parameter.
    Consolidated,
}

impl ToolStyle {
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolStyle::Granular => "granular",
            ToolStyle::Consolidated => "consolidated",
        }
    }
}

impl fmt::Display for ToolStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the configuration file lives, relative to the workspace directory.
pub const FILE: &str = "config/docket.yaml";

/// Limits the handlers apply to responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseLimits {
    pub page_size: usize,
    pub full_page_size: usize,
    pub search_page_size: usize,
    pub character_limit: usize,
}

impl Default for ResponseLimits {
    fn default() -> Self {
        ResponseLimits {
            page_size: limits::issues_list::DEFAULT_PAGE_SIZE,
            full_page_size: limits::issues_list::FULL_PAGE_SIZE,
            search_page_size: limits::issues_search::DEFAULT_PAGE_SIZE,
            character_limit: limits::issues_get::MAX_OUTPUT_CHARS,
        }
    }
}

/// The effective settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub cache: bool,
    pub cache_ttl_seconds: u64,
    pub limits: ResponseLimits,
    pub error_retention_days: i64,
    pub preflight_threshold: u32,
    pub tool_style: ToolStyle,
    pub token_count: Counter,
    pub branch_aware_ids: bool,
    /// Send structuredContent and publish outputSchemas (false: text only, for clients that
    /// forward structuredContent in place of a text the user prefers).
    pub structured_content: bool,
    /// Refuse every call that would write to the workspace (a reviewer's or a CI's server).
    pub read_only: bool,
    /// Whether linked worktrees share the main worktree's workspace (read by the workspace
    /// resolution itself, before this file; kept here so it is validated and described).
    pub worktrees: Worktrees,
    /// The git remote that arbitrates claims between clones (`None`: the workspace decides alone).
    pub claims_remote: Option<String>,
    /// How long a claim's lease lasts without a renewal (`claim_ttl`).
    pub claim_ttl: Duration,
    /// How long one git call to the claims remote may take before it is stopped (seconds).
    pub remote_timeout_seconds: u64,
    /// Where each key's value came from (keys absent here are defaults).
    sources: BTreeMap<&'static str, Source>,
}

impl Default for Config {
    fn default() -> Self {
        let memory = error_memory::Settings::default();
        Config {
            cache: true,
            cache_ttl_seconds: 60,
            limits: ResponseLimits::default(),
            error_retention_days: memory.retention_days,
            preflight_threshold: memory.preflight_threshold,
            tool_style: ToolStyle::Granular,
            token_count: Counter::Estimate,
            branch_aware_ids: true,
            structured_content: true,
            read_only: false,
            worktrees: Worktrees::Shared,
            claims_remote: None,
            claim_ttl: crate::store::git::claims::DEFAULT_TTL,
            remote_timeout_seconds: crate::store::git::remote::DEFAULT_TIMEOUT.as_secs(),
            sources: BTreeMap::new(),
        }
    }
}

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Env(&'static str),
    Flag,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(path) => write!(f, "{}", path.display()),
            Source::Env(name) => write!(f, "environment variable {name}"),
            Source::Flag => f.write_str("--set"),
        }
    }
}

/// What a key accepts, and where a checked value goes.
#[derive(Clone, Copy)]
enum Kind {
    Bool(fn(&mut Config, bool)),
    Int {
        min: i64,
        max: i64,
        put: fn(&mut Config, i64),
    },
    /// The allowed values; `put` gets the index of the chosen one.
    Choice(&'static [&'static str], fn(&mut Config, usize)),
    /// A git remote's name, or empty for none.
    Remote(fn(&mut Config, Option<String>)),
    /// A duration (`90s`, `10m`, `2h`, or seconds) from 1 s to a week.
    Duration(fn(&mut Config, Duration)),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Bool(_) => f.write_str("true or false"),
            Kind::Int { min, max, .. } => write!(f, "an integer from {min} to {max}"),
            Kind::Choice(values, _) => write!(f, "one of: {}", values.join(", ")),
            Kind::Remote(_) => f.write_str("a git remote's name (as `git remote` lists it), or empty for none"),
            Kind::Duration(_) => f.write_str("a duration such as 90s, 10m or 2h (1s to 7d)"),
        }
    }
}

/// One setting: its name in the file, its environment variable, what it takes, how to read it.
struct Key {
    name: &'static str,
    env: &'static str,
    kind: Kind,
    get: fn(&Config) -> Value,
    help: &'static str,
}

const MAX_PAGE: i64 = limits::issues_list::MAX_PAGE_SIZE as i64;

const TOOL_STYLES: [ToolStyle; 2] = [ToolStyle::Granular, ToolStyle::Consolidated];
const COUNTERS: [Counter; 2] = [Counter::Estimate, Counter::O200k];
const WORKTREES: [Worktrees; 2] = [Worktrees::Shared, Worktrees::Local];

const KEYS: &[Key] = &[
    Key {
        name: "cache",
        env: "DOCKET_CACHE",
        kind: Kind::Bool(|c, on| c.cache = on),
        get: |c| json!(c.cache),
        help: "keep the in-memory index",
    },
    Key {
        name: "cache_ttl_seconds",
        env: "DOCKET_CACHE_TTL",
        kind: Kind::Int { min: 1, max: 86_400, put: |c, n| c.cache_ttl_seconds = n as u64 },
        get: |c| json!(c.cache_ttl_seconds),
        help: "full revalidation interval behind the change watcher",
    },
    Key {
        name: "page_size",
        env: "DOCKET_PAGE_SIZE",
        kind: Kind::Int { min: 1, max: MAX_PAGE, put: |c, n| c.limits.page_size = n as usize },
        get: |c| json!(c.limits.page_size),
        help: "issues_list page size (minimal and summary)",
    },
    Key {
        name: "full_page_size",
        env: "DOCKET_FULL_PAGE_SIZE",
        kind: Kind::Int { min: 1, max: MAX_PAGE, put: |c, n| c.limits.full_page_size = n as usize },
        get: |c| json!(c.limits.full_page_size),
        help: "issues_list page size with format full",
    },
    Key {
        name: "search_page_size",
        env: "DOCKET_SEARCH_PAGE_SIZE",
        kind: Kind::Int {
            min: 1,
            max: limits::issues_search::MAX_PAGE_SIZE as i64,
            put: |c, n| c.limits.search_page_size = n as usize,
        },
        get: |c| json!(c.limits.search_page_size),
        help: "issues_search page size",
    },
    Key {
        name: "character_limit",
        env: "DOCKET_CHARACTER_LIMIT",
        kind: Kind::Int { min: 2_000, max: 200_000, put: |c, n| c.limits.character_limit = n as usize },
        get: |c| json!(c.limits.character_limit),
        help: "characters of description text one issues_get or issues_get_batch result may carry",
    },
    Key {
        name: "error_retention_days",
        env: "DOCKET_ERROR_RETENTION_DAYS",
        kind: Kind::Int { min: 1, max: 3_650, put: |c, n| c.error_retention_days = n },
        get: |c| json!(c.error_retention_days),
        help: "days an error pattern is kept after it was last seen",
    },
    Key {
        name: "preflight_threshold",
        env: "DOCKET_PREFLIGHT_THRESHOLD",
        kind: Kind::Int { min: 1, max: 1_000, put: |c, n| c.preflight_threshold = n as u32 },
        get: |c| json!(c.preflight_threshold),
        help: "failures of the same call (7 days) before a preflight warning",
    },
    Key {
        name: "tool_style",
        env: "DOCKET_TOOL_STYLE",
        kind: Kind::Choice(&["granular", "consolidated"], |c, i| c.tool_style = TOOL_STYLES[i]),
        get: |c| json!(c.tool_style.as_str()),
        help: "granular: one tool per operation; consolidated: one tool per group with an action",
    },
    Key {
        name: "token_count",
        env: "DOCKET_TOKEN_COUNT",
        kind: Kind::Choice(&["estimate", "o200k"], |c, i| c.token_count = COUNTERS[i]),
        get: |c| {
            json!(match c.token_count {
                Counter::Estimate => "estimate",
                Counter::O200k => "o200k",
            })
        },
        help: "_meta.tokens: estimate (no memory cost) or o200k (exact for OpenAI models, ~47 MB resident)",
    },
    Key {
        name: "structured_content",
        env: "DOCKET_STRUCTURED_CONTENT",
        kind: Kind::Bool(|c, on| c.structured_content = on),
        get: |c| json!(c.structured_content),
        help: "send structuredContent and publish outputSchemas (false: the text view only)",
    },
    Key {
        name: "branch_aware_ids",
        env: "DOCKET_BRANCH_AWARE_IDS",
        kind: Kind::Bool(|c, on| c.branch_aware_ids = on),
        get: |c| json!(c.branch_aware_ids),
        help: "inside git, number new ids above every local and remote-tracking branch and worktree",
    },
    Key {
        name: "read_only",
        env: "DOCKET_READ_ONLY",
        kind: Kind::Bool(|c, on| c.read_only = on),
        get: |c| json!(c.read_only),
        help: "refuse every tool call that would write (workspace_doctor still checks, without fix)",
    },
    Key {
        name: Worktrees::KEY,
        env: Worktrees::ENV,
        kind: Kind::Choice(&Worktrees::VALUES, |c, i| c.worktrees = WORKTREES[i]),
        get: |c| json!(Worktrees::VALUES[WORKTREES.iter().position(|w| *w == c.worktrees).unwrap_or(0)]),
        help: "shared: a linked git worktree serves the main worktree's workspace; local: its own files (claims still hold across worktrees)",
    },
    Key {
        name: "claims_remote",
        env: "DOCKET_CLAIMS_REMOTE",
        kind: Kind::Remote(|c, r| c.claims_remote = r),
        get: |c| json!(c.claims_remote),
        help: "git remote that arbitrates issues_claim between clones (refs/docket/claims/ID); empty: none",
    },
    Key {
        name: "claim_ttl",
        env: "DOCKET_CLAIM_TTL",
        kind: Kind::Duration(|c, d| c.claim_ttl = d),
        get: |c| json!(format_duration(c.claim_ttl)),
        help: "a claim's lease: a running server renews its sessions' claims; one not renewed this long (plus clock skew of half of it, at most 1m) is free again",
    },
    Key {
        name: "remote_timeout",
        env: "DOCKET_REMOTE_TIMEOUT",
        kind: Kind::Int { min: 1, max: 3_600, put: |c, n| c.remote_timeout_seconds = n as u64 },
        get: |c| json!(c.remote_timeout_seconds),
        help: "seconds one git call to the claims remote (ls-remote, push, fetch) may take before it is stopped and the call answers without it",
    },
];

/// A setting that could not be applied; the message names the key, the valid values and where it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(String);

impl Config {
    /// Defaults, then the workspace's config file, then the environment, then `overrides`
    /// (`KEY=VALUE`, from `--set`).
    pub fn load(workspace_dir: &Path, overrides: &[String]) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        config.apply_file(&workspace_dir.join(FILE))?;
        config.apply_env(|name| std::env::var(name).ok())?;
        for item in overrides {
            let (key, value) = item.split_once('=').ok_or_else(|| {
                ConfigError(format!("--set {item}: expected KEY=VALUE, e.g. --set page_size=50. {}", valid_keys()))
            })?;
            config.set(key.trim(), &Value::String(value.trim().to_string()), Source::Flag)?;
        }
        Ok(config)
    }

    fn apply_file(&mut self, path: &Path) -> Result<(), ConfigError> {
        // Bounded, never blocking on a FIFO, never following a link as the file itself.
        let text = match crate::store::fs::read_file(path, 1024 * 1024) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(crate::store::StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(());
            }
            Err(e) => return Err(ConfigError(format!("cannot read the config file: {e}"))),
        };
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| {
            ConfigError(format!(
                "{}: not valid YAML: {e}. Fix the file or delete it to use the defaults.",
                path.display()
            ))
        })?;
        let map = match doc {
            serde_yaml::Value::Null => return Ok(()),
            serde_yaml::Value::Mapping(map) => map,
            _ => {
                return Err(ConfigError(format!(
                    "{}: expected a mapping of settings (key: value). {}",
                    path.display(),
                    valid_keys()
                )));
            }
        };
        for (key, value) in map {
            let key = key.as_str().unwrap_or_default().to_string();
            let value = serde_json::to_value(&value).unwrap_or(Value::Null);
            self.set(&key, &value, Source::File(path.to_path_buf()))?;
        }
        Ok(())
    }

    fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        for key in KEYS {
            if let Some(raw) = var(key.env).filter(|v| !v.trim().is_empty()) {
                self.set(key.name, &Value::String(raw.trim().to_string()), Source::Env(key.env))?;
            }
        }
        // wrangler's switch for the cache, honoured when docket's own is not set.
        if var("DOCKET_CACHE").is_none()
            && let Some(raw) = var("WRANGLER_MCP_CACHE")
        {
            self.set("cache", &Value::String(raw), Source::Env("WRANGLER_MCP_CACHE"))?;
        }
        Ok(())
    }

    /// Sets one key from a file value or a string (env, flag), checked against its kind.
    fn set(&mut self, name: &str, value: &Value, source: Source) -> Result<(), ConfigError> {
        let Some(key) = KEYS.iter().find(|k| k.name == name) else {
            let hint = KEYS
                .iter()
                .map(|k| (strsim::jaro_winkler(name, k.name), k.name))
                .filter(|(score, _)| *score > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, k)| format!(" Did you mean `{k}`?"))
                .unwrap_or_default();
            return Err(ConfigError(format!("{source}: unknown setting `{name}`.{hint} {}", valid_keys())));
        };
        let invalid = || {
            ConfigError(format!(
                "{source}: `{name}` must be {}, got {value}. Fix it, or remove it to use the default ({}).",
                key.kind,
                (key.get)(&Config::default())
            ))
        };
        match key.kind {
            Kind::Bool(put) => {
                let on = match value {
                    Value::Bool(b) => *b,
                    Value::String(s) => match s.to_lowercase().as_str() {
                        "true" | "1" | "on" | "yes" => true,
                        "false" | "0" | "off" | "no" => false,
                        _ => return Err(invalid()),
                    },
                    _ => return Err(invalid()),
                };
                put(self, on);
            }
            Kind::Int { min, max, put } => {
                let n = match value {
                    Value::Number(n) => n.as_i64(),
                    Value::String(s) => s.parse::<i64>().ok(),
                    _ => None,
                }
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(invalid)?;
                put(self, n);
            }
            Kind::Choice(values, put) => {
                let chosen = value.as_str().and_then(|v| values.iter().position(|c| *c == v)).ok_or_else(invalid)?;
                put(self, chosen);
            }
            Kind::Duration(put) => {
                let d = match value {
                    Value::Number(n) => n.as_u64().map(Duration::from_secs),
                    Value::String(s) => parse_duration(s),
                    _ => None,
                }
                .filter(|d| *d >= Duration::from_secs(1) && *d <= Duration::from_secs(7 * 86_400))
                .ok_or_else(invalid)?;
                put(self, d);
            }
            Kind::Remote(put) => {
                let name = match value {
                    Value::Null => "",
                    Value::String(s) => s.trim(),
                    _ => return Err(invalid()),
                };
                if !name.is_empty() && !crate::store::git::claims::valid_remote(name) {
                    return Err(invalid());
                }
                put(self, Some(name.to_string()).filter(|n| !n.is_empty()));
            }
        }
        self.sources.insert(key.name, source);
        Ok(())
    }

    /// Replaces the tool style (the `--tool-style` flag wins over every other source).
    pub fn set_tool_style(&mut self, style: ToolStyle) {
        self.tool_style = style;
        self.sources.insert("tool_style", Source::Flag);
    }

    /// Every setting with its value, where it came from, and how to change it (`docket://config`).
    pub fn describe(&self) -> Value {
        let settings: serde_json::Map<String, Value> = KEYS
            .iter()
            .map(|k| {
                let source = self.sources.get(k.name).map_or_else(|| "default".to_string(), Source::to_string);
                let entry = json!({"value": (k.get)(self), "source": source, "env": k.env, "accepts": k.kind.to_string(), "help": k.help});
                (k.name.to_string(), entry)
            })
            .collect();
        json!({"file": FILE, "settings": settings})
    }

    pub fn store_options(&self) -> StoreOptions {
        StoreOptions {
            cache: self.cache,
            ttl: Duration::from_secs(self.cache_ttl_seconds),
            branch_aware_ids: self.branch_aware_ids,
            one_shot: false,
        }
    }

    pub fn memory_settings(&self) -> error_memory::Settings {
        error_memory::Settings {
            preflight_threshold: self.preflight_threshold,
            retention_days: self.error_retention_days,
            ..error_memory::Settings::default()
        }
    }
}

/// `90s`, `10m`, `2h`, `1d`, or a number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (n, unit) = text.split_at(split);
    let n: u64 = n.parse().ok()?;
    let secs = match unit.trim() {
        "" | "s" => n,
        "m" | "min" => n.checked_mul(60)?,
        "h" => n.checked_mul(3_600)?,
        "d" => n.checked_mul(86_400)?,
        _ => return None,
    };
    Some(Duration::from_secs(secs))
}

/// A duration as [`parse_duration`] reads it back (`15m`, `90s`).
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        s if s % 3_600 == 0 && s > 0 => format!("{}h", s / 3_600),
        s if s % 60 == 0 && s > 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

fn valid_keys() -> String {
    let names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    format!("Valid settings: {}.", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_ttl_reads_durations_down_to_a_second() {
        assert_eq!(with_file("claim_ttl: 90s").expect("90s").claim_ttl, Duration::from_secs(90));
        assert_eq!(with_file("claim_ttl: 10m").expect("10m").claim_ttl, Duration::from_secs(600));
        assert_eq!(with_file("claim_ttl: 2h").expect("2h").claim_ttl, Duration::from_secs(7_200));
        assert_eq!(with_file("claim_ttl: 1s").expect("1s").claim_ttl, Duration::from_secs(1));
        assert_eq!(Config::default().claim_ttl, Duration::from_secs(900), "15m by default");
        for bad in ["claim_ttl: 0s", "claim_ttl: 5x", "claim_ttl: 30d", "claim_ttl: true"] {
            let e = with_file(bad).expect_err(bad).to_string();
            assert!(e.contains("claim_ttl") && e.contains("duration"), "{bad}: {e}");
        }
        assert_eq!(format_duration(Duration::from_secs(900)), "15m");
    }

    fn with_file(text: &str) -> Result<Config, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        std::fs::write(dir.path().join(FILE), text).unwrap();
        let mut config = Config::default();
        config.apply_file(&dir.path().join(FILE)).map(|()| config)
    }

    #[test]
    fn file_values_are_applied_with_their_source() {
        let c = with_file("page_size: 40\ncache: false\ntool_style: consolidated\npreflight_threshold: 2\n").unwrap();
        assert_eq!(c.limits.page_size, 40);
        assert!(!c.cache);
        assert_eq!(c.tool_style, ToolStyle::Consolidated);
        assert_eq!(c.memory_settings().preflight_threshold, 2);
        let d = c.describe();
        assert_eq!(d["settings"]["page_size"]["value"], 40);
        assert!(d["settings"]["page_size"]["source"].as_str().unwrap().ends_with(FILE));
        assert_eq!(d["settings"]["full_page_size"]["source"], "default");
    }

    #[test]
    fn an_out_of_range_value_names_the_key_and_the_valid_range() {
        let e = with_file("page_size: 500\n").unwrap_err().to_string();
        assert!(e.contains("`page_size` must be an integer from 1 to 100, got 500"), "{e}");
        assert!(e.contains("default (25)"), "{e}");
    }

    #[test]
    fn an_unknown_key_suggests_the_closest_one() {
        let e = with_file("page_sise: 10\n").unwrap_err().to_string();
        assert!(e.contains("unknown setting `page_sise`. Did you mean `page_size`?"), "{e}");
        assert!(e.contains("Valid settings: cache, cache_ttl_seconds"), "{e}");
    }

    #[test]
    fn a_bad_choice_lists_the_choices() {
        let e = with_file("tool_style: compact\n").unwrap_err().to_string();
        assert!(e.contains("`tool_style` must be one of: granular, consolidated, got \"compact\""), "{e}");
    }

    #[test]
    fn environment_overrides_the_file() {
        let mut c = with_file("page_size: 40\n").unwrap();
        c.apply_env(|name| (name == "DOCKET_PAGE_SIZE").then(|| "7".to_string())).unwrap();
        assert_eq!(c.limits.page_size, 7);
        assert_eq!(c.describe()["settings"]["page_size"]["source"], "environment variable DOCKET_PAGE_SIZE");
        let e = c.apply_env(|name| (name == "DOCKET_CACHE").then(|| "maybe".to_string())).unwrap_err();
        assert!(e.to_string().contains("environment variable DOCKET_CACHE: `cache` must be true or false"), "{e}");
    }

    #[test]
    fn flags_override_everything_and_must_be_key_value() {
        let dir = tempfile::tempdir().unwrap();
        let c = Config::load(dir.path(), &["character_limit=5000".into()]).unwrap();
        assert_eq!(c.limits.character_limit, 5000);
        let e = Config::load(dir.path(), &["character_limit".into()]).unwrap_err();
        assert!(e.to_string().contains("expected KEY=VALUE"), "{e}");
    }

    #[test]
    fn a_file_that_is_not_a_mapping_is_refused() {
        assert!(with_file("- page_size\n").unwrap_err().to_string().contains("expected a mapping"));
        assert!(with_file("").is_ok());
    }
}
