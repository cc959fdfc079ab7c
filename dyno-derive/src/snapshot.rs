//! Expansion snapshots (filled in below).
