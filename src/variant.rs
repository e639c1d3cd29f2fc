//! The one declaration of each stage's variants.
//!
//! How it works: a stage declares its variants once with [`crate::declare_variants!`]: the enum,
//! its `ALL` list (baseline first), and for each variant one row of the stage's spec type
//! (its snake_case name, one-line description and every property the rest of the program
//! asks about: output layout, palette layout, vertex order, lane width, which rigs it
//! refuses). The macro turns the rows into an exhaustive `spec()` match, so a new variant
//! without its row does not compile, and implements [`Variant`] and `Serialize` from the
//! names. The CLI's value lists, help text and defaults, the panel's combo boxes, the bench
//! matrix and the tests all read `ALL` and `spec()`; nothing else lists variants by hand.

/// A selectable implementation of one pipeline stage.
pub trait Variant: Copy + Eq + std::fmt::Debug + 'static {
    /// The stage name as used in the CLI, UI and reports (`hierarchy`, `skin`, ...).
    const STAGE: &'static str;
    /// Every variant, baseline first.
    const ALL: &'static [Self];

    /// snake_case name, as the CLI, the panel and the reports spell it.
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

/// Declares a stage's variants: the enum, `ALL`, and `spec()` from one row per variant.
///
/// ```text
/// declare_variants! {
///     /// Doc of the enum.
///     pub enum Schedule: ScheduleSpec in "schedule" {
///         Staged => ScheduleSpec { name: "staged", description: "..." },
///         Fused => ScheduleSpec { name: "fused", description: "..." },
///     }
/// }
/// ```
/// The spec type needs `name` and `description` fields (`&'static str`).
#[macro_export]
macro_rules! declare_variants {
    (
        $(#[$meta:meta])*
        $vis:vis enum $enum:ident : $spec:ident in $stage:literal {
            $( $(#[$vmeta:meta])* $variant:ident => $row:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $enum {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $enum {
            /// How many variants the declaration has.
            pub const COUNT: usize = [$( Self::$variant ),+].len();

            /// Everything the program asks about this variant (its row of the declaration).
            pub const fn spec(self) -> $spec {
                match self {
                    $( Self::$variant => $row ),+
                }
            }

            /// The variant's place in the declaration (and in `ALL`): an index for tables
            /// kept per variant.
            pub const fn index(self) -> usize {
                self as usize
            }
        }

        impl $crate::variant::Variant for $enum {
            const STAGE: &'static str = $stage;
            const ALL: &'static [Self] = &[ $( Self::$variant ),+ ];

            fn name(self) -> &'static str {
                self.spec().name
            }

            fn description(self) -> &'static str {
                self.spec().description
            }
        }

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($crate::variant::Variant::name(*self))
            }
        }
    };
}

/// The plain spec of stages whose variants have no properties beyond a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainSpec {
    pub name: &'static str,
    pub description: &'static str,
}
