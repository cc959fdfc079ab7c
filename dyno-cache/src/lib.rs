//! dyno-cache: write-through caching for dyno stores.
