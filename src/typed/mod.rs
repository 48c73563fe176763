//! Side effects of clusterctl's typed round trips (R7.8).
pub mod quantity;
