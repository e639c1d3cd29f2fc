//! The one list of variants per stage.
//!
//! How it works: each stage with alternatives has an enum implementing [`Variant`]: its
//! `ALL` array and snake_case names drive the CLI values, the UI combo boxes, the bench
//! matrix and the conformance tests. Adding a variant is one enum arm (plus its kernel),
//! and it is then selectable, benchmarked and tested everywhere.

/// A selectable implementation of one pipeline stage.
pub trait Variant: Copy + Eq + std::fmt::Debug + 'static {
    /// The stage name as used in the CLI, UI and reports (`hierarchy`, `skin`, ...).
    const STAGE: &'static str;
    /// Every variant, baseline first.
    const ALL: &'static [Self];

    /// snake_case name, as in DESIGN §2.
    fn name(self) -> &'static str;

    /// One line on what the variant does differently.
    fn description(self) -> &'static str;

    /// The baseline the others are compared with.
    fn baseline() -> Self {
        Self::ALL[0]
    }

    /// Parses a name, listing the valid ones when it is not one of them.
    fn from_name(name: &str) -> Result<Self, UnknownVariant> {
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.name() == name)
            .ok_or_else(|| UnknownVariant {
                stage: Self::STAGE,
                given: name.to_string(),
                valid: Self::ALL
                    .iter()
                    .map(|v| v.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// A variant name that is not in the stage's list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {stage} variant {given:?}; valid values: {valid}")]
pub struct UnknownVariant {
    pub stage: &'static str,
    pub given: String,
    pub valid: String,
}
