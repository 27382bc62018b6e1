//! The module graph has no import cycles, in every crate of the workspace (docket's src/, the store
//! crate store/src seen as the module `store` it is re-exported as, the toolkit's runtime
//! toolkit/runtime/src, the generator codegen/src): no module names (`crate::…`, `super::…`,
//! `self::…`) a module that names it back, directly or around a longer circle. A parent and its own
//! submodules are one unit (the parent declares them; a child's `super::` reaches what its parent
//! holds for it), so only modules outside each other's subtree count. And the modules under one
//! parent are floors that depend on each other one way, each with everything below it as one
//! (store/src/files may not import store/src/index when anything under index imports files); the
//! top-level modules (`server`, `config`, `store`, …) are the floors under the crate root.
//! And the store owns every write: no file under src/ writes a file itself, except the few that
//! write no workspace file, each listed with why.
//!
//! The code is parsed (syn), not scanned as text: every path of every `use` tree (`use super::{a,
//! b::c}` names `a` and `b::c`), of the code and of the macros' arguments counts; comments and
//! items under `#[cfg(test)]` do not (code after a test module does). The modules are found the
//! way rustc finds them, from each crate's root through its `mod` declarations. A path through a
//! `use` (`crate::Workspace`, which the store's root re-exports from `workspace`) names the module
//! the item comes from, not the one that re-exports it. Circles are the strongly connected
//! components of the graph (Tarjan), each shown as one loop `a -> b -> c -> a`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

/// Module -> the modules it names (outside its own subtree).
type Graph = BTreeMap<String, BTreeSet<String>>;

/// What the code names, by module.
#[derive(Default)]
struct Named {
    /// Module -> every path its code names, from the main crate's root (`["store", "index", "Index"]`).
    paths: BTreeMap<String, Vec<Vec<String>>>,
    /// Module -> the names its `use` items bring in (`pub use files::MAX_FILE_BYTES` in the store's
    /// root: `MAX_FILE_BYTES` -> `["store", "files", "MAX_FILE_BYTES"]`), so that a path through a
    /// re-export (`crate::MAX_FILE_BYTES`) names the module the item lives in.
    aliases: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Named {
    fn merge(&mut self, other: Named) {
        for (name, paths) in other.paths {
            self.paths.entry(name).or_default().extend(paths);
        }
        for (name, aliases) in other.aliases {
            self.aliases.entry(name).or_default().extend(aliases);
        }
    }
}

/// A module's name in the graph: its path from the main crate's root, `crate` for the root.
fn module_name(path: &[String]) -> String {
    if path.is_empty() { "crate".to_string() } else { path.join("::") }
}

/// Reads one source file's code: the paths it names, its inline modules, and the out-of-line
/// modules it declares (to be read from their own files).
struct Scanner {
    /// What `crate` means here: `[]` in the main crate, `["store"]` in the store crate.
    krate: Vec<String>,
    /// The module being read (inline modules below the file's own module included).
    module: Vec<String>,
    /// The inline modules entered below the file's own module.
    inline: Vec<String>,
    named: Named,
    /// Out-of-line submodules: the inline modules they are declared in, and their names.
    children: Vec<(Vec<String>, String)>,
}

impl Scanner {
    fn new(krate: &[String], module: &[String]) -> Scanner {
        let mut named = Named::default();
        named.paths.insert(module_name(module), Vec::new());
        Scanner { krate: krate.to_vec(), module: module.to_vec(), inline: Vec::new(), named, children: Vec::new() }
    }

    /// Notes a path that starts at `crate`, `self` or `super`; others name other crates or items
    /// in scope (child modules, reached through their parent, are one unit with it anyway).
    fn note(&mut self, segments: &[String]) {
        if let Some(path) = self.resolve(segments) {
            self.named.paths.entry(module_name(&self.module)).or_default().push(path);
        }
    }

