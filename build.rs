// Records the compiler version for benchmark reports, and a hash of the source the
// measurements cached on disk come from (the cache's code version: any change to the
// crate's code or its locked dependencies makes the cached measurements stale).
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SKINBENCH_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-changed=build.rs");

    let mut files = Vec::new();
    rust_files(Path::new("src"), &mut files);
    files.sort();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    version.hash(&mut hasher);
    for path in files
        .iter()
        .map(PathBuf::as_path)
        .chain([Path::new("Cargo.lock")])
    {
        path.hash(&mut hasher);
        std::fs::read(path).unwrap_or_default().hash(&mut hasher);
    }
    println!(
        "cargo:rustc-env=SKINBENCH_SOURCE_HASH={:016x}",
        hasher.finish()
    );
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
