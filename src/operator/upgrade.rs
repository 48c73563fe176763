//! Upgrade planning over the providers' sources.
