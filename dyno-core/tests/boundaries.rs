//! dyno-core's architecture, checked from its sources (ARCHITECTURE.md, "The layers"):
//!
//! - the embedded engine (`src/store/memory/`) uses only dyno-core's public API: no path it
//!   names outside `store/memory` goes through a crate-private module or ends at a crate-private
//!   item (`pub(crate)`, `pub(super)`, `pub(in ..)`, or private to an ancestor module, which the
//!   compiler lets a child module see), so the engine could live in a crate of its own;
//! - the top-level modules import each other without a cycle: each layer uses only those below
//!   it.
//!
//! Code under `#[cfg(test)]` is left out: a test may reach anything. Paths are read from the
//! token streams of the remaining items (`crate::..`, `super::..`, `dyno_core::..` and names a
//! `use` of those binds), resolved through the crate's modules and re-exports.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Attribute, Item, UseTree, Visibility};

/// A module path from the crate root (`["store", "memory"]`).
type ModPath = Vec<String>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vis {
    Public,
    /// `pub(crate)`, `pub(super)`, `pub(in ..)` or private.
    Restricted,
}

fn vis(v: &Visibility) -> Vis {
    match v {
        Visibility::Public(_) => Vis::Public,
        _ => Vis::Restricted,
    }
}

/// What a module defines: its items, the names its `use`s bind, its glob re-exports.
#[derive(Debug, Default)]
struct Module {
    vis: Option<Vis>,
    items: HashMap<String, Vis>,
    /// A name bound by `use` (re-exported or not), to the absolute path it names.
    uses: HashMap<String, (Vis, ModPath)>,
    globs: Vec<(Vis, ModPath)>,
}

/// One path a non-test item names, where it names it.
#[derive(Debug)]
struct Reference {
    from: ModPath,
    file: PathBuf,
    line: usize,
    path: ModPath,
}

#[derive(Debug, Default)]
struct Crate {
    modules: BTreeMap<ModPath, Module>,
    /// Associated functions and constants by the name of their type: `(module, vis)`.
    assoc: HashMap<(String, String), Vec<(ModPath, Vis)>>,
    /// Each non-test item's tokens, scanned once every module's `use`s are known.
    bodies: Vec<(ModPath, PathBuf, TokenStream)>,
    references: Vec<Reference>,
    /// Method calls (`.name(`), by the module that makes them.
    calls: Vec<(ModPath, PathBuf, usize, String)>,
}

fn is_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let text = a.meta.to_token_stream().to_string();
            text.contains("test") && !text.contains("not (test")
        }
    })
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The file of module `path` (`a/b.rs` or `a/b/mod.rs`).
fn module_file(path: &ModPath) -> Option<PathBuf> {
    if path.is_empty() {
        return Some(src().join("lib.rs"));
    }
    let base = path.iter().fold(src(), |p, s| p.join(s));
    let flat = base.with_extension("rs");
    let nested = base.join("mod.rs");
    [flat, nested].into_iter().find(|p| p.exists())
}

impl Crate {
    fn load() -> Crate {
        let mut krate = Crate::default();
        krate.modules.insert(
            vec![],
            Module {
                vis: Some(Vis::Public),
                ..Module::default()
            },
        );
        krate.load_file(vec![]);
        krate.scan_all();
        krate
    }

    fn scan_all(&mut self) {
        for (module, file, tokens) in std::mem::take(&mut self.bodies) {
            self.scan(&module, &file, tokens);
        }
    }