    /// `segments` from the crate's root, if it starts at `crate`, `self` or `super`.
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let (base, rest) = match segments.first().map(String::as_str) {
            Some("crate") => (self.krate.clone(), &segments[1..]),
            Some("self") => (self.module.clone(), &segments[1..]),
            Some("super") => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let kept = self.module.len().saturating_sub(ups).max(self.krate.len());
                (self.module[..kept].to_vec(), &segments[ups..])
            }
            _ => return None,
        };
        Some(base.into_iter().chain(rest.iter().cloned()).collect())
    }

    /// Notes that a `use` brings `path` in as `name`: a path that does not start at `crate`,
    /// `self` or `super` is taken as relative to this module (a child module's item; another
    /// crate's path then names no module of this one and changes nothing).
    fn alias(&mut self, name: String, path: &[String]) {
        let full = self.resolve(path).unwrap_or_else(|| self.module.iter().chain(path).cloned().collect());
        self.named.aliases.entry(module_name(&self.module)).or_default().insert(name, full);
    }

    /// Every path a `use` tree names: one per leaf of each group.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => self.note(prefix),
            syn::UseTree::Name(n) => {
                self.note_with(prefix, n.ident.to_string());
                self.alias_with(prefix, n.ident.to_string(), n.ident.to_string());
            }
            syn::UseTree::Rename(r) => {
                self.note_with(prefix, r.ident.to_string());
                self.alias_with(prefix, r.rename.to_string(), r.ident.to_string());
            }
            syn::UseTree::Glob(_) => self.note(prefix),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    fn note_with(&mut self, prefix: &[String], last: String) {
        let path: Vec<String> = prefix.iter().cloned().chain(std::iter::once(last)).collect();
        self.note(&path);
    }

    fn alias_with(&mut self, prefix: &[String], name: String, last: String) {
        let path: Vec<String> = prefix.iter().cloned().chain(std::iter::once(last)).collect();
        self.alias(name, &path);
    }

    /// The paths in a macro's tokens that do not parse as expressions (`json!({..})`,
    /// `matches!(x, P)`): printed tokens are separated by spaces, `::` included.
    fn tokens(&mut self, text: &str) {
        let words: Vec<&str> = text.split_whitespace().collect();
        let ident = |w: &str| w.chars().all(|c| c.is_alphanumeric() || c == '_');
        let mut i = 0;
        while i < words.len() {
            let starts = matches!(words[i], "crate" | "super" | "self")
                && (i == 0 || words[i - 1] != "::")
                && words.get(i + 1) == Some(&"::");
            if !starts {
                i += 1;
                continue;
            }
            let mut path = vec![words[i].to_string()];
            i += 1;
            while words.get(i) == Some(&"::") && words.get(i + 1).is_some_and(|w| ident(w)) {
                path.push(words[i + 1].to_string());
                i += 2;
            }
            self.note(&path);
        }
    }
}

