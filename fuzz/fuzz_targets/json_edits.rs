//! The edits the structure-aware targets make to the JSON of a valid rig (the built-in one
//! or a public one): numbers (counts, offsets, strides, indices, component types),
//! elements removed or repeated, enum strings swapped, fields added, children added to
//! nodes (cycles, second parents, self-parents) and bytes of the binary chunk changed. Most
//! edited files still parse, so the fuzzer spends its time in the importer's checks rather
//! than in the JSON parser.

#![allow(dead_code)]

use super::exercise::Choice;
use arbitrary::Arbitrary;
use serde_json::Value;

#[derive(Debug, Arbitrary)]
pub struct Input {
    seed: u8,
    edits: Vec<Edit>,
    pub choice: Choice,
}

#[derive(Debug, Arbitrary)]
enum Edit {
    /// Replace the `site`-th number (in document order) by `value`.
    SetNumber { site: u16, value: NumberChoice },
    /// Copy one number over another (an index pointing at another object, a count taken
    /// from a different accessor).
    CopyNumber { from: u16, to: u16 },
    /// Remove an element of the `site`-th array or a member of the `site`-th object.
    Remove { site: u16, index: u8 },
    /// Repeat an element of the `site`-th array.
    Duplicate { site: u16, index: u8 },
    /// Replace the `site`-th string by one of glTF's enum strings.
    SetString { site: u16, choice: u8 },
    /// Add a numeric member the file did not have (`byteStride`, `skeleton`, ...).
    AddMember {
        object: u16,
        key: u8,
        value: NumberChoice,
    },
    /// Add `child` to node `node`'s children.
    AddChild { node: u8, child: u8 },
    /// Overwrite one byte of the binary chunk.
    BinByte { offset: u32, value: u8 },
}

#[derive(Debug, Arbitrary)]
enum NumberChoice {
    Small(u8),
    Signed(i32),
    Boundary(u8),
    Offset(i16),
    Scale(u8),
    Float(f64),
}

const BOUNDARIES: &[f64] = &[
    0.0,
    1.0,
    -1.0,
    2.0,
    3.0,
    4.0,
    255.0,
    256.0,
    65_535.0,
    65_536.0,
    2_147_483_647.0,
    4_294_967_295.0,
    4_294_967_296.0,
    9_007_199_254_740_992.0,
    -2_147_483_648.0,
    1e308,
    -0.0,
    0.5,
    1e-40,
    5120.0,
    5121.0,
    5122.0,
    5123.0,
    5125.0,
    5126.0,
];

const SCALES: &[f64] = &[0.0, 2.0, 4.0, 16.0, 1000.0, 1e6, -1.0, 0.25];

const STRINGS: &[&str] = &[
    "SCALAR",
    "VEC2",
    "VEC3",
    "VEC4",
    "MAT2",
    "MAT3",
    "MAT4",
    "translation",
    "rotation",
    "scale",
    "weights",
    "LINEAR",
    "STEP",
    "CUBICSPLINE",
    "POSITION",
    "NORMAL",
    "JOINTS_0",
    "WEIGHTS_0",
    "JOINTS_1",
    "WEIGHTS_1",
    "",
];

const KEYS: &[&str] = &[
    "byteStride",
    "byteOffset",
    "count",
    "skeleton",
    "inverseBindMatrices",
    "bufferView",
    "indices",
    "mode",
    "skin",
    "mesh",
    "scene",
    "normalized",
];

struct Seed {
    name: &'static str,
    bytes: &'static [u8],
}

const SEEDS: &[Seed] = &[
    Seed {
        name: "reference.glb",
        bytes: skinbench::REFERENCE_RIG_GLB,
    },
    Seed {
        name: "SimpleSkin.gltf",
        bytes: include_bytes!("../../../shared/rigs/SimpleSkin/SimpleSkin.gltf"),
    },
    Seed {
        name: "RiggedSimple.gltf",
        bytes: include_bytes!("../../../shared/rigs/RiggedSimple/RiggedSimple.gltf"),
    },
    Seed {
        name: "Fox.glb",
        bytes: include_bytes!("../../../shared/rigs/Fox/Fox.glb"),
    },
    Seed {
        name: "Fox_nonuniform.glb",
        bytes: include_bytes!("../../../shared/rigs/FoxVariants/Fox_nonuniform.glb"),
    },
    Seed {
        name: "Fox_cubicspline.glb",
        bytes: include_bytes!("../../../shared/rigs/FoxVariants/Fox_cubicspline.glb"),
    },
    Seed {
        name: "Fox_8influences.glb",
        bytes: include_bytes!("../../../shared/rigs/FoxVariants/Fox_8influences.glb"),
    },
    Seed {
        name: "CesiumMan.glb",
        bytes: include_bytes!("../../../shared/rigs/CesiumMan/CesiumMan.glb"),
    },
];

