//! No two files of `src/` import each other, directly or in a ring: every `crate::`,
//! `super::` and `self::` path in a file (comments and strings aside) is resolved to the
//! file that defines what it names (through `pub use` re-exports), and the graph of those
//! edges must have no cycle, nor the same graph between the top-level modules (the layers
//! of DESIGN §0). A module file declaring `mod child;` is not an import of it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A module path (`["crowd", "lod", "plan"]`), `[]` for the crate root.
type ModPath = Vec<String>;

/// Every `.rs` file under `src`, with its path relative to it.
fn rust_files(src: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(src).unwrap().to_path_buf();
                out.push((rel, path));
            }
        }
    }
    out
}

fn module_files(src: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut out = BTreeMap::new();
    for (rel, path) in rust_files(src) {
        let rel = rel.with_extension("");
        let mut parts: ModPath = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        // `main.rs` is the binary's root, not the library's: its own crate.
        if rel == Path::new("main") || rel.starts_with("commands") || rel.starts_with("cli") {
            continue;
        }
        out.insert(parts, path);
    }
    out
}

/// The source without comments, string contents and inline test modules (whose `super`
/// is the file itself).
fn code_of(source: &str) -> String {
    let code = without_comments(source);
    match code.find("mod tests {") {
        Some(at) => {
            let chars: Vec<char> = code.chars().collect();
            let open = code[..at + "mod tests {".len() - 1].chars().count();
            let end = matching_brace(&chars, open);
            chars[..code[..at].chars().count()]
                .iter()
                .chain(&chars[end + 1..])
                .collect()
        }
        None => code,
    }
}

fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if source[i..].starts_with("//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if source[i..].starts_with("/*") {
            i += source[i..].find("*/").map_or(bytes.len() - i, |e| e + 2);
        } else if bytes[i] == b'"' {
            out.push('"');
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            out.push('"');
            i += 1;
        } else {
            out.push(bytes[i] as char);
            i += 1;
        }
    }
    out
}

/// Every path starting with `crate`, `super` or `self`, with `a::{b, c}` groups expanded.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    let chars: Vec<char> = code.chars().collect();
    while i < chars.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|p| code_at(&chars, i, p))
            && (i == 0 || !ident(chars[i - 1]));
        if !starts {
            i += 1;
            continue;
        }
        // Read `a::b::c` and an optional `::{...}` group.
        let mut segments = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < chars.len() && ident(chars[j]) {
                j += 1;
            }
            segments.push(chars[start..j].iter().collect::<String>());
            if code_at(&chars, j, "::") {
                j += 2;
                if j < chars.len() && chars[j] == '{' {
                    let end = matching_brace(&chars, j);
                    let inner: String = chars[j + 1..end].iter().collect();
                    for item in split_top(&inner) {
                        let item = item.split(" as ").next().unwrap_or("").trim();
                        let mut p = segments.clone();
                        if item != "self" && !item.is_empty() {
                            p.extend(
                                item.split("::")
                                    .map(|s| s.trim().trim_start_matches('{').trim().to_string()),
                            );
                        }
                        out.push(p);
                    }
                    segments.clear();
                    j = end + 1;
                    break;
                }
                continue;
            }
            break;
        }
        if !segments.is_empty() {
            out.push(segments);
        }
        i = j.max(i + 1);
    }
    out
}

fn code_at(chars: &[char], i: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| chars.get(i + k) == Some(&c))
}

fn matching_brace(chars: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    chars.len() - 1
}

