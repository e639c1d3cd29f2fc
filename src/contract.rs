//! Contracts between the CPU and the GPU: each data format both sides read is one Rust type.
//!
//! How it works: [`gpu_struct!`](crate::gpu_struct) declares a `#[repr(C)]` struct and,
//! beside it, its layout as a shader must declare it ([`GpuStruct::LAYOUT`]): the WGSL
//! struct's name, and each member's name, byte offset and size, all taken from the Rust
//! declaration by the compiler (`offset_of!`, `size_of`). `tests/contracts.rs` parses
//! every shader with naga and compares each WGSL struct of that name with its Rust type
//! member by member, so a field moved, resized, renamed, added or dropped on one side only
//! fails a test. Constants both sides use (flags, sizes, the lane-block layout) are written
//! once in Rust and handed to the shaders as a generated WGSL module (`gpu::shaders`).
//! This module is plain data: the CPU twins of GPU passes use the same types.

/// One member of a struct shared with WGSL: its name (the same on both sides), its byte
/// offset and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: &'static str,
    pub offset: usize,
    pub size: usize,
}

/// A struct's layout as the shaders must see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructLayout {
    /// The struct's name in WGSL.
    pub wgsl: &'static str,
    /// Its size in bytes (what an array of it strides by in Rust).
    pub size: usize,
    pub members: &'static [Member],
}

/// A `#[repr(C)]` plain-data type a shader reads or writes (see the module docs).
pub trait GpuStruct: bytemuck::Pod {
    const LAYOUT: StructLayout;
}

/// Declares a `#[repr(C)]` struct shared with WGSL, and its [`GpuStruct`] layout:
///
/// ```
/// skinbench::gpu_struct! {
///     /// `Pair` in some.wgsl.
///     #[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
///     pub struct Pair in "Pair" {
///         pub first: u32,
///         pub second: f32,
///     }
/// }
/// use skinbench::contract::GpuStruct;
/// assert_eq!(Pair::LAYOUT.members[1].offset, 4);
/// ```
#[macro_export]
macro_rules! gpu_struct {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident in $wgsl:literal {
            $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        $vis struct $name {
            $($(#[$field_meta])* $field_vis $field: $ty),*
        }

        impl $crate::contract::GpuStruct for $name {
            const LAYOUT: $crate::contract::StructLayout = $crate::contract::StructLayout {
                wgsl: $wgsl,
                size: ::std::mem::size_of::<$name>(),
                members: &[$($crate::contract::Member {
                    name: stringify!($field),
                    offset: ::std::mem::offset_of!($name, $field),
                    size: ::std::mem::size_of::<$ty>(),
                }),*],
            };
        }
    };
}

/// A struct's words from a `u32` array that holds it at word `at`, read by name: what a
/// CPU twin does where the shader reads the same struct from the same words.
pub fn read_words<T: GpuStruct>(words: &[u32], at: usize) -> Option<T> {
    let n = std::mem::size_of::<T>() / 4;
    let slice = words.get(at..at.checked_add(n)?)?;
    Some(bytemuck::pod_read_unaligned(bytemuck::cast_slice(slice)))
}

/// `value` as words, to append to a `u32` array the shader reads it from.
pub fn to_words<T: GpuStruct>(value: &T) -> &[u32] {
    bytemuck::cast_slice(bytemuck::bytes_of(value))
}
