//! `both_modes!(name, ...)`: each `fn name(Sandbox)` run as two tests, `name::default` and
//! `name::strict` (the strict one only where a sandbox can be built, see `strict_ready`).
#![allow(unused_macros, unused_imports)]

macro_rules! both_modes {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            use super::*;
            #[test]
            fn default() {
                super::$name(Sandbox::Default);
            }
            #[test]
            fn strict() {
                if strict_ready() {
                    super::$name(Sandbox::Strict);
                }
            }
        }
    )*};
}
pub(crate) use both_modes;
