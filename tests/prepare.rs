//! prepare: the sorted, split, float4 layouts describe the same mesh as the file.

mod common;

use skinbench::prepare::PreparedMesh;
use skinbench::rig::{Rig, import_path, import_slice};

fn rigs() -> Vec<(String, Rig)> {
    let mut rigs = vec![(
        "reference".to_string(),
        import_slice(
            include_bytes!("../assets/reference.glb"),
            "reference.glb",
            None,
        )
        .unwrap()
        .0,
    )];
    if let Some(dir) = common::rigs_dir() {
        for f in common::PUBLIC_RIGS {
            rigs.push((f.to_string(), import_path(&dir.join(f)).unwrap().0));
        }
    }
    rigs
}

#[test]
fn sorted_mesh_is_the_same_mesh() {
    for (name, rig) in rigs() {
        let mesh = &rig.mesh;
        let p = PreparedMesh::new(mesh, rig.skeleton.palette_len()).unwrap();
        let s = &p.sorted();
        assert_eq!(
            s.class_counts().iter().sum::<usize>(),
            mesh.vertex_count(),
            "{name}"
        );
        assert_eq!(*s.class_counts(), mesh.influence_histogram(), "{name}");
        assert_eq!(s.indices().len(), mesh.indices.len());
        // Every triangle corner has the same attributes before and after sorting.
        for (k, (&sorted_index, &file_index)) in s.indices().iter().zip(&mesh.indices).enumerate() {
            let o = s.original_of_sorted()[sorted_index as usize] as usize;
            assert_eq!(o, file_index as usize, "{name}: corner {k}");
            let v = &s.source()[sorted_index as usize];
            assert_eq!(v.position, mesh.positions[o].extend(1.0).to_array());
            assert_eq!(v.normal, mesh.normals[o].extend(0.0).to_array());
            assert_eq!(s.uvs()[sorted_index as usize], mesh.uvs[o].to_array());
        }
        // Classes are contiguous and in order, with their joints and weights packed.
        assert_eq!(
            s.joints().len(),
            (0..8).map(|c| s.class_counts()[c] * (c + 1)).sum::<usize>(),
            "{name}"
        );
        assert_eq!(
            s.weights().len(),
            (1..8).map(|c| s.class_counts()[c] * (c + 1)).sum::<usize>()
        );
        for c in 0..8 {
            for i in 0..s.class_counts()[c] {
                let sorted_vertex = s.class_start(c) + i;
                let o = s.original_of_sorted()[sorted_vertex] as usize;
                assert_eq!(
                    mesh.influence_count(o),
                    c + 1,
                    "{name}: vertex in the wrong class"
                );
                let n = c + 1;
                let joints = &s.joints()[s.joint_offset(c) + i * n..][..n];
                assert_eq!(joints, &mesh.joints[o][..n]);
                if c > 0 {
                    let weights = &s.weights()[s.weight_offset(c) + i * n..][..n];
                    assert_eq!(weights, &mesh.weights[o][..n]);
                }
            }
        }
        // The float4 stream is 16-byte aligned.
        assert_eq!(s.source().as_ptr() as usize % 16, 0);
        assert_eq!(p.source_f4().as_ptr() as usize % 16, 0);
        // The split and interleaved streams carry the file-order data.
        for v in 0..mesh.vertex_count() {
            assert_eq!(p.interleaved()[v].uv, mesh.uvs[v].to_array());
            assert_eq!(p.source_f3()[v].position, mesh.positions[v].to_array());
            assert_eq!(p.uvs()[v], mesh.uvs[v].to_array());
        }
    }
}

/// `distinct`'s input: each run's vertices are distinct, each is followed in sorted order by
/// copies with bit-identical skin input, and together they cover every sorted vertex.
#[test]
fn distinct_vertices_fold_exact_copies() {
    for (name, rig) in rigs() {
        let p = PreparedMesh::new(&rig.mesh, rig.skeleton.palette_len()).unwrap();
        let s = &p.sorted();
        let d = &s.distinct();
        // Skin input of sorted vertex `v`, bit for bit.
        let class_of = |v: usize| (0..8).rfind(|&c| s.class_start(c) <= v).unwrap();
        let sorted_input = |v: usize| {
            let c = class_of(v);
            let i = v - s.class_start(c);
            let n = c + 1;
            let weights = if c > 0 {
                s.weights()[s.weight_offset(c) + i * n..][..n].to_vec()
            } else {
                vec![]
            };
            (
                s.source()[v].position.map(f32::to_bits),
                s.source()[v].normal.map(f32::to_bits),
                s.joints()[s.joint_offset(c) + i * n..][..n].to_vec(),
                weights.iter().map(|w| w.to_bits()).collect::<Vec<_>>(),
            )
        };
        let (mut v, mut first, mut j, mut w) = (0, 0, 0, 0);
        let mut seen = std::collections::HashSet::new();
        let mut last_class = 0;
        for run in d.runs() {
            assert!(run.len > 0, "{name}: empty run");
            assert!(run.influences >= last_class, "{name}: classes out of order");
            last_class = run.influences;
            for _ in 0..run.len {
                let n = run.influences;
                let weights = if n > 1 {
                    let x = d.weights()[w..w + n].to_vec();
                    w += n;
                    x
                } else {
                    vec![]
                };
                let input = (
                    d.source()[first].position.map(f32::to_bits),
                    d.source()[first].normal.map(f32::to_bits),
                    d.joints()[j..j + n].to_vec(),
                    weights.iter().map(|w| w.to_bits()).collect::<Vec<_>>(),
                );
                assert!(
                    input
                        .2
                        .iter()
                        .all(|&joint| (joint as usize) < s.joint_bound()),
                    "{name}: joint past the sorted mesh's bound"
                );
                assert_eq!(class_of(v) + 1, n, "{name}: vertex {v} in the wrong run");
                for copy in v..v + 1 + run.copies {
                    assert_eq!(sorted_input(copy), input, "{name}: vertex {copy}");
                    // `pulled` draws the copy from this distinct vertex's result.
                    assert_eq!(
                        d.distinct_of_sorted()[copy] as usize,
                        first,
                        "{name}: distinct index of vertex {copy}"
                    );
                }
                assert!(seen.insert(input), "{name}: vertex {v} is not distinct");
                v += 1 + run.copies;
                first += 1;
                j += n;
            }
        }
        assert_eq!(v, s.source().len(), "{name}: runs do not cover the mesh");
        assert_eq!(d.output_len(), s.source().len());
        assert_eq!(d.distinct_of_sorted().len(), s.source().len());
        assert_eq!(
            (first, j, w),
            (d.source().len(), d.joints().len(), d.weights().len())
        );
        // The folding is real on the rigs it is for (UV seams), so this test cannot pass
        // on a fold that does nothing.
        if name == "reference" || name == "Fox/Fox.glb" {
            assert!(
                d.source().len() < s.source().len(),
                "{name}: nothing folded"
            );
        }
    }
}
