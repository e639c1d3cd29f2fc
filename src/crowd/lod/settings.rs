//! The user's LOD settings and their checks.

use super::PERIODS;

/// The user's LOD settings.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LodSettings {
    /// Update-rate LOD (and culling).
    pub enabled: bool,
    /// Geometric LOD: each character drawn with the coarsest level of its mesh's chain
    /// whose error stays under the threshold.
    pub mesh: bool,
    /// The screen-space error allowed, pixels.
    pub threshold_px: f32,
    /// The longest period, frames: 1, 2, 4 or 8.
    pub max_period: u8,
}

impl Default for LodSettings {
    fn default() -> Self {
        LodSettings {
            enabled: false,
            mesh: false,
            threshold_px: 1.0,
            max_period: 8,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LodError {
    #[error(
        "LOD threshold {0} px is not a number from {least} to {most}",
        least = LodSettings::THRESHOLD_PX.start(),
        most = LodSettings::THRESHOLD_PX.end()
    )]
    Threshold(f32),
    #[error("LOD period cap {0} is not one of 1, 2, 4, 8")]
    MaxPeriod(u32),
}

impl LodSettings {
    /// The thresholds a user may ask for, pixels: the flag's check and the panel's slider
    /// both read this range, so the slider never moves a value the flag accepted.
    pub const THRESHOLD_PX: std::ops::RangeInclusive<f32> = 0.01..=100.0;

    pub fn check_threshold(px: f32) -> Result<f32, LodError> {
        if Self::THRESHOLD_PX.contains(&px) {
            Ok(px)
        } else {
            Err(LodError::Threshold(px))
        }
    }

    pub fn check_max_period(frames: u32) -> Result<u8, LodError> {
        PERIODS
            .iter()
            .copied()
            .find(|&p| p as u32 == frames)
            .ok_or(LodError::MaxPeriod(frames))
    }

    pub fn validate(&self) -> Result<(), LodError> {
        Self::check_threshold(self.threshold_px)?;
        Self::check_max_period(self.max_period as u32)?;
        Ok(())
    }
}
