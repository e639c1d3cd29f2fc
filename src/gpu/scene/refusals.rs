//! What a rig cannot run: the hierarchy variants that refuse it, and the skin variants and
//! methods that cannot skin it (on this adapter, or at all), shown disabled in the panel
//! with the reason.

use crate::anim::hierarchy::HierarchyVariant;
use crate::prepare::PreparedRig;
use crate::skin::{SkinMethod, SkinVariant};
use crate::variant::Variant;

/// What cannot skin a rig, per method and per skin variant (shown disabled in the panel).
#[derive(Debug, Default)]
pub struct SkinRigRefusals {
    /// For each method: the skin variants this adapter cannot run, and those that cannot
    /// skin the rig with the method (more influences than they take, or the method
    /// missing).
    by_method: Vec<(SkinMethod, Vec<(SkinVariant, String)>)>,
    /// For each skin variant: the methods it cannot skin the rig with.
    by_skin: Vec<(SkinVariant, Vec<(SkinMethod, String)>)>,
}

impl SkinRigRefusals {
    pub(super) fn of(rig: &PreparedRig, adapter: &[(SkinVariant, String)]) -> Self {
        SkinRigRefusals {
            by_method: SkinMethod::ALL
                .iter()
                .map(|&m| {
                    let refused = adapter
                        .iter()
                        .cloned()
                        .chain(
                            SkinVariant::ALL
                                .iter()
                                .filter_map(|&s| s.refusal(m, rig).map(|r| (s, r))),
                        )
                        .collect();
                    (m, refused)
                })
                .collect(),
            by_skin: SkinVariant::ALL
                .iter()
                .map(|&s| {
                    let refused = SkinMethod::ALL
                        .iter()
                        .filter_map(|&m| s.refusal(m, rig).map(|r| (m, r)))
                        .collect();
                    (s, refused)
                })
                .collect(),
        }
    }

    /// The skin variants refused with `method`.
    pub fn variants(&self, method: SkinMethod) -> &[(SkinVariant, String)] {
        self.by_method
            .iter()
            .find(|(m, _)| *m == method)
            .map_or(&[], |(_, refused)| refused)
    }

    /// The methods `skin` refuses.
    pub fn methods(&self, skin: SkinVariant) -> &[(SkinMethod, String)] {
        self.by_skin
            .iter()
            .find(|(s, _)| *s == skin)
            .map_or(&[], |(_, refused)| refused)
    }
}

/// The hierarchy variants that refuse `rig`, and why (shown disabled in the panel).
pub(super) fn refusals_of(rig: &PreparedRig) -> Vec<(HierarchyVariant, String)> {
    HierarchyVariant::ALL
        .iter()
        .filter_map(|&v| v.refusal(rig).map(|r| (v, r)))
        .collect()
}
