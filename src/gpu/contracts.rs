//! Which Rust type each struct a shader shares with the CPU is: the list the reflection test
//! (`tests/contracts.rs`) checks, member by member, against the composed shaders.
//!
//! How it works: every such type is declared with [`crate::gpu_struct!`] beside the code
//! that writes or reads it; this list names each with the shader that declares it. A
//! shader that binds a struct missing here fails the test too.

use super::shaders::Shader;

/// Every struct a shader shares with the CPU: the shader, and the layout of the Rust type
/// the CPU reads or writes it as. `tests/contracts.rs` checks each against the shader.
pub fn shared_structs() -> Vec<(Shader, crate::contract::StructLayout)> {
    use crate::contract::GpuStruct;
    use crate::crowd::animate::Record;
    use crate::crowd::lod::formats::{
        CharacterLod, DrawSlot, LodFrame, MotionHeader, MotionSetHeader,
    };
    vec![
        (Shader::Crowd, super::camera::CameraUniform::LAYOUT),
        (Shader::Crowd, super::renderer::InstanceGpu::LAYOUT),
        (Shader::Crowd, super::renderer::ChunkGpu::LAYOUT),
        (Shader::Crowd, super::renderer::SkinParamsGpu::LAYOUT),
        (Shader::Crowd, super::renderer::MaterialParamsGpu::LAYOUT),
        (Shader::Crowd, super::renderer::MaterialGpu::LAYOUT),
        (Shader::Skin, super::skin::ParamsGpu::LAYOUT),
        (Shader::Skin, super::skin::ClassGpu::LAYOUT),
        (Shader::Animate, super::animate::ParamsGpu::LAYOUT),
        (Shader::Animate, Record::LAYOUT),
        (Shader::Animate, super::animate::tables::TrackHeader::LAYOUT),
        (Shader::Lod, Record::LAYOUT),
        (Shader::Lod, LodFrame::LAYOUT),
        (Shader::Lod, CharacterLod::LAYOUT),
        (Shader::Lod, DrawSlot::LAYOUT),
        (Shader::Lod, MotionSetHeader::LAYOUT),
        (Shader::Lod, MotionHeader::LAYOUT),
    ]
}
