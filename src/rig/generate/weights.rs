//! Welded normals and skin weights: inverse distance to the bone segments, cut to the
//! influence shares of the test character of Stefan Reinalter's "Adventures in data-oriented design – Part 4: Skinning it to 11".

use super::*;

/// Distance from `p` to the segment `a..b`.
pub(super) fn segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-12)).clamp(0.0, 1.0);
    (a + ab * t - p).length()
}

pub(super) fn finish_mesh(b: MeshBuilder, groups: &WeightGroups, joints: &JointTable) -> Mesh {
    let geo_count = b.positions.len();

    // Smooth normals on the welded surface, area-weighted.
    let mut normal_sums = vec![Vec3::ZERO; geo_count];
    let triangles: Vec<[Corner; 3]> = b
        .faces
        .iter()
        .flat_map(|f| {
            if f.len() == 4 {
                vec![[f[0], f[1], f[2]], [f[0], f[2], f[3]]]
            } else {
                vec![[f[0], f[1], f[2]]]
            }
        })
        .collect();
    for t in &triangles {
        let [a, bb, c] = t.map(|c| b.positions[c.vertex as usize]);
        let n = (bb - a).cross(c - a);
        for corner in t {
            normal_sums[corner.vertex as usize] += n;
        }
    }

    // Raw weights: inverse distance (power 6) to the bone segments of the group's joints.
    let mut geo_influences: Vec<Vec<(u16, f32)>> = Vec::with_capacity(geo_count);
    for (v, &p) in b.positions.iter().enumerate() {
        let mut list: Vec<(u16, f32)> = groups.groups[b.vertex_group[v]]
            .iter()
            .filter_map(|&j| {
                let def = &joints.defs[j];
                def.segment_end.map(|end| {
                    let d = segment_distance(p, def.position, end) + 0.004;
                    {
                        let d2 = d * d;
                        (j as u16, 1.0 / (d2 * d2 * d2))
                    }
                })
            })
            .collect();
        list.sort_by(|a, bb| bb.1.total_cmp(&a.1).then(a.0.cmp(&bb.0)));
        list.truncate(4);
        let total: f32 = list.iter().map(|x| x.1).sum();
        for x in &mut list {
            x.1 /= total;
        }
        geo_influences.push(list);
    }

    // Final vertices: one per (welded vertex, chart, uv).
    let mut final_of: HashMap<(u32, u16, u32, u32), u32> = HashMap::new();
    let mut final_geo: Vec<u32> = Vec::new();
    let mut final_uv: Vec<Vec2> = Vec::new();
    let mut indices: Vec<u32> = Vec::with_capacity(triangles.len() * 3);
    for t in &triangles {
        for c in t {
            let key = (c.vertex, c.chart, c.uv.x.to_bits(), c.uv.y.to_bits());
            let index = *final_of.entry(key).or_insert_with(|| {
                final_geo.push(c.vertex);
                final_uv.push(c.uv);
                (final_geo.len() - 1) as u32
            });
            indices.push(index);
        }
    }
    let mut copies = vec![0usize; geo_count];
    for &g in &final_geo {
        copies[g as usize] += 1;
    }

    // Influence classes by weighted quantiles of "mixedness" (1 - heaviest weight).
    let mut order: Vec<usize> = (0..geo_count).filter(|&g| copies[g] > 0).collect();
    order.sort_by(|&x, &y| {
        let mx = 1.0 - geo_influences[x][0].1;
        let my = 1.0 - geo_influences[y][0].1;
        mx.total_cmp(&my).then(x.cmp(&y))
    });
    let total_final = final_geo.len() as f32;
    let mut class_of = vec![1usize; geo_count];
    let class_edges: Vec<f32> = INFLUENCE_SHARES
        .iter()
        .scan(0.0, |sum, share| {
            *sum += share;
            Some(*sum)
        })
        .collect();
    let mut cumulative = 0usize;
    for &g in &order {
        let fraction = (cumulative as f32 + 0.5 * copies[g] as f32) / total_final;
        let class = 1 + class_edges.iter().position(|&e| fraction < e).unwrap_or(3);
        class_of[g] = class.min(geo_influences[g].len());
        cumulative += copies[g];
    }

    let mut mesh = Mesh {
        positions: Vec::with_capacity(final_geo.len()),
        normals: Vec::with_capacity(final_geo.len()),
        uvs: final_uv,
        joints: Vec::with_capacity(final_geo.len()),
        weights: Vec::with_capacity(final_geo.len()),
        indices,
    };
    for &g in &final_geo {
        let g = g as usize;
        mesh.positions.push(b.positions[g]);
        mesh.normals
            .push(normal_sums[g].try_normalize().unwrap_or(Vec3::Y));
        let kept = &geo_influences[g][..class_of[g]];
        let total: f32 = kept.iter().map(|x| x.1).sum();
        let mut j = [0u16; MAX_INFLUENCES];
        let mut w = [0f32; MAX_INFLUENCES];
        for (k, &(joint, weight)) in kept.iter().enumerate() {
            j[k] = joint;
            w[k] = weight / total;
        }
        mesh.joints.push(j);
        mesh.weights.push(w);
    }
    mesh
}