    fn load_file(&mut self, module: ModPath) {
        let file = module_file(&module).unwrap_or_else(|| panic!("no file for module {module:?}"));
        let text = fs::read_to_string(&file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.load_items(&module, &file, &ast.items);
    }

    fn load_items(&mut self, module: &ModPath, file: &Path, items: &[Item]) {
        for item in items {
            let (attrs, name, v): (&[Attribute], Option<String>, Option<&Visibility>) = match item {
                Item::Const(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Enum(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Fn(i) => (&i.attrs, Some(i.sig.ident.to_string()), Some(&i.vis)),
                Item::Static(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Struct(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Trait(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Type(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Union(i) => (&i.attrs, Some(i.ident.to_string()), Some(&i.vis)),
                Item::Macro(i) => (&i.attrs, None, None),
                Item::Impl(i) => (&i.attrs, None, None),
                Item::Use(i) => (&i.attrs, None, None),
                Item::Mod(i) => (&i.attrs, None, None),
                _ => continue,
            };
            if is_test(attrs) {
                continue;
            }
            if let (Some(name), Some(v)) = (name, v) {
                self.modules
                    .get_mut(module)
                    .unwrap()
                    .items
                    .insert(name, vis(v));
            }
            match item {
                Item::Mod(m) => {
                    let mut child = module.clone();
                    child.push(m.ident.to_string());
                    self.modules.insert(
                        child.clone(),
                        Module {
                            vis: Some(vis(&m.vis)),
                            ..Module::default()
                        },
                    );
                    match &m.content {
                        Some((_, items)) => self.load_items(&child, file, items),
                        None => self.load_file(child),
                    }
                }
                Item::Use(u) => {
                    let v = vis(&u.vis);
                    let mut bound = Vec::new();
                    use_tree(module, None, &u.tree, &mut bound);
                    for (name, path) in bound {
                        let m = self.modules.get_mut(module).unwrap();
                        match name {
                            Some(name) => {
                                m.uses.insert(name, (v, path));
                            }
                            None => m.globs.push((v, path)),
                        }
                    }
                }
                Item::Impl(i) => {
                    if let syn::Type::Path(p) = &*i.self_ty {
                        let ty = p.path.segments.last().unwrap().ident.to_string();
                        for it in &i.items {
                            let (name, v) = match it {
                                syn::ImplItem::Fn(f) if !is_test(&f.attrs) => {
                                    (f.sig.ident.to_string(), &f.vis)
                                }
                                syn::ImplItem::Const(c) if !is_test(&c.attrs) => {
                                    (c.ident.to_string(), &c.vis)
                                }
                                _ => continue,
                            };
                            // A trait impl's items are as visible as the trait.
                            let v = if i.trait_.is_some() {
                                Vis::Public
                            } else {
                                vis(v)
                            };
                            self.assoc
                                .entry((ty.clone(), name))
                                .or_default()
                                .push((module.clone(), v));
                        }
                    }
                }
                _ => {}
            }
            if !matches!(item, Item::Mod(_)) {
                self.bodies
                    .push((module.clone(), file.to_owned(), item.to_token_stream()));
            }
        }
    }

    /// Records every path rooted at the crate in `tokens`.
    fn scan(&mut self, module: &ModPath, file: &Path, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            if let TokenTree::Group(g) = &tokens[i] {
                self.scan(module, file, g.stream());
                i += 1;
                continue;
            }
            let after_colons = matches!(
                (tokens.get(i.wrapping_sub(1)), tokens.get(i.wrapping_sub(2))),
                (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':'
            ) && i >= 2;
            let start = match &tokens[i] {
                TokenTree::Ident(id) if !after_colons => {
                    let id = id.to_string();
                    match id.as_str() {
                        "crate" | "dyno_core" => Some(vec![]),
                        "super" if is_colons(&tokens, i + 1) => {
                            Some(module[..module.len().saturating_sub(1)].to_vec())
                        }
                        // A name a `use` bound, followed by more of its path (`Error::new`).
                        _ if is_colons(&tokens, i + 1) => self
                            .modules
                            .get(module)
                            .and_then(|m| m.uses.get(&id))
                            .map(|(_, target)| target.clone()),
                        _ => None,
                    }
                    .map(|root| (root, i + 1))
                }
                _ => None,
            };
            if let (TokenTree::Ident(id), Some(TokenTree::Punct(dot)), Some(TokenTree::Group(g))) = (
                &tokens[i],
                i.checked_sub(1).and_then(|k| tokens.get(k)),
                tokens.get(i + 1),
            ) && dot.as_char() == '.'
                && g.delimiter() == Delimiter::Parenthesis
            {
                self.calls.push((
                    module.clone(),
                    file.to_owned(),
                    id.span().start().line,
                    id.to_string(),
                ));
            }
            let Some((mut root, mut j)) = start else {
                i += 1;
                continue;
            };
            let line = tokens[i].span().start().line;
            // `super::super::..`
            loop {
                let sep = is_colons(&tokens, j);
                match (sep, tokens.get(j + 2)) {
                    (true, Some(TokenTree::Ident(id))) if id == "super" => {
                        root.pop();
                        j += 3;
                    }
                    _ => break,
                }
            }
            let mut paths = Vec::new();
            path_tail(&tokens, j, root, &mut paths);
            for path in paths {
                self.references.push(Reference {
                    from: module.clone(),
                    file: file.to_owned(),
                    line,
                    path,
                });
            }
            i = j;
        }
    }

    /// Where `path` leads: each module it goes through and the item it ends at (following `use`
    /// re-exports), with the first crate-private step on the way, if any. `None`: not resolved
    /// (a variant, a macro, a name the scan cannot follow).
    fn resolve(&self, path: &[String], depth: usize, reexported: bool) -> Option<Resolved> {
        let mut module: ModPath = vec![];
        let mut private: Option<String> = None;
        let mut i = 0;
        while i < path.len() {
            let seg = &path[i];
            let mut child = module.clone();
            child.push(seg.clone());
            if let Some(m) = self.modules.get(&child) {
                // A `pub use` re-exports an item out of a private module: the path it names is
                // public whatever the modules it goes through.
                if m.vis == Some(Vis::Restricted)
                    && private.is_none()
                    && !reexported
                    && !in_engine(&child)
                {
                    private = Some(format!("module `{}` is not `pub`", child.join("::")));
                }
                module = child;
                i += 1;
                continue;
            }
            let m = self.modules.get(&module)?;
            if let Some(v) = m.items.get(seg) {
                if *v == Vis::Restricted && private.is_none() {
                    private = Some(format!("`{}::{seg}` is not `pub`", module.join("::")));
                }
                // An associated item of a type: `Type::name`.
                if let Some(name) = path.get(i + 1)
                    && let Some(defs) = self.assoc.get(&(seg.clone(), name.clone()))
                    && defs.iter().all(|(_, v)| *v == Vis::Restricted)
                    && private.is_none()
                {
                    private = Some(format!("`{seg}::{name}` is not `pub`"));
                }
                return Some(Resolved { module, private });
            }
            if depth > 8 {
                return None;
            }
            if let Some((v, target)) = m.uses.get(seg) {
                // The engine's own `use`s are judged where they name the rest of the crate.
                if *v == Vis::Restricted && private.is_none() && !in_engine(&module) {
                    private = Some(format!(
                        "`{}::{seg}` is a crate-private re-export",
                        module.join("::")
                    ));
                }
                let mut full = target.clone();
                full.extend(path[i + 1..].iter().cloned());
                let r = self.resolve(&full, depth + 1, *v == Vis::Public)?;
                return Some(Resolved {
                    module: r.module,
                    private: private.or(r.private),
                });
            }
            for (v, target) in &m.globs {
                let mut full = target.clone();
                full.extend(path[i..].iter().cloned());
                if let Some(r) = self.resolve(&full, depth + 1, *v == Vis::Public) {
                    let private = private.or_else(|| {
                        (*v == Vis::Restricted).then(|| {
                            format!(
                                "`{}::{seg}` is a crate-private re-export",
                                module.join("::")
                            )
                        })
                    });
                    return Some(Resolved {
                        module: r.module,
                        private: private.or(r.private),
                    });
                }
            }
            return None;
        }
        Some(Resolved { module, private })
    }

    /// Each reference, with the names a `use` binds in its module followed too.
    /// A path the scan cannot follow to its item counts for the deepest module it names.
    fn resolved_references(&self) -> Vec<(&Reference, Resolved)> {
        self.references
            .iter()
            .map(|r| {
                let resolved = self.resolve(&r.path, 0, false).unwrap_or_else(|| {
                    let mut module = vec![];
                    for seg in &r.path {
                        module.push(seg.clone());
                        if !self.modules.contains_key(&module) {
                            module.pop();
                            break;
                        }
                    }
                    Resolved {
                        module,
                        private: None,
                    }
                });
                (r, resolved)
            })
            .collect()
    }
}

#[derive(Debug)]
struct Resolved {
    /// The module the path ends in (where its item is defined).
    module: ModPath,
    private: Option<String>,
}

fn is_colons(tokens: &[TokenTree], j: usize) -> bool {
    matches!(
        (tokens.get(j), tokens.get(j + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':'
    )
}

/// The paths that continue `prefix` at `tokens[j..]` (`::a::b`, `::{a, b::c}`).
fn path_tail(tokens: &[TokenTree], mut j: usize, mut prefix: ModPath, out: &mut Vec<ModPath>) {
    loop {
        if !is_colons(tokens, j) {
            break;
        }
        match tokens.get(j + 2) {
            Some(TokenTree::Ident(id)) if id != "self" => {
                prefix.push(id.to_string());
                j += 3;
            }
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                for part in inner.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                {
                    let mut p = prefix.clone();
                    match part.first() {
                        Some(TokenTree::Ident(id)) if id == "self" => {}
                        Some(TokenTree::Ident(id)) => {
                            p.push(id.to_string());
                            path_tail(part, 1, p, out);
                            continue;
                        }
                        _ => {}
                    }
                    out.push(p);
                }
                return;
            }
            _ => break,
        }
    }
    out.push(prefix);
}

/// The names a `use` tree binds (`None` for a glob), to absolute paths. Only trees rooted at
/// the crate (`crate`, `super`, `self`, `dyno_core`) are followed.
fn use_tree(
    module: &ModPath,
    prefix: Option<&[String]>,
    tree: &UseTree,
    out: &mut Vec<(Option<String>, ModPath)>,
) {
    let join = |seg: &str| -> Option<ModPath> {
        match prefix {
            None => match seg {
                "crate" | "dyno_core" => Some(vec![]),
                "super" => Some(module[..module.len().saturating_sub(1)].to_vec()),
                "self" => Some(module.clone()),
                _ => None,
            },
            Some(prefix) if seg == "super" => {
                Some(prefix[..prefix.len().saturating_sub(1)].to_vec())
            }
            Some(prefix) => {
                let mut p = prefix.to_vec();
                p.push(seg.to_owned());
                Some(p)
            }
        }
    };
    match tree {
        UseTree::Path(p) => {
            if let Some(next) = join(&p.ident.to_string()) {
                use_tree(module, Some(&next), &p.tree, out);
            }
        }
        UseTree::Name(n) if n.ident == "self" => {
            if let Some(prefix) = prefix
                && let Some(last) = prefix.last()
            {
                out.push((Some(last.clone()), prefix.to_vec()));
            }
        }
        UseTree::Name(n) => {
            if prefix.is_some() {
                out.push((
                    Some(n.ident.to_string()),
                    join(&n.ident.to_string()).unwrap(),
                ));
            }
        }
        UseTree::Rename(r) => {
            if prefix.is_some() {
                out.push((
                    Some(r.rename.to_string()),
                    join(&r.ident.to_string()).unwrap(),
                ));
            }
        }
        UseTree::Glob(_) => {
            if let Some(prefix) = prefix {
                out.push((None, prefix.to_vec()));
            }
        }
        UseTree::Group(g) => {
            for t in &g.items {
                use_tree(module, prefix, t, out);
            }
        }
    }
}

const ENGINE: [&str; 2] = ["store", "memory"];

fn in_engine(path: &ModPath) -> bool {
    path.len() >= 2 && path[..2] == ENGINE
}

fn location(r: &Reference) -> String {
    let file = r.file.strip_prefix(src()).unwrap_or(&r.file);
    format!("src/{}:{}", file.display(), r.line)
}

/// The engine's reach outside itself, one line per crate-private path it names.
fn engine_violations(krate: &Crate) -> Vec<String> {
    let mut found = BTreeSet::new();
    for (r, resolved) in krate.resolved_references() {
        if !in_engine(&r.from) || in_engine(&resolved.module) {
            continue;
        }
        // A path through the engine's own modules into the rest of the crate is judged by
        // where it ends; a path from outside is judged by every step.
        if let Some(why) = &resolved.private {
            found.insert(format!(
                "{}: `crate::{}`: {why}",
                location(r),
                r.path.join("::")
            ));
        }
    }
    // A method is called through a value, whose type the scan does not know: a call counts when
    // the calling module names (imports) a type of the crate whose method of that name is
    // crate-private.
    for (from, file, line, name) in &krate.calls {
        if !in_engine(from) {
            continue;
        }
        let Some(uses) = krate.modules.get(from).map(|m| &m.uses) else {
            continue;
        };
        for (ty, (_, target)) in uses {
            let Some(defs) = krate.assoc.get(&(ty.clone(), name.clone())) else {
                continue;
            };
            let owner = krate.resolve(target, 0, false).map(|r| r.module);
            let private = defs
                .iter()
                .filter(|(m, _)| owner.as_ref() == Some(m))
                .any(|(m, v)| *v == Vis::Restricted && !in_engine(m));
            if private {
                let file = file.strip_prefix(src()).unwrap_or(file);
                found.insert(format!(
                    "src/{}:{line}: `.{name}(..)`: `{ty}::{name}` (in `{}`) is not `pub`",
                    file.display(),
                    owner.unwrap_or_default().join("::")
                ));
            }
        }
    }
    found.into_iter().collect()
}

/// The top-level module each module's code names, with one place that names it.
fn module_edges(krate: &Crate) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (r, resolved) in krate.resolved_references() {
        let (Some(from), Some(to)) = (r.from.first(), resolved.module.first()) else {
            continue;
        };
        if from != to {
            edges
                .entry(from.clone())
                .or_default()
                .entry(to.clone())
                .or_insert_with(|| format!("{} (`crate::{}`)", location(r), r.path.join("::")));
        }
    }
    edges
}

/// A cycle in `edges`, as the modules along it, if there is one.
fn find_cycle(edges: &BTreeMap<String, BTreeMap<String, String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeMap<String, String>>,
        state: &mut HashMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flat_map(|e| e.keys()) {
            match state.get(next) {
                Some(1) => {
                    let at = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(next, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = HashMap::new();
    for node in edges.keys() {
        if !state.contains_key(node)
            && let Some(c) = visit(node, edges, &mut state, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_engine_uses_only_the_public_api_of_the_rest_of_the_crate() {
    let krate = Crate::load();
    assert!(
        krate
            .modules
            .contains_key(ENGINE.map(String::from).as_slice()),
        "the engine (src/store/memory) was not found: {:?}",
        krate.modules.keys().collect::<Vec<_>>()
    );
    let violations = engine_violations(&krate);
    assert!(
        violations.is_empty(),
        "MemoryStore's engine (src/store/memory/) must use only dyno-core's public API, so that \
         it stays behind its boundary (feature `memory`). It names crate-private items outside \
         itself:\n  {}\nMake each of them public API (documented), or move it into the engine.",
        violations.join("\n  ")
    );
}

/// The imports that still go up a layer, each closing a cycle: none. The test takes them out of
/// the graph before it looks for a cycle, so any other import that closes one fails it; an entry
/// whose import is gone must leave this list (the test says so), so the list can only shrink,
/// and it is empty. An import that closes a cycle is fixed by moving the type it borrows to the
/// layer that owns it (as `Item` and `WriteRequest` moved below `error`, into `item.rs`), not by
/// listing it here.
const KNOWN_BACK_EDGES: &[(&str, &str)] = &[];

#[test]
fn the_top_level_modules_import_each_other_without_a_cycle() {
    let krate = Crate::load();
    let mut edges = module_edges(&krate);
    let mut gone = Vec::new();
    for (from, to) in KNOWN_BACK_EDGES {
        if edges.get_mut(*from).and_then(|e| e.remove(*to)).is_none() {
            gone.push(format!("{from} -> {to}"));
        }
    }
    assert!(
        gone.is_empty(),
        "these imports are gone: take them out of KNOWN_BACK_EDGES in {}: {}",
        file!(),
        gone.join(", ")
    );
    if let Some(cycle) = find_cycle(&edges) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("{} -> {}: {}", w[0], w[1], edges[&w[0]][&w[1]]))
            .collect();
        panic!(
            "dyno-core's modules import each other in a cycle: {}\n  {}\nMove the type one of \
             them borrows to the layer that owns it (ARCHITECTURE.md, \"The layers\"), so imports \
             go one way.",
            cycle.join(" -> "),
            steps.join("\n  ")
        );
    }
}

/// The scan itself: it sees a crate-private item reached from the engine, through `use` and
/// through a full path, and a cycle.
#[test]
fn the_scan_finds_what_it_looks_for() {
    let mut krate = Crate::default();
    let file = src().join("store/memory/mod.rs");
    for (path, v) in [
        (vec![], Vis::Public),
        (vec!["store"], Vis::Public),
        (vec!["store", "memory"], Vis::Restricted),
        (vec!["value"], Vis::Public),
    ] {
        krate.modules.insert(
            path.into_iter().map(String::from).collect(),
            Module {
                vis: Some(v),
                ..Module::default()
            },
        );
    }
    let items: syn::File = syn::parse_quote! {
        pub(crate) fn hidden() {}
        pub fn shown() {}
        pub struct Ty;
        impl Ty { pub(crate) fn secret() {} pub fn open() {} }
    };
    krate.load_items(&vec!["value".into()], &file, &items.items);
    let engine: syn::File = syn::parse_quote! {
        use crate::value::{hidden, shown};
        fn f() { hidden(); shown(); crate::value::Ty::open(); crate::value::Ty::secret(); }
    };
    krate.load_items(&vec!["store".into(), "memory".into()], &file, &engine.items);
    krate.scan_all();
    let found = engine_violations(&krate);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].contains("value::hidden") || found[1].contains("value::hidden"));
    assert!(found.iter().any(|f| f.contains("Ty::secret")), "{found:#?}");
    let value: syn::File = syn::parse_quote! { fn g() { crate::store::x(); } };
    krate.load_items(&vec!["value".into()], &file, &value.items);
    krate.scan_all();
    let cycle = find_cycle(&module_edges(&krate));
    assert_eq!(
        cycle.as_deref(),
        Some(&["store".to_owned(), "value".into(), "store".into()][..])
    );
}
