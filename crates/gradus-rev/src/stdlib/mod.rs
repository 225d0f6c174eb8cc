//! Reversible building blocks (REVERSIBLE.md §8), written in the statement language.