/// Whether an item is compiled for tests only.
fn for_tests(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

fn impl_item_attrs(item: &syn::ImplItem) -> &[syn::Attribute] {
    match item {
        syn::ImplItem::Const(i) => &i.attrs,
        syn::ImplItem::Fn(i) => &i.attrs,
        syn::ImplItem::Type(i) => &i.attrs,
        syn::ImplItem::Macro(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Scanner {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !for_tests(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        if !for_tests(impl_item_attrs(item)) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let name = m.ident.to_string();
        let Some((_, items)) = &m.content else {
            self.children.push((self.inline.clone(), name));
            return;
        };
        self.module.push(name.clone());
        self.inline.push(name);
        self.named.paths.entry(module_name(&self.module)).or_default();
        items.iter().for_each(|item| self.visit_item(item));
        self.inline.pop();
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_none() {
            self.use_tree(&mut Vec::new(), &u.tree);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() {
            let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.note(&segments);
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        visit::visit_macro(self, m);
        match m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated) {
            Ok(args) => args.iter().for_each(|e| self.visit_expr(e)),
            Err(_) => self.tokens(&m.tokens.to_string()),
        }
    }
}

/// Reads `file` as module `module` and, through its `mod` declarations, every module below it;
/// `dir` is where its submodules' files are.
fn read_module(file: &Path, dir: &Path, krate: &[String], module: &[String], named: &mut Named) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("parse {}: {e}", file.display()));
    let mut scanner = Scanner::new(krate, module);
    scanner.visit_file(&ast);
    named.merge(scanner.named);
    for (inline, name) in scanner.children {
        let dir: PathBuf = inline.iter().fold(dir.to_path_buf(), |d, m| d.join(m));
        let own = dir.join(format!("{name}.rs"));
        let file = if own.exists() { own } else { dir.join(&name).join("mod.rs") };
        let child: Vec<String> = module.iter().chain(&inline).cloned().chain(std::iter::once(name.clone())).collect();
        read_module(&file, &dir.join(&name), krate, &child, named);
    }
}

/// The main crate (src/lib.rs and src/main.rs) and the store crate (store/src, as `store`).
fn sources() -> Named {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut named = Named::default();
    for root in ["lib.rs", "main.rs"] {
        read_module(&repo.join("src").join(root), &repo.join("src"), &[], &[], &mut named);
    }
    let store = ["store".to_string()];
    read_module(&repo.join("store/src/lib.rs"), &repo.join("store/src"), &store, &store, &mut named);
    named
}

/// Every crate of the workspace by name, each read from its roots as a module of that name (the
/// store within docket's own graph, as `store`, the way docket names it): docket with the store,
/// the toolkit's runtime, the generator's library and its command.
fn crates() -> Vec<(&'static str, Named)> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let one = |name: &str, root: &str| {
        let file = repo.join(root);
        let dir = file.parent().expect("a crate root has a folder");
        let krate = [name.to_string()];
        let mut named = Named::default();
        read_module(&file, dir, &krate, &krate, &mut named);
        named
    };
    vec![
        ("docket", sources()),
        ("toolkit_runtime", one("toolkit_runtime", "toolkit/runtime/src/lib.rs")),
        ("codegen", one("codegen", "codegen/src/lib.rs")),
        ("codegen_bin", one("codegen_bin", "codegen/src/bin/codegen.rs")),
    ]
}

/// Every crate's graph of modules.
fn crate_graphs() -> Vec<(&'static str, Graph)> {
    crates().into_iter().map(|(name, named)| (name, graph_of(&named))).collect()
}

/// The deepest known module that `segments` (from the crate root) names, through the names that
/// modules' `use` items bring in (a re-export names the module the item comes from).
fn module_of(segments: &[String], named: &Named) -> Option<String> {
    let mut segments = segments.to_vec();
    // A bound, for `use` items that name each other round (`use a::*` does not count anyway).
    for _ in 0..16 {
        let n = (0..=segments.len()).rev().find(|n| named.paths.contains_key(&module_name(&segments[..*n])))?;
        let module = module_name(&segments[..n]);
        let through = segments.get(n).and_then(|next| named.aliases.get(&module)?.get(next));
        match through {
            Some(target) if target[..] != segments[..=n] => {
                segments = target.iter().chain(&segments[n + 1..]).cloned().collect();
            }
            _ => return Some(module),
        }
    }
    None
}

fn nested(a: &str, b: &str) -> bool {
    a == "crate" || b == "crate" || a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

fn graph_of(named: &Named) -> Graph {
    let mut edges = Graph::new();
    for (module, paths) in &named.paths {
        for target in paths.iter().filter_map(|p| module_of(p, named)) {
            if !nested(module, &target) {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    edges
}

/// The graph of modules given as (name, source text) pairs, all in the main crate.
fn graph_of_sources(modules: &[(&str, &str)]) -> Graph {
    let mut named = Named::default();
    for (name, text) in modules {
        let module: Vec<String> = name.split("::").filter(|s| *s != "crate").map(str::to_string).collect();
        let mut scanner = Scanner::new(&[], &module);
        scanner.visit_file(&syn::parse_file(text).expect("parse"));
        named.merge(scanner.named);
    }
    graph_of(&named)
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn circles(edges: &Graph) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        edges: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn connect(&mut self, v: &'a str) {
            let at = self.index.len();
            self.index.insert(v, at);
            self.low.insert(v, at);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let reach = match self.index.get(w.as_str()) {
                    None => {
                        self.connect(w);
                        self.low[w.as_str()]
                    }
                    Some(&i) if self.on_stack.contains(w.as_str()) => i,
                    Some(_) => continue,
                };
                let low = self.low[v].min(reach);
                self.low.insert(v, low);
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let nodes: BTreeSet<&str> = edges
        .iter()
        .flat_map(|(a, targets)| std::iter::once(a.as_str()).chain(targets.iter().map(String::as_str)))
        .collect();
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in nodes {
        if !tarjan.index.contains_key(v) {
            tarjan.connect(v);
        }
    }
    tarjan.found.sort();
    tarjan.found
}

/// A shortest loop through the first module of `circle` (breadth first, inside the circle), as
/// `a -> b -> a`, with the circle's other modules named when the loop does not pass them all.
fn loop_text(edges: &Graph, circle: &BTreeSet<String>) -> String {
    let start = circle.first().expect("a circle has modules");
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start.as_str()]);
    let mut last = start.as_str();
    'search: while let Some(v) = queue.pop_front() {
        for w in edges.get(v).into_iter().flatten().filter(|w| circle.contains(*w)) {
            if w == start {
                last = v;
                break 'search;
            }
            if !came_from.contains_key(w.as_str()) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    let mut path = vec![start.as_str()];
    let mut at = last;
    while at != start {
        path.insert(1, at);
        at = came_from[at];
    }
    path.push(start);
    let others: Vec<&str> = circle.iter().map(String::as_str).filter(|m| !path.contains(m)).collect();
    match others.is_empty() {
        true => path.join(" -> "),
        false => format!("{} (in one circle with {})", path.join(" -> "), others.join(", ")),
    }
}

/// Every circle of `edges`, each as one loop.
fn cycles(edges: &Graph) -> Vec<String> {
    circles(edges).iter().map(|c| loop_text(edges, c)).collect()
}

/// The graph of floors: for each edge `a -> b`, the two children of their deepest common ancestor
/// that hold them (`store::files::edit -> store::index::lookup` is `store::files -> store::index`),
/// so the modules under one parent depend on each other one way, each with all below it as one.
fn floors(edges: &Graph) -> Graph {
    let mut out = Graph::new();
    for (a, targets) in edges {
        for b in targets {
            let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split("::").collect(), b.split("::").collect());
            let common = pa.iter().zip(&pb).take_while(|(x, y)| x == y).count();
            out.entry(pa[..=common].join("::")).or_default().insert(pb[..=common].join("::"));
        }
    }
    out
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let edges = graph_of(&sources());
    assert!(edges.values().map(BTreeSet::len).sum::<usize>() > 50, "the scan finds the crate's imports: {edges:?}");
    assert!(edges.keys().any(|m| m.starts_with("store::")), "the scan reads the store crate too: {edges:?}");
    let found = cycles(&edges);
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

#[test]
fn top_level_modules_depend_on_each_other_one_way() {
    let top = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut deps = Graph::new();
    for (a, targets) in graph_of(&sources()) {
        for b in targets {
            if top(&a) != top(&b) {
                deps.entry(top(&a)).or_default().insert(top(&b));
            }
        }
    }
    assert!(deps.get("server").is_some_and(|d| d.contains("store")), "the scan sees server -> store: {deps:?}");
    let cycles = cycles(&deps);
    assert!(cycles.is_empty(), "top-level modules that depend on each other: {cycles:?}");
}

#[test]
fn the_modules_under_one_parent_depend_on_each_other_one_way() {
    let cycles = cycles(&floors(&graph_of(&sources())));
    assert!(cycles.is_empty(), "floors that depend on each other: {cycles:#?}");
}

#[test]
fn a_grouped_use_names_each_module_in_its_group() {
    let edges = graph_of_sources(&[
        ("web", "mod api; mod problems; pub struct Web;"),
        ("web::api", "use super::{Web, problems};\nfn f() { problems::g() }"),
        ("web::problems", "use super::api::workspace_name;"),
    ]);
    assert_eq!(cycles(&edges), ["web::api -> web::problems -> web::api"]);
}

#[test]
fn code_after_a_test_module_counts_and_the_test_module_does_not() {
    let after = "#[cfg(test)]\nmod tests { use crate::a::X; }\npub fn f() -> crate::a::X { todo!() }";
    let edges = graph_of_sources(&[("a", "pub use crate::b::f;"), ("b", after)]);
    assert_eq!(cycles(&edges), ["a -> b -> a"]);
    let only_in_tests = "pub fn f() {}\n#[cfg(test)]\nmod tests { use crate::a::X; }";
    assert!(cycles(&graph_of_sources(&[("a", "pub use crate::b::f;"), ("b", only_in_tests)])).is_empty());
}

#[test]
fn a_circle_of_three_is_found_and_shown_as_one_loop() {
    let edges = graph_of_sources(&[
        ("a", "use crate::b::B; pub struct A;"),
        ("b", "pub struct B(crate::c::C);"),
        ("c", "pub fn c() { let _ = json!({\"a\": crate::a::A}); }"),
        ("d", "use crate::a::A;"),
    ]);
    assert_eq!(cycles(&edges), ["a -> b -> c -> a"]);
    let wider = graph_of_sources(&[
        ("a", "use crate::{b::B, d::D};"),
        ("b", "use crate::c::C;"),
        ("c", "use crate::a::A;"),
        ("d", "use crate::a::A;"),
    ]);
    assert_eq!(cycles(&wider), ["a -> d -> a (in one circle with b, c)"]);
}

#[test]
fn a_parent_and_its_children_are_one_unit() {
    let edges = graph_of_sources(&[
        ("crate", "mod a; fn f() { a::b::g() }"),
        ("a", "mod b; use self::b::g; use crate::x;"),
        ("a::b", "use super::super::a; pub fn g() {}"),
    ]);
    assert!(cycles(&edges).is_empty(), "{edges:?}");
}

#[test]
fn a_circle_through_a_parent_and_its_child_is_a_circle_of_floors() {
    let edges = graph_of_sources(&[
        ("files", "use crate::workspace::Workspace;"),
        ("workspace", "mod layout; pub struct Workspace;"),
        ("workspace::layout", "use crate::files::Lock;"),
    ]);
    assert!(cycles(&edges).is_empty(), "no two modules name each other: {edges:?}");
    assert_eq!(cycles(&floors(&edges)), ["files -> workspace -> files"]);
}

#[test]
fn every_crate_has_no_import_circle() {
    let graphs = crate_graphs();
    let found: Vec<(&str, Vec<String>)> =
        graphs.iter().map(|(name, edges)| (*name, cycles(edges))).filter(|(_, c)| !c.is_empty()).collect();
    for (name, edges) in &graphs {
        let counted = edges.values().map(BTreeSet::len).sum::<usize>();
        eprintln!("{name}: {} modules import {counted} others", edges.len());
    }
    for name in ["docket", "toolkit_runtime", "codegen"] {
        let edges = &graphs.iter().find(|(n, _)| *n == name).expect("the crate is read").1;
        assert!(!edges.is_empty(), "the scan finds {name}'s imports: {edges:?}");
    }
    assert!(found.is_empty(), "import cycles: {found:#?}");
}

#[test]
fn in_every_crate_the_modules_under_one_parent_depend_on_each_other_one_way() {
    let found: Vec<(&str, Vec<String>)> = crate_graphs()
        .iter()
        .map(|(name, edges)| (*name, cycles(&floors(edges))))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    assert!(found.is_empty(), "floors that depend on each other: {found:#?}");
}

#[test]
fn a_path_through_a_re_export_names_the_module_the_item_lives_in() {
    let edges = graph_of_sources(&[
        ("crate", "mod a; mod b; pub use b::B; pub use self::a::Renamed as A2;"),
        ("a", "use crate::B; pub struct Renamed;"),
        ("b", "pub struct B(crate::A2);"),
    ]);
    assert_eq!(cycles(&edges), ["a -> b -> a"]);
}

/// What writes a file: a function of `std::fs` (or `tokio::fs`) that changes the disk, `File`'s
/// constructors that create, `OpenOptions` (opens for writing), the store's file layer
/// (`store::fs`: its functions, and `Root`'s writing methods) and `tempfile`'s persisting.
const WRITING_FUNCTIONS: &[&str] = &[
    "write",
    "rename",
    "remove_file",
    "remove_dir",
    "remove_dir_all",
    "create_dir",
    "create_dir_all",
    "copy",
    "hard_link",
    "soft_link",
    "symlink",
    "set_permissions",
];
const WRITING_METHODS: &[&str] = &[
    "write_atomic",
    "create_atomic",
    "remove_file",
    "rename",
    "create_dir_all",
    "sqlite",
    "persist",
    "persist_noclobber",
    "set_len",
];
const FILE_LAYER_FUNCTIONS: &[&str] = &["replace_named", "scratch_file"];

/// The files of src/ that write files themselves, and why that is not a workspace file written
/// past the store.
const WRITES_ALLOWED: &[(&str, &str)] = &[
    (
        "src/cli/setup.rs",
        "`docket setup` writes the agents' instruction files (AGENTS.md, CLAUDE.md, skills) in the project, outside the workspace, through the rooted layer",
    ),
    (
        "src/error_memory.rs",
        "the error memory opens its own SQLite database (cache/errors.db: docket's record of failed calls, no user's file) through the rooted layer",
    ),
];

/// Every place in `source` (one file's text) that writes a file, by what it calls, leaving out
/// what is compiled for tests only.
fn writes_in(source: &str) -> Vec<String> {
    struct Writes(Vec<String>);
    fn text(path: &syn::Path) -> Vec<String> {
        path.segments.iter().map(|s| s.ident.to_string()).collect()
    }
    fn writing(segments: &[String]) -> bool {
        let Some((last, head)) = segments.split_last() else { return false };
        let module = head.last().map(String::as_str);
        (matches!(module, Some("fs")) && WRITING_FUNCTIONS.contains(&last.as_str()))
            || (module == Some("File") && matches!(last.as_str(), "create" | "create_new"))
            || segments.iter().any(|s| s == "OpenOptions")
            || (FILE_LAYER_FUNCTIONS.contains(&last.as_str()) && module == Some("fs"))
    }
    impl Writes {
        fn at(&mut self, what: String) {
            self.0.push(what);
        }
    }
    impl<'ast> Visit<'ast> for Writes {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            if !for_tests(item_attrs(item)) {
                visit::visit_item(self, item);
            }
        }
        fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
            if !for_tests(impl_item_attrs(item)) {
                visit::visit_impl_item(self, item);
            }
        }
        fn visit_path(&mut self, path: &'ast syn::Path) {
            let segments = text(path);
            if writing(&segments) {
                self.at(segments.join("::"));
            }
            visit::visit_path(self, path);
        }
        fn visit_use_tree(&mut self, tree: &'ast syn::UseTree) {
            fn walk(tree: &syn::UseTree, mut prefix: Vec<String>, out: &mut Writes) {
                match tree {
                    syn::UseTree::Path(p) => {
                        prefix.push(p.ident.to_string());
                        walk(&p.tree, prefix, out);
                    }
                    syn::UseTree::Name(n) => {
                        prefix.push(n.ident.to_string());
                        if writing(&prefix) {
                            out.at(format!("use {}", prefix.join("::")));
                        }
                    }
                    syn::UseTree::Rename(r) => {
                        prefix.push(r.ident.to_string());
                        if writing(&prefix) {
                            out.at(format!("use {}", prefix.join("::")));
                        }
                    }
                    syn::UseTree::Glob(_) => {
                        if prefix.last().is_some_and(|l| l == "fs") {
                            out.at(format!("use {}::*", prefix.join("::")));
                        }
                    }
                    syn::UseTree::Group(g) => g.items.iter().for_each(|t| walk(t, prefix.clone(), out)),
                }
            }
            walk(tree, Vec::new(), self);
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if WRITING_METHODS.contains(&call.method.to_string().as_str()) {
                self.at(format!(".{}(…)", call.method));
            }
            visit::visit_expr_method_call(self, call);
        }
    }
    let ast = syn::parse_file(source).unwrap_or_else(|e| panic!("parse: {e}"));
    let mut writes = Writes(Vec::new());
    writes.visit_file(&ast);
    writes.0
}

/// Every .rs file under `dir`, as paths from the repository root.
fn rust_files(repo: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(repo, &path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path.strip_prefix(repo).expect("under the repository").to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The store owns every write of a workspace file: no file under src/ writes a file (std::fs,
/// `File::create`, `OpenOptions`, the store's file layer `store::fs`, a `Root`'s writing methods)
/// except the few of [`WRITES_ALLOWED`], which write no workspace file. A repair, a merge driver
/// or an import that writes its own files belongs in the store (store/src/repair,
/// store/src/git/driver.rs, `Store::write_import_file`).
#[test]
fn no_file_under_src_writes_a_workspace_file_past_the_store() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(repo, &repo.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 50, "the scan reads src/: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(repo.join(file)).expect("read");
        let writes = writes_in(&text);
        if !writes.is_empty() && !WRITES_ALLOWED.iter().any(|(f, _)| f == file) {
            found.extend(writes.into_iter().map(|w| format!("{file}: {w}")));
        }
    }
    assert!(
        found.is_empty(),
        "these write files past the store (move the write into store/, or add the file to WRITES_ALLOWED saying why it writes no workspace file):\n{}",
        found.join("\n")
    );
    for (file, _) in WRITES_ALLOWED {
        let text = std::fs::read_to_string(repo.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!writes_in(&text).is_empty(), "{file} writes nothing now: take it off WRITES_ALLOWED");
    }
}

#[test]
fn the_write_scan_finds_each_kind_of_write_and_none_in_tests() {
    let source = r#"
        use std::fs::remove_file;
        use crate::store::fs::{Root, replace_named};
        fn f(root: &Root, p: &std::path::Path) {
            std::fs::write(p, "x").unwrap();
            let _ = std::fs::File::create(p);
            let _ = std::fs::OpenOptions::new().append(true).open(p);
            root.write_atomic(p, b"x", None).unwrap();
            root.rename(p, p).unwrap();
            let mut v = vec![1];
            v.append(&mut vec![2]);
            let _ = std::fs::read(p);
        }
        #[cfg(test)]
        mod tests {
            fn g() { std::fs::write("a", "b").unwrap(); }
        }
    "#;
    let found = writes_in(source);
    assert_eq!(
        found,
        [
            "use std::fs::remove_file",
            "use crate::store::fs::replace_named",
            "std::fs::write",
            "std::fs::File::create",
            "std::fs::OpenOptions::new",
            ".write_atomic(…)",
            ".rename(…)",
        ],
        "{found:?}"
    );
}
