//! The one shape every compute pass here binds: a uniform parameter block, then storage
//! buffers (at most four, what every adapter offers), and the pipeline layout around it.

/// A bind-group layout for compute: binding 0 a uniform block of `uniform_bytes` (read at
/// a dynamic offset where `dynamic_offset`: one block per range or level), then bindings
/// 1.. one storage buffer each, read-only where `storage_read_only` says; and the
/// pipeline layout of that one group.
pub fn compute_layouts(
    device: &wgpu::Device,
    label: &str,
    uniform_bytes: u64,
    dynamic_offset: bool,
    storage_read_only: &[bool],
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic_offset,
            min_binding_size: wgpu::BufferSize::new(uniform_bytes),
        },
        count: None,
    }];
    for (k, &read_only) in storage_read_only.iter().enumerate() {
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: k as u32 + 1,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        });
    }
    let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(&bind_layout)],
        immediate_size: 0,
    });
    (bind_layout, layout)
}

/// The compute pipeline of `module`'s entry point `entry` with `layout`, labelled by the
/// entry point.
pub fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}
