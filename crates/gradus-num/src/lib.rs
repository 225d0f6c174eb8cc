//! Placeholder; see the crate's specification in ../shared.