/// Top-level comma-separated items of a `{...}` group.
fn split_top(inner: &str) -> Vec<String> {
    let (mut out, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

struct Graph {
    files: BTreeMap<ModPath, PathBuf>,
    /// Per module, the names it re-exports (`pub use`) and the path each stands for.
    reexports: HashMap<ModPath, HashMap<String, Vec<String>>>,
}

impl Graph {
    /// The longest prefix of `path` that is a module with a file, and the rest.
    fn split<'a>(&self, path: &'a [String]) -> Option<(ModPath, &'a [String])> {
        (0..=path.len())
            .rev()
            .find(|&n| self.files.contains_key(&path[..n]))
            .map(|n| (path[..n].to_vec(), &path[n..]))
    }

    /// The file module that `path`, written in `from`, names an item of.
    fn resolve(&self, from: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        let mut base = match first.as_str() {
            "crate" => Vec::new(),
            "self" => from.clone(),
            "super" => from[..from.len().checked_sub(1)?].to_vec(),
            _ => return None,
        };
        let mut rest = rest;
        while rest.first().map(String::as_str) == Some("super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        let (module, rest) = self.split(&base)?;
        if depth < 8
            && let Some(target) = rest
                .first()
                .and_then(|name| self.reexports.get(&module)?.get(name))
        {
            let mut target = target.clone();
            target.extend(rest[1..].iter().cloned());
            if let Some(m) = self.resolve(&module, &target, depth + 1) {
                return Some(m);
            }
        }
        Some(module)
    }
}

#[test]
fn no_module_imports_itself_through_others() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = module_files(&src);
    let code: BTreeMap<ModPath, String> = files
        .iter()
        .map(|(m, p)| (m.clone(), code_of(&std::fs::read_to_string(p).unwrap())))
        .collect();
    let mut reexports: HashMap<ModPath, HashMap<String, Vec<String>>> = HashMap::new();
    for (m, c) in &code {
        for stmt in c.split(';') {
            let Some(at) = stmt
                .find("pub use ")
                .or_else(|| stmt.find("pub(crate) use "))
            else {
                continue;
            };
            let body = stmt[at..]
                .split_once("use ")
                .map(|x| x.1)
                .unwrap_or("")
                .trim()
                .to_string();
            let body = if body.starts_with("crate::") || body.starts_with("super::") {
                body
            } else {
                format!("self::{body}")
            };
            for p in paths_in(&body) {
                if let Some(name) = p.last() {
                    reexports
                        .entry(m.clone())
                        .or_default()
                        .insert(name.clone(), p.clone());
                }
            }
        }
    }
    let graph = Graph { files, reexports };
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (m, c) in &code {
        for p in paths_in(c) {
            if let Some(to) = graph.resolve(m, &p, 0)
                && &to != m
            {
                edges.entry(m.clone()).or_default().insert(to);
            }
        }
    }
    // Cycles: every module from which it can get back to itself.
    let name = |m: &ModPath| {
        if m.is_empty() {
            "lib".to_string()
        } else {
            m.join("/")
        }
    };
    let mut rings = Vec::new();
    for start in graph.files.keys() {
        // Depth-first search for a path back to `start`, keeping the way there.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, way)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    rings.push(
                        way.iter()
                            .chain([start])
                            .map(name)
                            .collect::<Vec<_>>()
                            .join(" -> "),
                    );
                } else if seen.insert(next.clone()) {
                    let mut longer = way.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    assert!(rings.is_empty(), "import circles:\n{}", rings.join("\n"));
    // The resolver must see the edges it is meant to see (a test that cannot fail is none).
    let edge_count: usize = edges.values().map(BTreeSet::len).sum();
    assert!(
        edge_count > 300,
        "only {edge_count} edges found: the resolver is broken"
    );
    assert!(
        edges
            .get(&vec!["crowd".to_string(), "trace".to_string()])
            .is_some_and(|e| e.contains(&vec!["crowd".to_string(), "crew".to_string()])),
        "crowd/trace's import of crowd/crew was not found"
    );
    // The layers (DESIGN §0): the same graph between the top-level modules of `src/`, where
    // an upward import shows as a ring even when no two files form one.
    let top = |m: &ModPath| m.first().cloned().unwrap_or_else(|| "lib".to_string());
    let mut layers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in &edges {
        for to in tos {
            if top(from) != top(to) {
                layers.entry(top(from)).or_default().insert(top(to));
            }
        }
    }
    let reaches = |from: &str, to: &str| {
        let mut stack = vec![from.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(at) = stack.pop() {
            if at == to {
                return true;
            }
            if seen.insert(at.clone()) {
                stack.extend(layers.get(&at).into_iter().flatten().cloned());
            }
        }
        false
    };
    let mut layer_rings = Vec::new();
    for (from, tos) in &layers {
        for to in tos {
            if from < to && reaches(to, from) {
                layer_rings.push(format!("{from} <-> {to}"));
            }
        }
    }
    assert!(
        layer_rings.is_empty(),
        "top-level modules that import each other, directly or through others:\n{}",
        layer_rings.join("\n")
    );
}

/// The files that may begin a GPU pass: the pass context, which every pass of the frame
/// records through (so each dispatch and draw lies inside a declared pass, timed under its
/// row), and the window's own drawing into the swapchain (the panel, the loading screen
/// and the blit of the finished frame), which is no part of the frame.
const MAY_BEGIN_PASSES: &[&str] = &["gpu/pass.rs", "gpu/blit.rs", "ui/app.rs", "ui/loading.rs"];

/// Where in `src/` (comments and strings aside) a pass is begun outside [`MAY_BEGIN_PASSES`].
fn passes_begun_outside(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (rel, path) in rust_files(src) {
        let rel = rel.to_string_lossy().replace('\\', "/");
        if MAY_BEGIN_PASSES.contains(&rel.as_str()) {
            continue;
        }
        let code = without_comments(&std::fs::read_to_string(&path).unwrap());
        for call in ["begin_compute_pass", "begin_render_pass"] {
            if code.contains(call) {
                found.push(format!("{rel}: {call}"));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_pass_is_begun_by_the_pass_context() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = passes_begun_outside(&src);
    assert!(
        found.is_empty(),
        "passes begun outside PassContext (record them with PassContext::compute or \
         ::render under a declared GpuPassSpec, with a row of their own):\n{}",
        found.join("\n")
    );
    // The rule finds what it is for: a pass begun in a file of the frame's.
    let planted = std::env::temp_dir().join(format!("skinbench-planted-{}", std::process::id()));
    std::fs::create_dir_all(planted.join("gpu")).unwrap();
    std::fs::write(
        planted.join("gpu/stray.rs"),
        "fn f(e: &mut wgpu::CommandEncoder) { let _ = e.begin_compute_pass(&Default::default()); }",
    )
    .unwrap();
    std::fs::write(planted.join("gpu/pass.rs"), "fn begin_compute_pass() {}").unwrap();
    let planted_found = passes_begun_outside(&planted);
    std::fs::remove_dir_all(&planted).ok();
    assert_eq!(planted_found, ["gpu/stray.rs: begin_compute_pass"]);
}