/// A seed split into its JSON and binary chunk (none for `.gltf`).
fn split(bytes: &[u8]) -> (&[u8], Option<&[u8]>) {
    if !bytes.starts_with(b"glTF") {
        return (bytes, None);
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json = &bytes[20..20 + json_len];
    let bin_at = 20 + json_len;
    let bin = (bin_at + 8 <= bytes.len()).then(|| &bytes[bin_at + 8..bin_at + 8 + u32_at(bin_at)]);
    (json, bin)
}

fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let json_padded = json.len().next_multiple_of(4);
    let bin_padded = bin.len().next_multiple_of(4);
    let total = 12 + 8 + json_padded + 8 + bin_padded;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_padded as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(20 + json_padded, b' ');
    out.extend_from_slice(&(bin_padded as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(bin);
    out.resize(total, 0);
    out
}

#[derive(Default)]
struct Sites {
    numbers: Vec<String>,
    strings: Vec<String>,
    arrays: Vec<String>,
    objects: Vec<String>,
}

fn collect(value: &Value, pointer: &mut String, sites: &mut Sites) {
    let len = pointer.len();
    match value {
        Value::Number(_) => sites.numbers.push(pointer.clone()),
        Value::String(_) => sites.strings.push(pointer.clone()),
        Value::Array(items) => {
            sites.arrays.push(pointer.clone());
            // Long data arrays (a .gltf's inline matrices) would swamp the structural
            // sites; their first few elements are enough.
            for (i, item) in items.iter().enumerate().take(64) {
                pointer.push_str(&format!("/{i}"));
                collect(item, pointer, sites);
                pointer.truncate(len);
            }
        }
        Value::Object(members) => {
            sites.objects.push(pointer.clone());
            for (key, item) in members {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                collect(item, pointer, sites);
                pointer.truncate(len);
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

fn number(choice: &NumberChoice, original: f64) -> Value {
    let x = match *choice {
        NumberChoice::Small(n) => f64::from(n),
        NumberChoice::Signed(n) => f64::from(n),
        NumberChoice::Boundary(i) => BOUNDARIES[usize::from(i) % BOUNDARIES.len()],
        NumberChoice::Offset(d) => original + f64::from(d),
        NumberChoice::Scale(i) => original * SCALES[usize::from(i) % SCALES.len()],
        NumberChoice::Float(x) => x,
    };
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn pick(sites: &[String], site: u16) -> Option<&str> {
    (!sites.is_empty()).then(|| sites[usize::from(site) % sites.len()].as_str())
}

fn apply(edit: &Edit, document: &mut Value, bin: &mut [u8]) {
    let mut sites = Sites::default();
    collect(document, &mut String::new(), &mut sites);
    match edit {
        Edit::SetNumber { site, value } => {
            if let Some(at) = pick(&sites.numbers, *site) {
                let target = document.pointer_mut(at).unwrap();
                *target = number(value, target.as_f64().unwrap_or(0.0));
            }
        }
        Edit::CopyNumber { from, to } => {
            if let (Some(from), Some(to)) = (pick(&sites.numbers, *from), pick(&sites.numbers, *to))
            {
                let value = document.pointer(from).unwrap().clone();
                *document.pointer_mut(to).unwrap() = value;
            }
        }
        Edit::Remove { site, index } => {
            let all: Vec<&String> = sites.arrays.iter().chain(&sites.objects).collect();
            if all.is_empty() {
                return;
            }
            let at = all[usize::from(*site) % all.len()].clone();
            match document.pointer_mut(&at).unwrap() {
                Value::Array(items) if !items.is_empty() => {
                    let i = usize::from(*index) % items.len();
                    items.remove(i);
                }
                Value::Object(members) if !members.is_empty() => {
                    let key = members
                        .keys()
                        .nth(usize::from(*index) % members.len())
                        .cloned();
                    members.remove(&key.unwrap());
                }
                _ => {}
            }
        }
        Edit::Duplicate { site, index } => {
            if let Some(at) = pick(&sites.arrays, *site)
                && let Value::Array(items) = document.pointer_mut(at).unwrap()
                && !items.is_empty()
            {
                let i = usize::from(*index) % items.len();
                let copy = items[i].clone();
                items.insert(i, copy);
            }
        }
        Edit::SetString { site, choice } => {
            if let Some(at) = pick(&sites.strings, *site) {
                let s = STRINGS[usize::from(*choice) % STRINGS.len()];
                *document.pointer_mut(at).unwrap() = Value::from(s);
            }
        }
        Edit::AddMember { object, key, value } => {
            if let Some(at) = pick(&sites.objects, *object)
                && let Value::Object(members) = document.pointer_mut(at).unwrap()
            {
                let key = KEYS[usize::from(*key) % KEYS.len()];
                members.insert(key.to_string(), number(value, 0.0));
            }
        }
        Edit::AddChild { node, child } => {
            if let Some(Value::Array(nodes)) = document.get_mut("nodes")
                && !nodes.is_empty()
            {
                let count = nodes.len();
                let child = usize::from(*child) % count;
                if let Value::Object(members) = &mut nodes[usize::from(*node) % count] {
                    let children = members
                        .entry("children")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(children) = children {
                        children.push(Value::from(child));
                    }
                }
            }
        }
        Edit::BinByte { offset, value } => {
            if !bin.is_empty() {
                let i = *offset as usize % bin.len();
                bin[i] = *value;
            }
        }
    }
}

/// The file `input`'s edits make of its seed, and the seed's name; with `small_only`, the
/// seeds are the small rigs alone (what a deep target can prepare and measure quickly).
pub fn edited(input: &Input, small_only: bool) -> (Vec<u8>, &'static str) {
    let seeds: Vec<&ParsedSeed> = parsed_seeds()
        .iter()
        .filter(|s| !small_only || s.len <= SMALL_SEED_BYTES)
        .collect();
    let seed = seeds[usize::from(input.seed) % seeds.len()];
    let mut document = seed.document.clone();
    let mut bin = seed.bin.clone();
    for edit in input.edits.iter().take(8) {
        apply(edit, &mut document, bin.as_deref_mut().unwrap_or(&mut []));
    }
    let json = serde_json::to_vec(&document).expect("a Value serializes");
    let bytes = match &bin {
        Some(bin) => glb(&json, bin),
        None => json,
    };
    // To turn a finding into a file for a regression test: run the target on it with
    // SKINBENCH_FUZZ_DUMP set to the file to write.
    if let Some(path) = std::env::var_os("SKINBENCH_FUZZ_DUMP") {
        std::fs::write(path, &bytes).expect("the dump file is writable");
    }
    (bytes, seed.name)
}

/// A seed as the edits start from it: parsed once per process, not once per input.
struct ParsedSeed {
    name: &'static str,
    len: usize,
    document: Value,
    bin: Option<Vec<u8>>,
}

/// A 1×1 PNG: what every seed's images become.
const TINY_PNG_URI: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// The seeds, parsed, with each image replaced by a 1×1 PNG in a `data:` URI. Decoding the
/// Fox's and CesiumMan's textures took most of each input's time (under the sanitizer's
/// coverage, the PNG unfilter and the colour conversion compare every byte); `import_images`
/// fuzzes the images themselves, so here an image only has to reach the importer.
fn parsed_seeds() -> &'static [ParsedSeed] {
    static SEEDS_PARSED: std::sync::OnceLock<Vec<ParsedSeed>> = std::sync::OnceLock::new();
    SEEDS_PARSED.get_or_init(|| {
        SEEDS
            .iter()
            .map(|seed| {
                let (json, bin) = split(seed.bytes);
                let mut document: Value =
                    serde_json::from_slice(json).expect("seed rigs are valid JSON");
                if let Some(Value::Array(images)) = document.get_mut("images") {
                    for image in images {
                        *image =
                            serde_json::json!({ "uri": TINY_PNG_URI, "mimeType": "image/png" });
                    }
                }
                ParsedSeed {
                    name: seed.name,
                    len: seed.bytes.len(),
                    document,
                    bin: bin.map(<[u8]>::to_vec),
                }
            })
            .collect()
    })
}

/// The largest seed a deep target edits: the two small rigs (SimpleSkin, RiggedSimple),
/// whose preparation, measurement and pose take a millisecond or two, not the Fox, the
/// built-in rig or CesiumMan, whose level measurements take a third of a second or more.
const SMALL_SEED_BYTES: usize = 30_000;
