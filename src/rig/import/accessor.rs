//! Accessor reading: every glTF accessor goes through one bounds-checked reader.
//!
//! How it works: an accessor's type is checked against what its use accepts
//! ([`Expect`]), every size the file claims is checked against the bytes that back it
//! before anything is allocated, strides and sparse substitution are applied, and
//! normalized integers are mapped to [0, 1] or [-1, 1]. A malformed file gets an error that
//! names the accessor and its use, never a panic.

use gltf::accessor::{DataType, Dimensions};

use super::{ImportErrorKind, Importer, Result};

fn dims_name(d: Dimensions) -> &'static str {
    match d {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

fn type_name(t: DataType) -> &'static str {
    match t {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

fn component_size(t: DataType) -> usize {
    match t {
        DataType::I8 | DataType::U8 => 1,
        DataType::I16 | DataType::U16 => 2,
        DataType::U32 | DataType::F32 => 4,
    }
}

/// Reads one component as a number; `normalize` maps integers to [0,1] or [-1,1].
fn read_component(bytes: &[u8], t: DataType, normalize: bool) -> f64 {
    match t {
        DataType::I8 => {
            let v = bytes[0] as i8 as f64;
            if normalize { (v / 127.0).max(-1.0) } else { v }
        }
        DataType::U8 => {
            let v = bytes[0] as f64;
            if normalize { v / 255.0 } else { v }
        }
        DataType::I16 => {
            let v = i16::from_le_bytes([bytes[0], bytes[1]]) as f64;
            if normalize {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        DataType::U16 => {
            let v = u16::from_le_bytes([bytes[0], bytes[1]]) as f64;
            if normalize { v / 65535.0 } else { v }
        }
        DataType::U32 => {
            let v = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64;
            if normalize { v / u32::MAX as f64 } else { v }
        }
        DataType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f64,
    }
}

/// The accepted shape of an accessor for one use.
pub(super) struct Expect {
    dims: &'static [Dimensions],
    types: &'static [DataType],
    /// Integer types must be `normalized` (weights, quantized rotations).
    normalized_ints: bool,
    expected: &'static str,
}

pub(super) const FLOAT_VEC3: Expect = Expect {
    dims: &[Dimensions::Vec3],
    types: &[DataType::F32],
    normalized_ints: false,
    expected: "VEC3 of FLOAT",
};
pub(super) const UV: Expect = Expect {
    dims: &[Dimensions::Vec2],
    types: &[DataType::F32, DataType::U8, DataType::U16],
    normalized_ints: true,
    expected: "VEC2 of FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT",
};
pub(super) const JOINTS: Expect = Expect {
    dims: &[Dimensions::Vec4],
    types: &[DataType::U8, DataType::U16],
    normalized_ints: false,
    expected: "VEC4 of UNSIGNED_BYTE or UNSIGNED_SHORT",
};
pub(super) const WEIGHTS: Expect = Expect {
    dims: &[Dimensions::Vec4],
    types: &[DataType::F32, DataType::U8, DataType::U16],
    normalized_ints: true,
    expected: "VEC4 of FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT",
};
pub(super) const INDICES: Expect = Expect {
    dims: &[Dimensions::Scalar],
    types: &[DataType::U8, DataType::U16, DataType::U32],
    normalized_ints: false,
    expected: "SCALAR of UNSIGNED_BYTE/UNSIGNED_SHORT/UNSIGNED_INT",
};
pub(super) const MATRICES: Expect = Expect {
    dims: &[Dimensions::Mat4],
    types: &[DataType::F32],
    normalized_ints: false,
    expected: "MAT4 of FLOAT",
};
pub(super) const TIMES: Expect = Expect {
    dims: &[Dimensions::Scalar],
    types: &[DataType::F32],
    normalized_ints: false,
    expected: "SCALAR of FLOAT",
};
pub(super) const ROTATIONS: Expect = Expect {
    dims: &[Dimensions::Vec4],
    types: &[
        DataType::F32,
        DataType::I8,
        DataType::U8,
        DataType::I16,
        DataType::U16,
    ],
    normalized_ints: true,
    expected: "VEC4 of FLOAT or normalized integers",
};

impl Importer<'_> {
    /// Reads an accessor, checks its type and range, and returns `count * components`
    /// numbers (integers normalized when the accessor says so and `expect` allows it).
    pub(super) fn read(
        &self,
        accessor: &gltf::Accessor,
        what: &str,
        expect: &Expect,
    ) -> Result<Vec<f64>> {
        let what = format!("accessor {} ({what})", accessor.index());
        let dims = accessor.dimensions();
        let t = accessor.data_type();
        let normalized = accessor.normalized();
        let int_type = t != DataType::F32;
        let type_ok = expect.dims.contains(&dims)
            && expect.types.contains(&t)
            && (!int_type || normalized == expect.normalized_ints);
        if !type_ok {
            return Err(ImportErrorKind::WrongAccessorType {
                what,
                expected: expect.expected.into(),
                found: format!(
                    "{} of {}{}",
                    dims_name(dims),
                    if normalized { "normalized " } else { "" },
                    type_name(t)
                ),
            });
        }
        let components = dims.multiplicity();
        let csize = component_size(t);
        let element_size = components * csize;
        let count = accessor.count();
        // Every size the file claims is checked against the bytes that back it before
        // anything is allocated by it (a 1 KB file must not make us allocate gigabytes).
        let out_of_range = |detail: String| ImportErrorKind::OutOfRange {
            what: what.clone(),
            detail,
        };
        let values_len = count
            .checked_mul(components)
            .ok_or_else(|| out_of_range(format!("{count} elements overflow")))?;

        let backing = if let Some(view) = accessor.view() {
            let bytes = self.view_bytes(&view, &what)?;
            let stride = view.stride().unwrap_or(element_size);
            if stride < element_size {
                return Err(out_of_range(format!(
                    "byteStride {stride} is smaller than the element size {element_size}"
                )));
            }
            let needed = match count {
                0 => Some(0),
                _ => stride
                    .checked_mul(count - 1)
                    .and_then(|n| n.checked_add(accessor.offset()))
                    .and_then(|n| n.checked_add(element_size)),
            };
            if needed.is_none_or(|needed| needed > bytes.len()) {
                return Err(out_of_range(format!(
                    "{count} elements at byteOffset {} need {} bytes, but buffer view {} has {}",
                    accessor.offset(),
                    needed.map_or_else(|| "more than 2^64".to_string(), |n| n.to_string()),
                    view.index(),
                    bytes.len()
                )));
            }
            Some((bytes, stride))
        } else {
            // No buffer view: the elements are zeros (then sparse substitution). Nothing
            // backs them, so they may take at most as much as the file's own bytes.
            let limit = self.input_bytes.max(1 << 16);
            if values_len.saturating_mul(std::mem::size_of::<f64>()) > 8 * limit {
                return Err(out_of_range(format!(
                    "{count} elements without a buffer view would decode to {} MB, more than \
                     eight times the file's {} bytes",
                    values_len.saturating_mul(8) >> 20,
                    self.input_bytes
                )));
            }
            None
        };
        let mut values = vec![0f64; values_len];
        if let Some((bytes, stride)) = backing {
            for (i, chunk) in values.chunks_exact_mut(components).enumerate() {
                let start = accessor.offset() + i * stride;
                for (c, value) in chunk.iter_mut().enumerate() {
                    *value = read_component(&bytes[start + c * csize..], t, normalized);
                }
            }
        }

        if let Some(sparse) = accessor.sparse() {
            let sparse_count = sparse.count();
            let indices = sparse.indices();
            let index_type = match indices.index_type() {
                gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let index_bytes = self.view_bytes(&indices.view(), &what)?;
            let index_size = component_size(index_type);
            let end = |offset: usize, size: usize| {
                size.checked_mul(sparse_count)
                    .and_then(|n| n.checked_add(offset))
            };
            let index_end = end(indices.offset(), index_size);
            let value_bytes = self.view_bytes(&sparse.values().view(), &what)?;
            let value_end = end(sparse.values().offset(), element_size);
            if index_end.is_none_or(|e| e > index_bytes.len())
                || value_end.is_none_or(|e| e > value_bytes.len())
            {
                return Err(ImportErrorKind::OutOfRange {
                    what,
                    detail: format!(
                        "sparse data for {sparse_count} elements runs past its buffer view"
                    ),
                });
            }
            for s in 0..sparse_count {
                let target = read_component(
                    &index_bytes[indices.offset() + s * index_size..],
                    index_type,
                    false,
                ) as usize;
                if target >= count {
                    return Err(ImportErrorKind::OutOfRange {
                        what,
                        detail: format!("sparse index {target} is beyond the {count} elements"),
                    });
                }
                let start = sparse.values().offset() + s * element_size;
                for c in 0..components {
                    values[target * components + c] =
                        read_component(&value_bytes[start + c * csize..], t, normalized);
                }
            }
        }
        Ok(values)
    }

    fn view_bytes(&self, view: &gltf::buffer::View, what: &str) -> Result<&[u8]> {
        let buffer = &self.buffers[view.buffer().index()];
        let declared = view.buffer().length();
        let end = view.offset().checked_add(view.length());
        match end {
            Some(end) if end <= declared && end <= buffer.len() => Ok(&buffer[view.offset()..end]),
            _ => Err(ImportErrorKind::OutOfRange {
                what: what.to_string(),
                detail: format!(
                    "buffer view {} spans bytes {}..{} of buffer {}, which has {declared}",
                    view.index(),
                    view.offset(),
                    view.offset().saturating_add(view.length()),
                    view.buffer().index()
                ),
            }),
        }
    }

    pub(super) fn read_finite_f32(
        &self,
        accessor: &gltf::Accessor,
        what: &str,
        expect: &Expect,
    ) -> Result<Vec<f32>> {
        let values = self.read(accessor, what, expect)?;
        let mut out = Vec::with_capacity(values.len());
        for (i, v) in values.into_iter().enumerate() {
            let v = v as f32;
            if !v.is_finite() {
                return Err(ImportErrorKind::NonFinite {
                    what: format!("accessor {} ({what})", accessor.index()),
                    index: i,
                    value: v,
                });
            }
            out.push(v);
        }
        Ok(out)
    }
}
